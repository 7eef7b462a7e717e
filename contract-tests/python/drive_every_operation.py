"""Drives every operation of the workspace API through the generated Python SDK.

Run by contract-tests/python-sdk.test.ts against a real service, with
PYTHONPATH=generated/python and WORKSPACE_URL, WORKSPACE_API_KEY,
WORKSPACE_API_KEY_SECRET and GROUP_ID (a group that is not "All Users") set.
Prints one JSON line naming the operations that worked; any failure raises.
"""
import json
import os

import workspace_user_api
from workspace_user_api.rest import ApiException

configuration = workspace_user_api.Configuration(host=os.environ["WORKSPACE_URL"])
credentials = {
    "api_key": os.environ["WORKSPACE_API_KEY"],
    "api_key_secret": os.environ["WORKSPACE_API_KEY_SECRET"],
}
group_id = os.environ["GROUP_ID"]
done = []


def expect_error(call, status, code):
    try:
        call()
    except ApiException as error:
        body = json.loads(error.body)
        assert error.status == status, (error.status, body)
        assert body["code"] == code, body
        return body
    raise AssertionError("expected HTTP %d %s" % (status, code))


with workspace_user_api.ApiClient(configuration) as client:
    credentials_api = workspace_user_api.CredentialsApi(client)
    users = workspace_user_api.UsersApi(client)
    groups = workspace_user_api.GroupsApi(client)
    audit = workspace_user_api.AuditApi(client)

    key = credentials_api.validate_credentials(workspace_user_api.ValidateCredentialsRequest(**credentials))
    assert key.api_key == credentials["api_key"] and "users_modify" in key.permissions
    done.append("validateCredentials")

    created = users.create_user(workspace_user_api.CreateUserRequest(
        target_user=workspace_user_api.NewUser(username="Py@Example.com", first_name="Guido", password="Correct-Horse-42"),
        **credentials,
    )).user
    assert created.username == "py@example.com" and created.password_set_date is not None
    done.append("createUser")

    # Spec section 4.1: a partial update keeps the fields it does not name.
    updated = users.update_user(workspace_user_api.UpdateUserRequest(
        target_user=workspace_user_api.UserUpdate(user_id=created.user_id, last_name="van Rossum", locked=True),
        **credentials,
    )).user
    assert (updated.first_name, updated.last_name, updated.locked) == ("Guido", "van Rossum", True)
    done.append("updateUser")

    # The SDK checks the contract's password pattern itself, before sending ...
    try:
        workspace_user_api.UserUpdate(user_id=created.user_id, password="password")
        raise AssertionError("the SDK accepted a weak password")
    except ValueError:
        pass
    # ... and the service refuses one that gets past it.
    lenient = workspace_user_api.Configuration()
    lenient.client_side_validation = False
    weak = expect_error(lambda: users.update_user(workspace_user_api.UpdateUserRequest(
        target_user=workspace_user_api.UserUpdate(user_id=created.user_id, password="password", local_vars_configuration=lenient),
        local_vars_configuration=lenient,
        **credentials,
    )), 400, "weak_password")
    assert "uppercase" in weak["error_message"]
    expect_error(lambda: users.update_user(workspace_user_api.UpdateUserRequest(
        target_user=workspace_user_api.UserUpdate(user_id="0" * 32, first_name="x"),
        **credentials,
    )), 404, "user_not_found")
    expect_error(lambda: users.update_user(workspace_user_api.UpdateUserRequest(
        target_user=workspace_user_api.UserUpdate(user_id=created.user_id),
        api_key=credentials["api_key"], api_key_secret="wrong",
    )), 401, "invalid_credentials")

    found = users.get_user(workspace_user_api.GetUserRequest(
        target_user=workspace_user_api.UserRef(user_id=created.user_id), **credentials,
    )).user
    assert found.user_id == created.user_id
    by_name = users.get_user(workspace_user_api.GetUserRequest(
        target_user=workspace_user_api.UsernameRef(username="py@example.com"), **credentials,
    )).user
    assert by_name.user_id == created.user_id
    done.append("getUser")

    page = users.get_users(workspace_user_api.GetUsersRequest(page=1, page_size=50, sort_by="created", **credentials))
    assert page.total == 1 and page.users[0].user_id == created.user_id
    # With nothing but credentials, every user, as Kasm's get_users answers (no page, no page_size).
    everyone = users.get_users(workspace_user_api.GetUsersRequest(**credentials))
    assert everyone.total == 1 and everyone.page_size is None and everyone.next_cursor is None, everyone
    done.append("getUsers")

    # The same key by HTTP Basic: the SDK's Configuration(username, password), with no credentials in the body.
    by_basic = workspace_user_api.Configuration(host=os.environ["WORKSPACE_URL"], username=credentials["api_key"], password=credentials["api_key_secret"])
    with workspace_user_api.ApiClient(by_basic) as basic_client:
        listed = workspace_user_api.UsersApi(basic_client).get_users(workspace_user_api.GetUsersRequest())
        assert [user.user_id for user in listed.users] == [created.user_id], listed

    names = [group.name for group in groups.get_groups(workspace_user_api.GetGroupsRequest(**credentials)).groups]
    assert "All Users" in names
    done.append("getGroups")

    membership = workspace_user_api.UserGroupRequest(
        target_user=workspace_user_api.UserRef(user_id=created.user_id),
        target_group=workspace_user_api.GroupRef(group_id=group_id),
        **credentials,
    )
    groups.add_user_group(membership)
    expect_error(lambda: groups.add_user_group(membership), 409, "already_member")
    done.append("addUserGroup")
    groups.remove_user_group(membership)
    done.append("removeUserGroup")

    users.delete_user(workspace_user_api.DeleteUserRequest(
        target_user=workspace_user_api.UserRef(user_id=created.user_id), **credentials,
    ))
    expect_error(lambda: users.delete_user(workspace_user_api.DeleteUserRequest(
        target_user=workspace_user_api.UserRef(user_id=created.user_id), **credentials,
    )), 404, "user_not_found")
    done.append("deleteUser")

    # The user's whole history, newest first, with field names and never a value.
    history = audit.get_audit_events(workspace_user_api.GetAuditEventsRequest(target_user_id=created.user_id, page_size=50, **credentials))
    assert [event.operation for event in history.events][0] == "deleteUser", history
    assert [event.operation for event in history.events][-1] == "createUser", history
    assert history.events[-1].actor == credentials["api_key"] and history.next_cursor is None
    assert all("password" not in str(event.to_dict()).lower() or "password" in event.changed_fields for event in history.events)
    expect_error(lambda: audit.get_audit_events(workspace_user_api.GetAuditEventsRequest(cursor="bm90LWEtY3Vyc29y", **credentials)), 400, "invalid_cursor")
    done.append("getAuditEvents")

print(json.dumps({"operations": done}))
