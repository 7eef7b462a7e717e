"""What the SDK raises: the service's error answers, and the failures to get one."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import Error, ErrorCode, ErrorDetail


class WorkspaceUserApiError(Exception):
    """Anything the SDK raises on its own account; catch this for all of them."""


class ApiError(WorkspaceUserApiError):
    """The service answered with an error status and, almost always, the contract's error body.

    ``error_message`` is the service's own sentence for people (a weak password's
    answer names every rule it broke); ``code`` is stable, for programs;
    ``errors`` lists every problem of an invalid request. An answer without the
    error body (a proxy's 502 page, say) has ``code`` None and ``body`` None.
    """

    status: int
    """The HTTP status."""
    body: Error | None
    """The error body, as the contract describes it; None when the answer carried none."""
    request_id: str | None
    """The answer's ``X-Request-Id``, to find the request in the service's log."""
    attempts: int
    """How many times the call was sent (more than 1 when it was retried)."""

    def __init__(self, status: int, body: Error | None, *, request_id: str | None, text: str = "", attempts: int = 1) -> None:
        self.status = status
        self.body = body
        self.request_id = request_id
        self.attempts = attempts
        message = body.error_message if body is not None else (text.strip()[:200] or f"HTTP {status}")
        super().__init__(f"{status} {message}")
        self._message = message

    @property
    def code(self) -> ErrorCode | None:
        """The error body's ``code`` (``weak_password``, ``user_not_found`` …)."""
        return self.body.code if self.body is not None else None

    @property
    def error_message(self) -> str:
        """The error body's ``error_message``, or what the answer said when it carried no error body."""
        return self._message

    @property
    def type(self) -> str | None:
        """RFC 9457's ``type``: the address of the code's section of the service's error reference."""
        return self.body.type if self.body is not None else None

    @property
    def title(self) -> str | None:
        """RFC 9457's ``title``: the code's title, the same for every occurrence (``Weak password``)."""
        return self.body.title if self.body is not None else None

    @property
    def detail(self) -> str | None:
        """RFC 9457's ``detail``: what went wrong this time, in ``error_message``'s words."""
        return self.body.detail if self.body is not None else None

    @property
    def errors(self) -> list[ErrorDetail]:
        """For an invalid request, every problem found in it; otherwise empty."""
        return list(self.body.errors or []) if self.body is not None else []


class TransportError(WorkspaceUserApiError):
    """No answer came: the service is unreachable, the connection broke, or the time ran out."""

    attempts: int
    """How many times the call was sent (more than 1 when it was retried)."""

    def __init__(self, message: str, *, attempts: int = 1) -> None:
        super().__init__(message)
        self.attempts = attempts


class UnexpectedResponse(WorkspaceUserApiError):
    """A successful answer that is not what the contract describes (not JSON, or a field of the wrong type)."""
