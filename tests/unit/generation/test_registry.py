import pytest

from citebound.errors import InputError
from citebound.generation import BACKENDS, Backend, Generation, backend_class, get_backend, register_backend


def test_builtin_backends_resolve_to_classes_with_capabilities():
    for name in ("extractive", "openai", "llama-cpp"):
        cls = backend_class(name)
        assert issubclass(cls, Backend) and cls.name == name
    assert backend_class("openai").can_regenerate and not backend_class("extractive").can_regenerate
    # none names its own checker: every backend's answers get the verifier's default (DEFAULT_CHECKER)
    assert all(backend_class(n).default_checker is None for n in ("extractive", "openai", "llama-cpp"))


def test_unknown_backend_lists_the_choices():
    with pytest.raises(InputError, match="extractive"):
        get_backend("gpt-17")


def test_options_are_strict():
    with pytest.raises(InputError, match="max_sentencs"):
        get_backend("extractive", max_sentencs=3)
    with pytest.raises(InputError, match="alpha"):
        get_backend("extractive", alpha=7)


def test_register_a_backend_and_mask_secrets():
    class Echo(Backend):
        name = "echo-test"

        class Options(Backend.Options):
            api_key: str = ""

        def generate(self, request):
            return Generation(text=request.question)

    register_backend(Echo)
    try:
        backend = get_backend("echo-test", api_key="secret")
        assert backend.describe() == {"name": "echo-test", "options": {"api_key": "***"}}
        assert get_backend(backend) is backend
    finally:
        BACKENDS.pop("echo-test")
