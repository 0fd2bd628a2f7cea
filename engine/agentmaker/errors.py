"""Typed errors of the agentmaker engine.

Every error says what happened, to what, and what to do about it. ``str(error)`` is a
plain English sentence without a traceback. For apps that speak other languages, every
error also has a stable ``code`` (``"password_required"``, ``"server_unreachable"``…)
and the ``params`` of its message (``{"file": "a.pdf"}``): the app looks the code up in
its own translated texts and fills in the parameters, or shows ``str(error)`` for a code
it does not know.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Self


class AgentmakerError(Exception):
    """Base class of every error the engine raises on purpose.

    ``code`` names the problem (a class default, made more precise where it is raised);
    ``params`` holds the values its message was written with.
    """

    code: str = "error"

    @property
    def params(self) -> dict[str, Any]:
        """The message's values (file name, server address, sizes…)."""
        return dict(self.__dict__.get("_params") or {})

    def coded(self, code: str | None = None, **params: Any) -> Self:
        """Set a more precise ``code`` and add ``params``; returns the error (to raise)."""
        if code:
            self.code = code
        self._params = {**self.params, **params}
        return self


# --- configuration and usage -------------------------------------------------


class ConfigurationError(AgentmakerError, ValueError):
    """A setting is invalid (for example ``candidate_pool < top_k``)."""

    code = "configuration"


class InvalidQueryError(AgentmakerError, ValueError):
    """A question or search that cannot be answered as given (empty, not text, top_k < 1)."""

    code = "invalid_query"


class ScopeRequiredError(AgentmakerError, ValueError):
    """A search or delete with an empty ``Scope()`` would touch every tenant's data."""

    code = "scope_required"

    def __init__(self, operation: str) -> None:
        super().__init__(
            f"Refusing to {operation} with an empty Scope(): it would touch all data. "
            "Set at least one scope dimension (e.g. Scope(base='rag')) "
            "or pass all_scopes=True if you really mean everything."
        )


class UnknownFilterFieldError(AgentmakerError, ValueError):
    """A metadata filter names a field that was not declared at build time."""

    code = "unknown_filter_field"

    def __init__(self, field: str, declared: tuple[str, ...]) -> None:
        known = ", ".join(declared) if declared else "none"
        super().__init__(
            f"Cannot filter on {field!r}: it was not declared as a metadata column "
            f"(declared: {known}). Pass metadata_columns=(..., {field!r}) when building "
            "the index."
        )
        self.field = field


# --- storage -----------------------------------------------------------------


class StorageError(AgentmakerError):
    """The library file could not be read or written.

    Raised during a batch ingestion, ``report`` holds the batch's report up to that
    point (what was committed before the error), else it is None.
    """

    code = "storage"

    report: Any = None


class DiskFullError(StorageError):
    """The disk holding the library is full (nothing stored was lost)."""

    code = "disk_full"


class EmbeddingModelMismatchError(StorageError):
    """The library was built with a different embedding model than the one given."""

    code = "embedding_model_mismatch"

    def __init__(self, stored: str, given: str, path: str | None = None) -> None:
        where = f" {path}" if path else ""
        super().__init__(
            f"The library{where} was indexed with the embedding model {stored!r}, but "
            f"{given!r} was given. Vectors from different models cannot be compared. "
            "Open it with the original model, or migrate: build a new index with the "
            "new model and call IngestionPipeline.rebuild_index()."
        )
        self.stored = stored
        self.given = given


class LibraryVersionError(StorageError):
    """The library file was written by a newer version of the app."""

    code = "library_too_new"


class LibraryLockedError(StorageError):
    """Another process already has this library open for writing."""

    code = "library_locked"


# --- documents ---------------------------------------------------------------


class DocumentError(AgentmakerError):
    """A document could not be read. ``path`` names the file when there is one."""

    code = "unreadable"

    def __init__(self, message: str, path: str | Path | None = None) -> None:
        self.path = str(path) if path is not None else None
        name = f"{Path(path).name}: " if path is not None else ""
        super().__init__(f"{name}{message}")
        self.reason = message
        self.coded(file=Path(path).name if path is not None else "")


class UnsupportedFormatError(DocumentError):
    """The file's type is not one the app can read."""

    code = "unsupported"


class FormatMismatchError(DocumentError):
    """The file's content does not match its extension (e.g. a PNG named ``.md``)."""

    code = "format_mismatch"


class EmptyDocumentError(DocumentError):
    """The file holds no text to index (zero bytes, or only whitespace)."""

    code = "empty"


class CorruptDocumentError(DocumentError):
    """The file is truncated or damaged."""

    code = "corrupt"


class PasswordRequiredError(DocumentError):
    """The file is encrypted and the password was missing or wrong."""

    code = "password_required"


class NoTextLayerError(DocumentError):
    """A PDF (or page) has no extractable text: scanned or image-only."""

    code = "no_text_layer"


class FileTooLargeError(DocumentError):
    """The file is larger than the configured limit."""

    code = "too_large"


# --- models ------------------------------------------------------------------


class ModelError(AgentmakerError):
    """A model (embedder, language model, reranker) failed."""

    code = "model_failed"


class ModelAuthenticationError(ModelError):
    """The server rejected the API key."""

    code = "auth_rejected"


class ModelNotFoundError(ModelError):
    """The server does not have the requested model."""

    code = "model_missing"

    def __init__(self, message: str, available: list[str] | None = None) -> None:
        super().__init__(message)
        self.available = list(available or [])


class ModelConnectionError(ModelError):
    """The server could not be reached."""

    code = "server_unreachable"


class ModelRateLimitError(ModelError):
    """The server kept answering 429 after the retries."""

    code = "rate_limited"


class ContextTooLongError(ModelError):
    """The prompt is longer than the model's context window."""

    code = "context_too_long"


class ModelResponseError(ModelError):
    """The server answered with something that is not a valid response."""

    code = "bad_response"


class ModelFileError(ModelError):
    """A local model file (``.gguf``) is not one the app can use: wrong type, truncated,
    or an architecture the runtime does not know. ``path`` names the file."""

    code = "model_file"

    def __init__(self, message: str, path: str | Path | None = None) -> None:
        self.path = str(path) if path is not None else None
        name = f"{Path(path).name}: " if path is not None else ""
        super().__init__(f"{name}{message}")
        self.reason = message


class ModelLoadError(ModelError):
    """The local runtime could not load a model (not enough memory, damaged file)."""

    code = "model_load"


class ModelRuntimeError(ModelError):
    """The local runtime failed while generating (it crashed or ran out of memory)."""

    code = "model_crashed"


class ModelUnavailableError(ModelError):
    """The local runtime (``xllamacpp``) is not installed for this platform."""

    code = "runtime_missing"


class DownloadError(ModelError):
    """A model download failed; nothing was left where the model is expected."""

    code = "download_failed"


class DownloadDiskFullError(DownloadError, DiskFullError):
    """Not enough free disk space for a model download."""

    code = "download_disk_full"


class ChecksumMismatchError(DownloadError):
    """A downloaded file's size or sha256 is not the one the catalog states."""

    code = "checksum_mismatch"


class OperationCancelledError(AgentmakerError):
    """A long operation was cancelled by the caller."""

    code = "cancelled"


class ConversationNotFoundError(AgentmakerError, LookupError):
    """A conversation (or one of its turns) is not in this library."""

    code = "conversation_missing"

    def __init__(self, conversation_id: str, *, turn_id: str | None = None) -> None:
        what = f"turn {turn_id!r} of conversation" if turn_id else "conversation"
        super().__init__(
            f"There is no {what} {conversation_id!r} in this library: it was deleted, or "
            "belongs to another library or user. Reload the list of conversations."
        )
        self.conversation_id = conversation_id
        self.turn_id = turn_id


# --- team libraries (PostgreSQL + pgvector) -------------------------------------


class TeamLibraryError(StorageError):
    """A team library (PostgreSQL with pgvector) cannot be used as configured."""

    code = "team_library"


class TeamLibraryAddressError(TeamLibraryError):
    """The team library's address is not a PostgreSQL URL."""

    code = "team_address"

    def __init__(self, url: str, detail: str = "") -> None:
        why = f" ({detail})" if detail else ""
        super().__init__(
            f"{url!r} is not a PostgreSQL address{why}. Write it as "
            "postgresql://host:5432/database (the user name and password are asked separately)."
        )
        self.url = url


class TeamServerUnreachableError(TeamLibraryError):
    """Nothing answers at the server's host and port (down, wrong address, firewall)."""

    code = "team_unreachable"

    def __init__(self, where: str, detail: str = "") -> None:
        why = f" ({detail})" if detail else ""
        super().__init__(
            f"No PostgreSQL server answers at {where}{why}. Check that the server is running "
            "and that the host name and port are right; a firewall may also block the port."
        )
        self.where = where


class TeamLoginError(TeamLibraryError):
    """The server refused the user name or password (or this computer)."""

    code = "team_login"

    def __init__(self, user: str, where: str, reason: str = "password") -> None:
        if reason == "no_password":
            text = (
                f"The server at {where} wants a password for the user {user!r}. "
                "Type the password and test again."
            )
        elif reason == "not_allowed":
            text = (
                f"The server at {where} does not accept connections from this computer "
                f"for the user {user!r}. Ask its administrator to allow it in pg_hba.conf."
            )
        else:
            text = (
                f"The server at {where} refused the user name {user!r} or its password. "
                "Check both (they are case-sensitive) and test again."
            )
        super().__init__(text)
        self.user = user
        self.reason = reason


class TeamDatabaseMissingError(TeamLibraryError):
    """The server has no database of that name."""

    code = "team_database_missing"

    def __init__(self, database: str, where: str) -> None:
        super().__init__(
            f"The server at {where} has no database named {database!r}. Check the name at the "
            f"end of the address, or ask the administrator to run: CREATE DATABASE {database};"
        )
        self.database = database


class PgvectorMissingError(TeamLibraryError):
    """The pgvector extension is not enabled in the database (or not installed at all)."""

    code = "pgvector_missing"

    def __init__(self, database: str, *, installed_on_server: bool) -> None:
        if installed_on_server:
            text = (
                f"The database {database!r} does not have the pgvector extension enabled, and "
                "this user may not enable it. Ask a superuser to connect to that database and "
                "run: CREATE EXTENSION vector;"
            )
        else:
            text = (
                "The PostgreSQL server does not have the pgvector extension installed. Install "
                "it on the server (Debian/Ubuntu: apt install postgresql-16-pgvector, matching "
                "the server's major version; or run the pgvector/pgvector:pg16 Docker image), "
                f"then in the database {database!r} run as a superuser: CREATE EXTENSION vector;"
            )
        super().__init__(text)
        self.database = database
        self.installed_on_server = installed_on_server


class TeamServerTooOldError(TeamLibraryError):
    """The server (or its pgvector) is older than the team library needs."""

    code = "team_server_too_old"

    def __init__(self, what: str, found: str, needed: str, fix: str) -> None:
        super().__init__(f"{what} {found} is too old: the team library needs {needed}. {fix}")
        self.what = what
        self.found = found
        self.needed = needed


class TeamPermissionError(TeamLibraryError):
    """The user may connect but not create the library's tables, or not use existing ones.

    ``tables`` names existing tables the user may not read and write (empty: the library
    is new and the user may not create its tables).
    """

    code = "team_permission"

    def __init__(self, user: str, database: str, schema: str, tables: tuple[str, ...] = ()) -> None:
        if tables:
            some = ", ".join(tables[:3]) + (", …" if len(tables) > 3 else "")
            text = (
                f"The user {user!r} may not read and change the library's tables ({some}) in "
                f"the database {database!r}. Ask the administrator to run: GRANT SELECT, "
                f"INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {user}; GRANT "
                f"USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {user};"
            )
        else:
            text = (
                f"The user {user!r} may not create tables in the schema {schema!r} of the "
                f"database {database!r}, so the library cannot be set up. Ask the "
                f"administrator to run: GRANT CREATE, USAGE ON SCHEMA {schema} TO {user}; (or "
                f"make {user} the database's owner)."
            )
        super().__init__(text)
        self.user = user
        self.database = database
        self.schema = schema
        self.tables = tables
