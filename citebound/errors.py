"""The error tree. Anything a user can cause or fix is a CiteboundError: the CLI prints its message on
one line and exits with code 2, never with a traceback."""


class CiteboundError(Exception):
    """Base class for every error citebound raises on purpose."""


class InputError(CiteboundError):
    """Bad input from the user: a malformed file, an unknown id, an empty or binary document."""


class SchemaError(InputError):
    """A model's output or an answer file does not match the GroundedAnswer schema."""


class KnowledgeBaseError(CiteboundError):
    """The knowledge base is missing, locked, or inconsistent."""


class DatabaseUnavailableError(KnowledgeBaseError):
    """The database (PostgreSQL) cannot be reached right now; a later attempt may work (the HTTP service
    answers 503)."""


class ModelUnavailableError(CiteboundError):
    """A model file or optional dependency is not installed; the message says what to install."""


class BackendError(CiteboundError):
    """A generation backend or judge could not be reached or answered badly."""
