"""What the server tests share: a KB built from the bundled handbook, and a real uvicorn server on a
free loopback port (in a thread of the test process), stopped at the end."""

from __future__ import annotations

import shutil
import threading
import time
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from collections.abc import Iterator

HANDBOOK = resources.files("citebound") / "samples" / "handbook"


def handbook_kb(root: Path) -> Path:
    from citebound.kb import KnowledgeBase

    shutil.copytree(HANDBOOK, root / "docs")
    with KnowledgeBase.open(root / "kb", create=True) as kb:
        kb.ingest([root / "docs"], progress=False, embed=True)
    return root / "kb"


def wait_ready(get, timeout: float = 120.0) -> None:
    """Poll GET /readyz until 200 (the models load in the background at start)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if get("/readyz").status_code == 200:
            return
        time.sleep(0.05)
    raise TimeoutError("the server did not become ready")


@contextmanager
def live_server(app) -> Iterator[str]:
    """Serve `app` with uvicorn on 127.0.0.1 and a free port; yields the base URL."""
    import httpx
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            wait_ready(client.get)
        yield base
    finally:
        server.should_exit = True
        thread.join(30)
