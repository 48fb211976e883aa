"""Any OpenAI-compatible chat-completions endpoint: OpenAI, vLLM, Ollama, llama.cpp server, LM Studio.

Configuration, first found wins: the options, then the environment
(`CITEBOUND_OPENAI_BASE_URL`, `CITEBOUND_OPENAI_MODEL`, `OPENAI_API_KEY`), then the defaults below.
JSON mode (`response_format: {"type": "json_object"}`) is asked for; a server that rejects it with a
400 is asked again without it, and remembered. Connection errors, timeouts, 429 and 5xx are retried
with exponential backoff; anything else fails at once with a `BackendError` that says what to fix.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import Field

from citebound import config
from citebound.errors import BackendError
from citebound.generation.base import Backend, Generation, GenerationRequest

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 30.0  # seconds; a server asking for longer is treated as unavailable


class OpenAICompatBackend(Backend):
    name = "openai"
    can_regenerate = True

    class Options(Backend.Options):
        base_url: str | None = Field(None, description="…/v1 of the server; env CITEBOUND_OPENAI_BASE_URL")
        model: str | None = Field(None, description="model name; env CITEBOUND_OPENAI_MODEL")
        api_key: str | None = Field(None, description="bearer token; env OPENAI_API_KEY")
        timeout: float = Field(60.0, gt=0, description="seconds per HTTP request")
        retries: int = Field(2, ge=0, le=10, description="extra attempts after a transient failure")
        backoff: float = Field(0.5, ge=0, description="first wait between attempts, doubled each time")
        temperature: float = Field(0.0, ge=0, le=2)
        max_tokens: int = Field(700, gt=0)
        json_mode: bool = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._json_mode = self.options.json_mode
        self._client = None

    # -- configuration ---------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        url = self.options.base_url or config.env("CITEBOUND_OPENAI_BASE_URL") or DEFAULT_BASE_URL
        return url.rstrip("/")

    @property
    def model(self) -> str:
        model = self.options.model or config.env("CITEBOUND_OPENAI_MODEL")
        if not model:
            raise BackendError("no model named for the openai backend: pass -o model=NAME or set "
                               "CITEBOUND_OPENAI_MODEL")
        return model

    def _headers(self) -> dict[str, str]:
        key = self.options.api_key or config.env("OPENAI_API_KEY")
        return {"Authorization": f"Bearer {key}"} if key else {}

    # -- calling ---------------------------------------------------------------------------------
    def generate(self, request: GenerationRequest) -> Generation:
        if not request.messages:
            raise BackendError("the openai backend needs a prompt (request.messages is empty)")
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": self.options.temperature,
            "max_tokens": self.options.max_tokens,
        }
        if self._json_mode:
            body["response_format"] = {"type": "json_object"}
        data = self._post("/chat/completions", body)
        try:
            text = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise BackendError(f"{self.base_url} answered without choices[0].message.content: "
                               f"{str(data)[:200]}") from None
        if not isinstance(text, str):
            raise BackendError(f"{self.base_url} returned non-text content: {str(text)[:200]}")
        return Generation(text=text, model=str(data.get("model") or self.model),
                          meta={"usage": data.get("usage") or {}, "json_mode": "response_format" in body})

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        import httpx

        if self._client is None:
            self._client = httpx.Client(timeout=httpx.Timeout(self.options.timeout))
        url = self.base_url + path
        wait = self.options.backoff
        last_problem = ""
        for attempt in range(self.options.retries + 1):
            if attempt:
                time.sleep(wait)
                wait *= 2
            try:
                response = self._client.post(url, json=body, headers=self._headers())
            except httpx.TimeoutException:
                last_problem = f"no answer from {url} within {self.options.timeout:g} s"
                continue
            except httpx.TransportError as exc:
                last_problem = (f"cannot reach {url} ({type(exc).__name__}: {exc}); is the server running? "
                                "Set CITEBOUND_OPENAI_BASE_URL or -o base_url=URL")
                continue
            status = response.status_code
            if status == 200:
                try:
                    return response.json()
                except ValueError:
                    raise BackendError(f"{url} returned a body that is not JSON: {response.text[:200]}") from None
            if status == 400 and "response_format" in body and "response_format" in response.text:
                # The server does not do JSON mode: ask again without it (the prompt still asks for JSON).
                self._json_mode = False
                body = {k: v for k, v in body.items() if k != "response_format"}
                return self._post(path, body)
            if status in (401, 403):
                raise BackendError(f"{url} refused the request ({status}): set OPENAI_API_KEY or -o api_key=KEY")
            if status == 404:
                raise BackendError(f"{url} not found (404): check the base URL (it usually ends in /v1) "
                                   f"and the model name {body.get('model')!r}")
            if status in RETRY_STATUSES:
                last_problem = f"{url} answered {status}: {response.text[:200]}"
                retry_after = _retry_after(response.headers.get("retry-after"))
                if retry_after is not None:
                    if retry_after > MAX_RETRY_AFTER:
                        break
                    wait = max(wait, retry_after)
                continue
            raise BackendError(f"{url} answered {status}: {response.text[:300]}")
        raise BackendError(f"openai backend failed after {self.options.retries + 1} attempt(s): {last_problem}")


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
