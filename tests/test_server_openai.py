"""The official `openai` Python SDK against a real uvicorn server on loopback: /v1/chat/completions plain
and streamed, citations as numbered markers in the text and as structured data the SDK passes through;
and SSE /v1/ask read over a real socket."""

import json

import pytest

pytest.importorskip("fastapi")
openai = pytest.importorskip("openai")
import httpx  # noqa: E402
from helpers.server_fixtures import handbook_kb, live_server  # noqa: E402

from citebound.kb import KnowledgeBase  # noqa: E402
from citebound.kb.keys import KeyStore  # noqa: E402
from citebound.server.app import create_app  # noqa: E402
from citebound.server.settings import ServerSettings  # noqa: E402

QUESTION = "How much does express delivery cost?"


@pytest.fixture(scope="module")
def kb_path(tmp_path_factory):
    return handbook_kb(tmp_path_factory.mktemp("openai"))


@pytest.fixture(scope="module")
def key(kb_path):
    with KnowledgeBase.open(kb_path) as kb:
        return KeyStore(kb.db).create("ask", name="sdk")[1]


@pytest.fixture(scope="module")
def base_url(kb_path, key):
    with live_server(create_app(kb_path, ServerSettings(rate_limit=0))) as url:
        yield url


@pytest.fixture(scope="module")
def sdk(base_url, key):
    return openai.OpenAI(base_url=f"{base_url}/v1", api_key=key, max_retries=0, timeout=60)


def test_models_lists_the_kb(sdk, kb_path):
    assert {m.id for m in sdk.models.list()} >= {"citebound", kb_path.name}


def test_chat_completion_is_a_verified_answer_with_structured_citations(sdk, kb_path):
    completion = sdk.chat.completions.create(
        model="citebound", messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}])
    message = completion.choices[0].message
    assert message.role == "assistant" and completion.choices[0].finish_reason == "stop"
    assert message.content.startswith("Express delivery arrives the next business day and costs 12 euros [1].")
    assert "Sources:\n[1] docs/shipping.md (version 1" in message.content
    citations = message.citations  # an extra field: the SDK keeps it
    assert citations == completion.citations
    first = citations[0]
    assert first["number"] == 1 and first["document"] == "docs/shipping.md" and first["version"] == 1
    with KnowledgeBase.open(kb_path) as kb:
        text = kb.document_text(first["document"], first["version"])
    assert text[first["span"]["start"] : first["span"]["end"]] == first["quote"]
    assert completion.id == f"chatcmpl-{completion.citebound['request_id']}"


def test_chat_completion_streams_chunks_and_ends_with_the_citations(sdk):
    stream = sdk.chat.completions.create(model="citebound", messages=[{"role": "user", "content": QUESTION}],
                                         stream=True)
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text.startswith("Express delivery arrives the next business day and costs 12 euros [1].")
    assert "Sources:" in text
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.citations[0]["document"] == "docs/shipping.md" and last.citations[0]["quote"] in text


def test_chat_abstains_with_the_fixed_sentence(sdk):
    completion = sdk.chat.completions.create(
        model="citebound", messages=[{"role": "user", "content": "Which moon of Jupiter has the thickest ice crust?"}])
    assert completion.choices[0].message.content == "I could not find this in the knowledge base."
    assert completion.citations == [] and completion.citebound["abstained"]


def test_sdk_errors_are_typed(base_url, key):
    wrong = openai.OpenAI(base_url=f"{base_url}/v1", api_key="cb_wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        wrong.chat.completions.create(model="citebound", messages=[{"role": "user", "content": QUESTION}])
    right = openai.OpenAI(base_url=f"{base_url}/v1", api_key=key, max_retries=0)
    with pytest.raises(openai.NotFoundError):
        right.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": QUESTION}])
    with pytest.raises(openai.BadRequestError):
        right.chat.completions.create(model="citebound", messages=[{"role": "system", "content": "no question"}])


def test_ask_streams_events_over_a_real_socket(base_url, key):
    seen = []
    with httpx.stream("POST", f"{base_url}/v1/ask", json={"question": QUESTION}, timeout=60,
                      headers={"accept": "text/event-stream", "authorization": f"Bearer {key}"}) as res:
        assert res.status_code == 200
        event = None
        for line in res.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                seen.append((event, json.loads(line[6:])))
    assert [e for e, _ in seen][0] == "sources" and seen[-1][0] == "answer"
    assert seen[-1][1]["claims"][0]["label"] == "supported"
