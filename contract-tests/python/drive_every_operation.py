"""Drives every operation of the workspace API through the Python SDK, and its errors.

Run by contract-tests/python-sdk.system.test.ts against a real service, with
PYTHONPATH=generated/python and WORKSPACE_URL, WORKSPACE_API_KEY,
WORKSPACE_API_KEY_SECRET (a key with every permission), LIMITED_API_KEY and
LIMITED_API_KEY_SECRET (a key with none), GROUP_ID (a group that is not
"All Users") and CLOSED_URL (an address where nothing listens) set. Prints one
JSON line naming the operations that worked and the error codes seen; any
failure raises. It is typed throughout: the same test runs `mypy --strict` on
it, as an integrator's code would be checked.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from workspace_user_api import (
    ApiError,
    ApiKeyRef,
    NewApiKey,
    GroupRef,
    NewUser,
    TransportError,
    UnexpectedResponse,
    GroupUpdate,
    NewGroup,
    NewWebhook,
    WebhookRef,
    WebhookUpdate,
    User,
    UserAttributesUpdate,
    UsernameRef,
    UserRef,
    UserUpdate,
    WorkspaceClient,
)

client = WorkspaceClient.from_environment()
limited = WorkspaceClient(
    os.environ["WORKSPACE_URL"],
    api_key=os.environ["LIMITED_API_KEY"],
    api_key_secret=os.environ["LIMITED_API_KEY_SECRET"],
)
group_id = os.environ["GROUP_ID"]
done: list[str] = []
codes: list[str] = []


def expect_error(call: Callable[[], Any], status: int, code: str) -> ApiError:
    """The call must fail with the service's own error body: its status, code and message."""
    try:
        call()
    except ApiError as error:
        assert (error.status, error.code) == (status, code), (error.status, error.code, error.error_message)
        assert error.body is not None and error.error_message == error.body.error_message
        assert error.request_id, "an error from the service carries its X-Request-Id"
        # RFC 9457's members beside Kasm's: the type names the code's section of the error reference.
        assert error.type is not None and error.type.endswith(f"/docs/errors#{code}"), error.type
        assert error.title and error.detail == error.error_message, (error.title, error.detail)
        codes.append(code)
        return error
    raise AssertionError(f"expected HTTP {status} {code}")


key = client.validate_credentials()
assert key.api_key == os.environ["WORKSPACE_API_KEY"] and "users_modify" in key.permissions and key.expires is None
expect_error(
    lambda: WorkspaceClient(os.environ["WORKSPACE_URL"], api_key=key.api_key, api_key_secret="wrong").validate_credentials(),
    401,
    "invalid_credentials",
)
done.append("validateCredentials")

creation = client.create_user(target_user=NewUser(username="Py@Example.com", first_name="Guido", password="Correct-Horse-42"))
created: User = creation.user
# The answer carries the service's request id (a UUID) and the one attempt it took.
assert creation.call is not None and creation.call.attempts == 1, creation.call
assert re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", creation.call.request_id or ""), creation.call
assert created.username == "py@example.com" and isinstance(created.created, datetime)
assert created.password_set_date is not None and created.last_session is None
expect_error(lambda: client.create_user(target_user=NewUser(username="py@example.com")), 409, "username_taken")
expect_error(lambda: limited.create_user(target_user=NewUser(username="nobody")), 403, "permission_denied")
done.append("createUser")

# A partial update keeps the fields it does not name (docs/spec §4.1).
updated = client.update_user(target_user=UserUpdate(user_id=created.user_id, last_name="van Rossum", locked=True)).user
assert (updated.first_name, updated.last_name, updated.locked) == ("Guido", "van Rossum", True)
# The SDK does not judge passwords: a weak one reaches the service, whose message names every rule it broke.
weak = expect_error(
    lambda: client.update_user(target_user=UserUpdate(user_id=created.user_id, password="password")), 400, "weak_password"
)
assert "uppercase" in weak.error_message and "digit" in weak.error_message, weak.error_message
expect_error(lambda: client.update_user(target_user=UserUpdate(user_id="0" * 32, first_name="x")), 404, "user_not_found")
# Nor does it check patterns: the service answers an invalid request with every problem in it.
invalid = expect_error(lambda: client.update_user(target_user=UserUpdate(user_id="not-an-id")), 400, "invalid_request")
assert [detail.path for detail in invalid.errors] == ["/body/target_user/user_id"], invalid.errors
# A change made only at the version read: the answer's etag, then 412 once someone else changed the user.
looked_up = client.get_user(target_user=UserRef(user_id=created.user_id))
assert looked_up.call is not None and re.fullmatch(r'W/"[0-9]+"', looked_up.call.etag or ""), looked_up.call
at_version = client.update_user(target_user=UserUpdate(user_id=created.user_id, first_name="Guido"), if_match=looked_up.call.etag)
assert at_version.call is not None and at_version.call.etag != looked_up.call.etag, at_version.call
stale = looked_up.call.etag
expect_error(lambda: client.update_user(target_user=UserUpdate(user_id=created.user_id), if_match=stale), 412, "version_mismatch")
expect_error(lambda: client.delete_user(target_user=UserRef(user_id=created.user_id), if_match=stale), 412, "version_mismatch")
done.append("updateUser")

assert client.get_user(target_user=UserRef(user_id=created.user_id)).user.user_id == created.user_id
assert client.get_user(target_user=UsernameRef(username=" PY@example.com ")).user.user_id == created.user_id
done.append("getUser")

# Pages count from 0, as Kasm's do.
page = client.get_users(page=0, page_size=50, sort_by="created")
assert page.total == 1 and page.users[0].user_id == created.user_id and page.page == 0
# With nothing but credentials, every user, as Kasm's get_users answers (no page, no page_size).
everyone = client.get_users()
assert everyone.total == 1 and everyone.page_size is None and everyone.next_cursor is None, everyone
expect_error(lambda: client.get_users(page=1, cursor="abc"), 400, "invalid_request")
# Every user a page at a time by cursor, and a plain dict where a model is taken.
extra = client.create_user(target_user={"username": "dict@example.com", "first_name": "Dict"}).user
assert extra.first_name == "Dict"
assert [user.username for user in client.each_user(page_size=1, sort_by="username")] == sorted([created.username, "dict@example.com"])
assert client.delete_user(target_user={"user_id": extra.user_id}).attempts == 1
done.append("getUsers")

# The same key by HTTP Basic, with no credentials in the body.
by_basic = WorkspaceClient.from_environment(credentials_in="basic")
assert [user.user_id for user in by_basic.get_users().users] == [created.user_id]
# And in the api-key and api-key-secret headers.
by_headers = WorkspaceClient.from_environment(credentials_in="headers")
assert [user.user_id for user in by_headers.get_users().users] == [created.user_id]

names = [group.name for group in client.get_groups().groups]
assert "All Users" in names
done.append("getGroups")

member, team = UserRef(user_id=created.user_id), GroupRef(group_id=group_id)
client.add_user_group(target_user=member, target_group=team)
expect_error(lambda: client.add_user_group(target_user=member, target_group=team), 409, "already_member")
expect_error(lambda: client.add_user_group(target_user=member, target_group=GroupRef(group_id="f" * 32)), 404, "group_not_found")
assert [group.group_id for group in client.get_user(target_user=member).user.groups if group.group_id == group_id]
done.append("addUserGroup")
client.remove_user_group(target_user=member, target_group=team)
expect_error(lambda: client.remove_user_group(target_user=member, target_group=team), 409, "not_member")
done.append("removeUserGroup")

# Kasm's user attributes, logout_user, and the group lifecycle.
attributes = client.update_user_attributes(
    target_user_attributes=UserAttributesUpdate(user_id=created.user_id, theme="Dark", preferred_timezone="Europe/Berlin")
).user_attributes
assert (attributes.theme, attributes.preferred_timezone, attributes.chat_sfx) == ("Dark", "Europe/Berlin", True), attributes
done.append("updateUserAttributes")
assert client.get_attributes(target_user=member).user_attributes == attributes
done.append("getAttributes")
expect_error(
    lambda: client.update_user_attributes(target_user_attributes=UserAttributesUpdate(user_id=created.user_id, preferred_language="no such")),
    400,
    "invalid_attribute",
)
client.logout_user(target_user=member)
assert client.get_user(target_user=member).user.sessions_valid_from is not None
done.append("logoutUser")
design = client.create_group(target_group=NewGroup(name="Design", priority=20)).group
assert (design.name, design.priority, design.is_system) == ("Design", 20, False), design
expect_error(lambda: client.create_group(target_group=NewGroup(name="Design")), 409, "group_name_taken")
done.append("createGroup")
renamed = client.update_group(target_group=GroupUpdate(group_id=design.group_id, name="Product Design")).group
assert renamed.name == "Product Design" and renamed.priority == 20, renamed
done.append("updateGroup")
client.delete_group(target_group=GroupRef(group_id=design.group_id))
expect_error(lambda: client.delete_group(target_group=GroupRef(group_id=design.group_id)), 404, "group_not_found")
done.append("deleteGroup")

client.delete_user(target_user=member)
expect_error(lambda: client.delete_user(target_user=member), 404, "user_not_found")
done.append("deleteUser")

# The user's whole history, newest first, naming fields and never a value.
history = client.get_audit_events(target_user_id=created.user_id, page_size=50)
operations = [event.operation for event in history.events]
assert operations[0] == "deleteUser" and operations[-1] == "createUser", operations
assert history.events[-1].actor == key.api_key and history.next_cursor is None
assert "password" in history.events[-1].changed_fields
since = datetime.now(timezone.utc) + timedelta(days=1)
assert client.get_audit_events(since=since).events == []
expect_error(lambda: client.get_audit_events(cursor="bm90LWEtY3Vyc29y"), 400, "invalid_cursor")
expect_error(lambda: limited.get_audit_events(), 403, "permission_denied")
done.append("getAuditEvents")

# The change feed: every change in the order of commit, the user's among them; then followed on.
feed = client.get_events(limit=1000)
while len(feed.events) == 1000:
    feed = client.get_events(after=feed.next_cursor, limit=1000)
created_events = [event for event in client.get_events(types=["user.*"], resource_id=created.user_id, limit=1000).events]
assert [event.type for event in created_events][0] == "user.created", created_events
assert created_events[0].data.resource.id == created.user_id and created_events[0].data.actor.type == "api_key"
expect_error(lambda: client.get_events(after="bm90LWEtY3Vyc29y"), 400, "invalid_cursor")
expect_error(lambda: client.get_events(after="MS4xMDAw"), 410, "cursor_expired")
expect_error(lambda: limited.get_events(), 403, "permission_denied")
followed = client.create_user(target_user=NewUser(username="followed@example.com")).user
cursors: list[str] = []
for event in client.each_event(after=feed.next_cursor, types=["user.created"], wait_seconds=5, on_cursor=cursors.append):
    assert event.type == "user.created" and event.data.resource.id == followed.user_id, event
    break
client.delete_user(target_user=UserRef(user_id=followed.user_id))
done.append("getEvents")

# Webhooks: made (its secret shown once), listed, changed, rotated, pinged, delivered again, deleted.
made = client.create_webhook(target_webhook=NewWebhook(url="https://93.184.216.34/hook", event_types=["user.*"], description="py"))
assert made.secret.startswith("whsec_") and made.webhook.event_types == ["user.*"], made
done.append("createWebhook")
assert [hook.webhook_id for hook in client.get_webhooks().webhooks] == [made.webhook.webhook_id]
done.append("getWebhooks")
hook = WebhookRef(webhook_id=made.webhook.webhook_id)
assert client.update_webhook(target_webhook=WebhookUpdate(webhook_id=made.webhook.webhook_id, enabled=False)).webhook.enabled is False
done.append("updateWebhook")
assert client.rotate_webhook_secret(target_webhook=hook).secret != made.secret
done.append("rotateWebhookSecret")
assert client.ping_webhook(target_webhook=hook).queued == 1
done.append("pingWebhook")
assert client.get_webhook_deliveries(target_webhook=hook, limit=5).deliveries == []
done.append("getWebhookDeliveries")
assert client.redeliver_webhook(target_webhook=hook, event_id="none-such").queued == 0
done.append("redeliverWebhook")
client.delete_webhook(target_webhook=hook)
expect_error(lambda: client.delete_webhook(target_webhook=hook), 404, "webhook_not_found")
expect_error(lambda: client.create_webhook(target_webhook=NewWebhook(url="http://169.254.169.254/")), 400, "invalid_webhook_url")
done.append("deleteWebhook")

# API keys: made (its secret shown once), working with what it was granted, listed, revoked.
expiry = datetime.now(timezone.utc) + timedelta(days=1)
issued = client.create_api_key(target_api_key=NewApiKey(name="py-sdk", permissions=["users_view"], expires=expiry))
assert issued.api_key.permissions == ["users_view"] and issued.scim_token == f"{issued.api_key.api_key}.{issued.secret}", issued
issued_client = WorkspaceClient(os.environ["WORKSPACE_URL"], api_key=issued.api_key.api_key, api_key_secret=issued.secret)
assert issued_client.validate_credentials().permissions == ["users_view"]
done.append("createApiKey")
listed = [key for key in client.get_api_keys().api_keys if key.api_key == issued.api_key.api_key]
assert len(listed) == 1 and listed[0].revoked is None, listed
done.append("getApiKeys")
issued_ref = ApiKeyRef(api_key=issued.api_key.api_key)
assert client.revoke_api_key(target_api_key=issued_ref).api_key.revoked is not None
expect_error(lambda: client.revoke_api_key(target_api_key=issued_ref), 404, "api_key_not_found")
expect_error(lambda: issued_client.validate_credentials(), 401, "invalid_credentials")
done.append("revokeApiKey")

index = client.get_service_index()
assert index.links.api_reference == "/docs" and index.links.scim == "/scim/v2", index
done.append("getServiceIndex")
assert client.get_health().status == "ok"
done.append("getHealth")
assert client.get_readiness().status == "ready"
done.append("getReadiness")
# The API reference is a page for browsers: the SDK has no method for it.
assert not hasattr(client, "get_api_reference")
document = client.get_open_api_document()
assert str(document["openapi"]).startswith("3.1"), document["openapi"]
done.append("getOpenApiDocument")

# No answer at all is a TransportError, never an ApiError.
try:
    WorkspaceClient(os.environ["CLOSED_URL"], timeout=5).get_health()
    raise AssertionError("a closed port answered")
except TransportError:
    pass
# Models read back what they write, and an answer of the wrong shape names the field.
assert User.from_json(created.to_json()) == created
try:
    User.from_json({**created.to_json(), "locked": "yes"})
    raise AssertionError("a string was read as a boolean")
except UnexpectedResponse as error:
    assert "User.locked" in str(error), error
# The client's repr never shows the secret.
assert os.environ["WORKSPACE_API_KEY_SECRET"] not in repr(client)

print(json.dumps({"operations": done, "codes": sorted(set(codes))}))
