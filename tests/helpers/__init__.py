"""Test helpers (not part of the package): a scripted backend and a local chat-completions server."""
