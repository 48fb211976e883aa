"""One client for OpenAI-compatible `/chat/completions` servers, used by the openai backend and the LLM judge.

Retries what is worth retrying (timeouts, refused connections, 408/409/425/429/5xx, honouring a short
Retry-After), fails fast on what is not (401/403, 404, other 4xx), and falls back once from JSON mode
when a server rejects `response_format`. Every failure is a `BackendError` whose message says what to fix.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from citebound.errors import BackendError

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 30.0  # seconds; a server asking for longer is treated as unavailable


@dataclass
class ChatClient:
    base_url: str
    api_key: str | None = None
    timeout: float = 60.0
    retries: int = 2  # extra attempts after a transient failure
    backoff: float = 0.5  # first wait between attempts, doubled each time
    key_hint: str = "OPENAI_API_KEY or -o api_key=KEY"  # how the user sets a key, for the 401 message
    url_hint: str = "Set CITEBOUND_OPENAI_BASE_URL or -o base_url=URL"

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        self.json_mode_supported = True
        self._http = None

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """POST `body` to /chat/completions; the parsed JSON reply. Drops `response_format` for good if
        the server rejects it (the prompt still asks for JSON)."""
        if not self.json_mode_supported:
            body = {k: v for k, v in body.items() if k != "response_format"}
        try:
            return self._post("/chat/completions", body)
        except _JsonModeRejected:
            self.json_mode_supported = False
            return self._post("/chat/completions", {k: v for k, v in body.items() if k != "response_format"})

    @staticmethod
    def content(data: dict[str, Any], where: str) -> str:
        """choices[0].message.content of a reply, or a BackendError saying what came instead."""
        try:
            text = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise BackendError(f"{where} answered without choices[0].message.content: {str(data)[:200]}") from None
        if not isinstance(text, str):
            raise BackendError(f"{where} returned non-text content: {str(text)[:200]}")
        return text

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        import httpx

        if self._http is None:
            self._http = httpx.Client(timeout=httpx.Timeout(self.timeout))
        url = self.base_url + path
        wait = self.backoff
        last_problem = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(wait)
                wait *= 2
            try:
                response = self._http.post(url, json=body, headers=self._headers())
            except httpx.TimeoutException:
                last_problem = f"no answer from {url} within {self.timeout:g} s"
                continue
            except httpx.TransportError as exc:
                last_problem = f"cannot reach {url} ({type(exc).__name__}: {exc}); is the server running? {self.url_hint}"
                continue
            status = response.status_code
            if status == 200:
                try:
                    return response.json()
                except ValueError:
                    raise BackendError(f"{url} returned a body that is not JSON: {response.text[:200]}") from None
            if status == 400 and "response_format" in body and "response_format" in response.text:
                raise _JsonModeRejected
            if status in (401, 403):
                raise BackendError(f"{url} refused the request ({status}): set {self.key_hint}")
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
        raise BackendError(f"{url} failed after {self.retries + 1} attempt(s): {last_problem}")


class _JsonModeRejected(Exception):
    """The server answered 400 naming response_format: it has no JSON mode."""


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
