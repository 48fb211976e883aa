"""Any OpenAI-compatible chat-completions endpoint: OpenAI, vLLM, Ollama, llama.cpp server, LM Studio.

Configuration, first found wins: the options, then the environment
(`CITEBOUND_OPENAI_BASE_URL`, `CITEBOUND_OPENAI_MODEL`, `OPENAI_API_KEY`), then the defaults below.
JSON mode (`response_format: {"type": "json_object"}`) is asked for; a server that rejects it with a
400 is asked again without it, and remembered. Connection errors, timeouts, 429 and 5xx are retried
with exponential backoff; anything else fails at once with a `BackendError` that says what to fix.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from citebound import config
from citebound.chat_client import ChatClient
from citebound.errors import BackendError
from citebound.generation.base import Backend, Generation, GenerationRequest

DEFAULT_BASE_URL = "https://api.openai.com/v1"


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
        client = self._chat_client()
        if self.options.json_mode and client.json_mode_supported:
            body["response_format"] = {"type": "json_object"}
        data = client.complete(body)
        text = ChatClient.content(data, self.base_url)
        return Generation(text=text, model=str(data.get("model") or self.model),
                          meta={"usage": data.get("usage") or {}, "json_mode": client.json_mode_supported
                                and "response_format" in body})

    def _chat_client(self) -> ChatClient:
        if self._client is None:
            o = self.options
            self._client = ChatClient(self.base_url, o.api_key or config.env("OPENAI_API_KEY"), timeout=o.timeout,
                                      retries=o.retries, backoff=o.backoff)
        return self._client
