"""The client's connection to the service, on the standard library alone.

The generated ``WorkspaceClient`` adds one method per operation to this base.
It sends what it is given and lets the service judge it: a weak password, say,
reaches the service, whose answer names every rule it broke.

A call is tried again after 429, 502, 503, 504 or no answer, as the TypeScript
SDK does (docs/sdks.md): an operation that does the same thing however often
it arrives after any of those, and so is any call sent with an Idempotency-Key,
which every create (``create_user``, ``create_group``, ``create_webhook``) gets
unless given one: the service makes the change once however often it arrives
(docs/api.md, "Retries"), and a retry that comes while the first attempt still
runs (409 ``idempotency_key_in_use``) is tried again. The wait is what
Retry-After asks, or else exponential backoff with full jitter; a Retry-After
past the cap or the deadline ends the retries.
"""

from __future__ import annotations

import base64
import email.utils
import json
import os
import random
import socket
import time
import uuid
import urllib.error
import urllib.request
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from .errors import ApiError, TransportError, UnexpectedResponse

DEFAULT_BASE_URL = "http://127.0.0.1:8080"

CredentialsIn = Literal["body", "basic", "headers"]

_RETRIED_STATUSES = frozenset({429, 502, 503, 504})
# Statuses with which the service itself says it did nothing: the throttle, a database away, a full service.
_NOTHING_DONE_STATUSES = frozenset({429, 503})
# Operations that would make a second record if sent twice: each call is sent with an Idempotency-Key of its own.
_CREATES = frozenset({"/api/public/create_user", "/api/public/create_group", "/api/public/create_webhook"})


@dataclass(frozen=True)
class Retry:
    """When a call is tried again: at most ``retries`` more times, waiting up to
    ``base_delay`` seconds doubled for each retry (at most ``max_delay``), all
    within ``deadline`` seconds. ``WorkspaceClient(..., retry=None)`` turns retrying off."""

    retries: int = 2
    base_delay: float = 0.25
    max_delay: float = 10.0
    deadline: float = 60.0


@dataclass(frozen=True)
class Call:
    """How an answer came: the service's ``X-Request-Id`` (quote it when reporting a
    problem; the service's log has it), how many times the call was sent, and the
    answer's ``ETag`` where it shows one user (``get_user``, ``create_user``,
    ``update_user``): the user's version, to pass as ``if_match`` so that a later
    change is made only if nobody changed the user since."""

    request_id: str | None
    attempts: int
    etag: str | None = None


class Answer:
    """What every operation's answer carries beside the contract's fields."""

    call: Call | None = None
    """How the answer came (request id, attempts); None on a model built by hand."""


_Answer = TypeVar("_Answer", bound=Answer)


def _retry_after(header: str | None) -> float | None:
    """Retry-After in seconds from now: delay-seconds or an HTTP date; None when absent or unreadable."""
    if not header:
        return None
    text = header.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())

_Client = TypeVar("_Client", bound="BaseClient")


class BaseClient:
    """A connection to one service with one API key; safe to share between threads."""

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        api_key: str | None = None,
        api_key_secret: str | None = None,
        credentials_in: CredentialsIn = "body",
        timeout: float = 30.0,
        opener: urllib.request.OpenerDirector | None = None,
        retry: Retry | None = Retry(),
    ) -> None:
        """
        :param base_url: the service's address, such as ``https://users.example.com``.
        :param api_key: the API key, sent with every operation that needs credentials.
        :param api_key_secret: its secret.
        :param credentials_in: ``"body"`` (the default) sends them as ``api_key`` and
            ``api_key_secret`` in the JSON body, as Kasm's older API and its clients do;
            ``"basic"`` sends them as HTTP Basic credentials, as Kasm's current API does;
            ``"headers"`` sends them as ``api-key`` and ``api-key-secret`` request headers.
        :param timeout: seconds to wait for each attempt's answer before giving up on it.
        :param opener: a urllib opener to send requests through (proxies, TLS settings, tests).
        :param retry: when to try a call again (see ``Retry``); None never does.
        """
        self.base_url = base_url.rstrip("/")
        self.credentials_in: CredentialsIn = credentials_in
        self.timeout = timeout
        self._api_key = api_key
        self._api_key_secret = api_key_secret
        self._opener = opener or urllib.request.build_opener()
        self.retry = retry

    @classmethod
    def from_environment(cls: type[_Client], **options: Any) -> _Client:
        """A client for WORKSPACE_URL with WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET, as the CLI reads them."""
        return cls(
            os.environ.get("WORKSPACE_URL", DEFAULT_BASE_URL),
            api_key=os.environ.get("WORKSPACE_API_KEY"),
            api_key_secret=os.environ.get("WORKSPACE_API_KEY_SECRET"),
            **options,
        )

    def __repr__(self) -> str:  # never the secret
        return f"{type(self).__name__}({self.base_url!r}, api_key={self._api_key!r})"

    def _call_model(
        self,
        read: Callable[[object], _Answer],
        method: str,
        path: str,
        body: dict[str, Any] | None,
        *,
        credentials: bool,
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> _Answer:
        """Sends one request and reads its answer into a model that carries how it came."""
        data, call = self._call_json(method, path, body, credentials=credentials, if_match=if_match, idempotency_key=idempotency_key)
        answer = read(data)
        answer.call = call
        return answer

    def _call_json(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        *,
        credentials: bool,
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[Any, Call]:
        """Sends one request and returns the answer's JSON and how it came; raises ApiError for an error status."""
        headers = {"Accept": "application/json"}
        if if_match is not None:
            headers["If-Match"] = if_match
        # One key for every attempt of this call: the service makes a create once however often it arrives.
        if idempotency_key is None and path in _CREATES:
            idempotency_key = str(uuid.uuid4())
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        data: bytes | None = None
        if body is not None:
            if credentials and self.credentials_in == "body":
                if self._api_key is not None:
                    body["api_key"] = self._api_key
                if self._api_key_secret is not None:
                    body["api_key_secret"] = self._api_key_secret
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if credentials and self.credentials_in == "basic" and self._api_key is not None:
            pair = f"{self._api_key}:{self._api_key_secret or ''}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        if credentials and self.credentials_in == "headers" and self._api_key is not None:
            headers["api-key"] = self._api_key
            headers["api-key-secret"] = self._api_key_secret or ""
        raw, call = self._send(method, path, data, headers)
        try:
            return json.loads(raw), call
        except ValueError:
            raise UnexpectedResponse(f"{method} {path}: the answer is not JSON") from None

    def _send(self, method: str, path: str, data: bytes | None, headers: dict[str, str]) -> tuple[bytes, Call]:
        started = time.monotonic()
        attempts = 0
        while True:
            attempts += 1
            request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
            remaining = started + (self.retry.deadline if self.retry else self.timeout) - time.monotonic()
            try:
                with self._opener.open(request, timeout=max(0.001, min(self.timeout, remaining))) as response:
                    content: bytes = response.read()
                    return content, Call(
                        request_id=response.headers.get("X-Request-Id"), attempts=attempts, etag=response.headers.get("ETag")
                    )
            except urllib.error.HTTPError as answer:
                error = _api_error(answer)
                error.attempts = attempts
                asked = _retry_after(answer.headers.get("Retry-After") if answer.headers else None)
                idempotent = "Idempotency-Key" in headers
                still_running = answer.code == 409 and error.body is not None and error.body.code == "idempotency_key_in_use"
                may = (idempotent and still_running) or (
                    answer.code in _RETRIED_STATUSES
                    and (idempotent or path not in _CREATES or (answer.code in _NOTHING_DONE_STATUSES and error.body is not None))
                )
                wait = self._next_wait(attempts, started, may, asked)
                if wait is None:
                    raise error from None
            except (urllib.error.URLError, socket.timeout, ConnectionError) as failure:
                reason = getattr(failure, "reason", failure)
                wait = self._next_wait(attempts, started, "Idempotency-Key" in headers or path not in _CREATES, None)
                if wait is None:
                    raise TransportError(f"{method} {self.base_url}{path}: {reason}", attempts=attempts) from None
            time.sleep(wait)

    def _next_wait(self, attempts: int, started: float, may_retry: bool, asked: float | None) -> float | None:
        """Seconds to wait before the next attempt, or None to stop."""
        retry = self.retry
        if retry is None or attempts > retry.retries or not may_retry:
            return None
        if asked is not None and asked > retry.max_delay:
            return None
        wait = asked if asked is not None else random.uniform(0, min(retry.max_delay, retry.base_delay * 2 ** (attempts - 1)))
        return wait if time.monotonic() + wait < started + retry.deadline else None


def _api_error(answer: urllib.error.HTTPError) -> ApiError:
    from .models import Error  # the generated models import this module's package

    request_id = answer.headers.get("X-Request-Id") if answer.headers else None
    raw = answer.read() if answer.fp is not None else b""
    text = raw.decode("utf-8", errors="replace")
    try:
        return ApiError(answer.code, Error.from_json(json.loads(raw)), request_id=request_id, text=text)
    except (ValueError, UnexpectedResponse):
        return ApiError(answer.code, None, request_id=request_id, text=text)
