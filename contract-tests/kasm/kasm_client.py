"""A Kasm Workspaces integration, written the way real ones are.

Scripts that manage Kasm users from Python call ``/api/public/*`` with a JSON
body holding ``api_key`` and ``api_key_secret``, make one ``get_users`` call
with nothing but credentials, and search its ``users`` list by username. They
read ``error_message`` when something fails. This module does exactly that,
with nothing but the standard library, so that the compatibility suite
(``compatibility.py``) checks the service against client code that relies on
Kasm's defaults rather than on this project's contract.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from typing import Any


class KasmError(Exception):
    """A failed call: the HTTP status and the service's ``error_message``."""

    def __init__(self, status: int, body: dict[str, Any]):
        super().__init__(f"{status}: {body.get('error_message')}")
        self.status = status
        self.body = body


class KasmClient:
    """Credentials in the body (Kasm's older API), by HTTP Basic (its current Developer API), or in api-key headers."""

    def __init__(self, base_url: str, api_key: str, api_key_secret: str, basic_auth: bool = False, key_headers: bool = False):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.api_key_secret = api_key_secret
        self.basic_auth = basic_auth
        self.key_headers = key_headers

    def call(self, operation: str, **fields: Any) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        body: dict[str, Any] = dict(fields)
        if self.basic_auth:
            token = base64.b64encode(f"{self.api_key}:{self.api_key_secret}".encode()).decode()
            headers["Authorization"] = f"Basic {token}"
        elif self.key_headers:
            headers.update({"api-key": self.api_key, "api-key-secret": self.api_key_secret})
        else:
            body.update(api_key=self.api_key, api_key_secret=self.api_key_secret)
        request = urllib.request.Request(
            f"{self.base_url}/api/public/{operation}", data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            raise KasmError(error.code, json.loads(error.read() or b"{}")) from None

    # What integrations build on those calls.

    def get_users(self) -> list[dict[str, Any]]:
        """Every user: one call, credentials only, as Kasm answers it."""
        return self.call("get_users")["users"]

    def find_user(self, username: str) -> dict[str, Any] | None:
        return next((user for user in self.get_users() if user["username"] == username), None)

    def find_group(self, name: str) -> dict[str, Any] | None:
        return next((group for group in self.call("get_groups")["groups"] if group["name"] == name), None)

    def ensure_user(self, username: str, **fields: Any) -> dict[str, Any]:
        """Create the user unless the list already has it: the pattern that broke on a truncated list."""
        existing = self.find_user(username)
        if existing:
            return existing
        return self.call("create_user", target_user={"username": username, **fields})["user"]
