"""The client's connection to the service, on the standard library alone.

The generated ``WorkspaceClient`` adds one method per operation to this base.
It sends what it is given and lets the service judge it: a weak password, say,
reaches the service, whose answer names every rule it broke.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import urllib.error
import urllib.request
from typing import Any, Literal, TypeVar

from .errors import ApiError, TransportError, UnexpectedResponse

DEFAULT_BASE_URL = "http://127.0.0.1:8080"

CredentialsIn = Literal["body", "basic", "headers"]

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
    ) -> None:
        """
        :param base_url: the service's address, such as ``https://users.example.com``.
        :param api_key: the API key, sent with every operation that needs credentials.
        :param api_key_secret: its secret.
        :param credentials_in: ``"body"`` (the default) sends them as ``api_key`` and
            ``api_key_secret`` in the JSON body, as Kasm's older API and its clients do;
            ``"basic"`` sends them as HTTP Basic credentials, as Kasm's current API does;
            ``"headers"`` sends them as ``api-key`` and ``api-key-secret`` request headers.
        :param timeout: seconds to wait for the service before raising TransportError.
        :param opener: a urllib opener to send requests through (proxies, TLS settings, tests).
        """
        self.base_url = base_url.rstrip("/")
        self.credentials_in: CredentialsIn = credentials_in
        self.timeout = timeout
        self._api_key = api_key
        self._api_key_secret = api_key_secret
        self._opener = opener or urllib.request.build_opener()

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

    def _call_json(self, method: str, path: str, body: dict[str, Any] | None, *, credentials: bool) -> Any:
        """Sends one request and returns the answer's JSON; raises ApiError for an error status."""
        headers = {"Accept": "application/json"}
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
        raw = self._send(method, path, data, headers)
        try:
            return json.loads(raw)
        except ValueError:
            raise UnexpectedResponse(f"{method} {path}: the answer is not JSON") from None

    def _call_text(self, method: str, path: str) -> str:
        """Sends one request and returns the answer as text."""
        return self._send(method, path, None, {}).decode("utf-8")

    def _send(self, method: str, path: str, data: bytes | None, headers: dict[str, str]) -> bytes:
        request = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                content: bytes = response.read()
                return content
        except urllib.error.HTTPError as answer:
            raise _api_error(answer) from None
        except (urllib.error.URLError, socket.timeout, ConnectionError) as failure:
            reason = getattr(failure, "reason", failure)
            raise TransportError(f"{method} {self.base_url}{path}: {reason}") from None


def _api_error(answer: urllib.error.HTTPError) -> ApiError:
    from .models import Error  # the generated models import this module's package

    request_id = answer.headers.get("X-Request-Id") if answer.headers else None
    raw = answer.read() if answer.fp is not None else b""
    text = raw.decode("utf-8", errors="replace")
    try:
        return ApiError(answer.code, Error.from_json(json.loads(raw)), request_id=request_id, text=text)
    except (ValueError, UnexpectedResponse):
        return ApiError(answer.code, None, request_id=request_id, text=text)
