"""The Python SDK's retries against a fake server that answers as a busy or broken service would.

Run by contract-tests/python-sdk.system.test.ts with PYTHONPATH=generated/python;
each case scripts the answers, one per request. Prints "ok" when every case
passed; any failure raises.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable

from workspace_user_api import ApiError, Call, NewUser, Retry, UserRef, WorkspaceClient

Reply = Callable[[http.server.BaseHTTPRequestHandler], None]
USER = {
    "user_id": "a" * 32,
    "username": "ada@example.com",
    "first_name": "",
    "last_name": "",
    "phone": "",
    "organization": "",
    "locked": False,
    "disabled": False,
    "realm": "local",
    "groups": [],
    "created": "2026-11-24T10:00:00.000Z",
    "password_set_date": None,
    "last_session": None,
    "sessions_valid_from": None,
}


def answer(status: int, body: object, headers: dict[str, str] | None = None) -> Reply:
    def reply(handler: http.server.BaseHTTPRequestHandler) -> None:
        text = json.dumps(body).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(text)))
        handler.send_header("X-Request-Id", f"request-{status}")
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(text)

    return reply


def busy(retry_after: str) -> Reply:
    return answer(503, {"error_message": "Database unavailable", "code": "unavailable"}, {"Retry-After": retry_after})


def drop(handler: http.server.BaseHTTPRequestHandler) -> None:
    handler.close_connection = True
    handler.connection.close()


script: list[Reply] = []
arrived: list[float] = []
# The Idempotency-Key each request came with.
keys: list[str | None] = []


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        arrived.append(time.monotonic())
        keys.append(self.headers.get("Idempotency-Key"))
        (script.pop(0) if script else answer(500, {"error_message": "unscripted", "code": "internal_error"}))(self)

    def log_message(self, format: str, *args: object) -> None:
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
BASE_URL = f"http://127.0.0.1:{server.server_address[1]}"


def answering(*replies: Reply) -> None:
    script[:] = list(replies)
    arrived.clear()
    keys.clear()


def client(retry: Retry | None = Retry()) -> WorkspaceClient:
    return WorkspaceClient(BASE_URL, api_key="key", api_key_secret="secret", retry=retry)


# 503 with Retry-After: 1, then 200: the call succeeds on the second attempt, at least a second later.
answering(busy("1"), answer(200, {"user": USER}))
found = client().get_user(target_user=UserRef(user_id="a" * 32))
assert found.user.username == "ada@example.com"
assert len(arrived) == 2 and arrived[1] - arrived[0] >= 1.0, arrived
# The answer says how it came: the request id of the answer that succeeded, after two attempts.
assert found.call == Call(request_id="request-200", attempts=2), found.call

# An operation that answers nothing returns how it came.
answering(answer(200, {}))
assert client().delete_user(target_user={"user_id": "a" * 32}) == Call(request_id="request-200", attempts=1)

# A 400 is never retried.
answering(answer(400, {"error_message": "Invalid request", "code": "invalid_request"}), answer(200, {"user": USER}))
try:
    client().update_user(target_user={"user_id": "a" * 32, "first_name": "Ada"})
    raise AssertionError("the 400 was not raised")
except ApiError as error:
    assert (error.code, error.attempts, error.request_id) == ("invalid_request", 1, "request-400"), error
assert len(arrived) == 1

# create_user is retried after a dropped connection under the same Idempotency-Key: the service,
# which made the user with the first attempt, answers the second with the first answer.
made: set[str] = set()


def service(handler: http.server.BaseHTTPRequestHandler) -> None:
    key = handler.headers.get("Idempotency-Key") or ""
    replayed = key in made
    made.add(key)
    if not replayed:
        return drop(handler)
    answer(200, {"user": USER}, {"Idempotent-Replayed": "true"})(handler)


answering(service, service)
created = client(Retry(base_delay=0.01)).create_user(target_user=NewUser(username="ada@example.com"))
assert created.user.user_id == USER["user_id"] and created.call is not None and created.call.attempts == 2, created.call
assert len(made) == 1 and keys[0] == keys[1] and len(keys[0] or "") == 36, keys

# Each create call has a key of its own; a key given is sent; a read has none; a retry
# that arrives while the first attempt still runs (409 idempotency_key_in_use) is tried again.
answering(
    answer(200, {"user": USER}),
    answer(409, {"error_message": "still running", "code": "idempotency_key_in_use"}),
    answer(200, {"user": USER}),
    answer(200, {"user": USER}),
    answer(200, {"user": USER}),
)
client().create_user(target_user={"username": "ada@example.com"})
assert client(Retry(base_delay=0.01)).create_user(target_user={"username": "ada@example.com"}).call.attempts == 2  # type: ignore[union-attr]
client().update_user(target_user={"user_id": "a" * 32, "first_name": "Ada"}, idempotency_key="job-42-update")
client().get_user(target_user={"user_id": "a" * 32})
assert keys[0] != keys[1] and keys[1] == keys[2], keys
assert keys[3:] == ["job-42-update", None], keys

# A refusal under a key is not retried.
answering(answer(409, {"error_message": "taken", "code": "username_taken"}), answer(200, {"user": USER}))
try:
    client().create_user(target_user=NewUser(username="ada@example.com"))
    raise AssertionError("the 409 was not raised")
except ApiError as error:
    assert (error.code, error.attempts) == ("username_taken", 1), error
assert len(arrived) == 1

# The deadline stops retries: a second wait of a second would end past it.
answering(busy("1"), busy("1"), busy("1"))
started = time.monotonic()
try:
    client(Retry(retries=10, deadline=1.5)).get_user(target_user=UserRef(user_id="a" * 32))
    raise AssertionError("the 503 was not raised")
except ApiError as error:
    assert (error.status, error.attempts) == (503, 2), (error.status, error.attempts)
assert time.monotonic() - started < 1.5

# Off: one attempt.
answering(busy("0"), answer(200, {"user": USER}))
try:
    client(None).get_user(target_user={"user_id": "a" * 32})
    raise AssertionError("the 503 was not raised")
except ApiError as error:
    assert error.attempts == 1
server.shutdown()
print("ok")
