"""ScriptedBackend: a stand-in for an LLM in tests of pipeline logic (never shipped in the package).

Replies are queued with `enqueue()` and returned in order; every request is recorded in `calls`, so a
test can check what the pipeline asked (the prompt, the feedback of a retry, …).
"""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any, ClassVar

from citebound.errors import BackendError
from citebound.generation.base import Backend, Generation, GenerationRequest


class ScriptedBackend(Backend):
    name = "scripted"
    can_regenerate: ClassVar[bool] = True

    class Options(Backend.Options):
        sleep: float = 0.0  # seconds to wait inside generate(): lets a test kill the process mid-request
        signal_file: str | None = None  # touched when generate() starts, so that test knows when to kill
        can_regenerate: bool = True

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.replies: deque[str] = deque()
        self.calls: list[GenerationRequest] = []
        self.can_regenerate = self.options.can_regenerate

    def enqueue(self, *replies: str | dict[str, Any]) -> ScriptedBackend:
        for reply in replies:
            self.replies.append(reply if isinstance(reply, str) else json.dumps(reply))
        return self

    def generate(self, request: GenerationRequest) -> Generation:
        self.calls.append(request)
        if self.options.signal_file:
            open(self.options.signal_file, "w").close()
        if self.options.sleep:
            time.sleep(self.options.sleep)
        if not self.replies:
            raise BackendError("ScriptedBackend: no reply queued")
        return Generation(text=self.replies.popleft(), model="scripted")
