"""The Kasm-client compatibility suite: what a real Kasm integration does, end to end.

Reads WORKSPACE_URL, WORKSPACE_API_KEY, WORKSPACE_API_KEY_SECRET and GROUP_NAME
(a group that exists), and USERS (how many users to create, default 250).
Prints one JSON line with what it did; exits non-zero at the first surprise.
"""

from __future__ import annotations

import json
import os
import sys

from kasm_client import KasmClient, KasmError


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def main() -> None:
    url = os.environ["WORKSPACE_URL"]
    key, secret = os.environ["WORKSPACE_API_KEY"], os.environ["WORKSPACE_API_KEY_SECRET"]
    count = int(os.environ.get("USERS", "250"))
    body_client = KasmClient(url, key, secret)
    basic_client = KasmClient(url, key, secret, basic_auth=True)
    header_client = KasmClient(url, key, secret, key_headers=True)
    done: list[str] = []

    # 1. Validate the key, every way.
    for client in (body_client, basic_client, header_client):
        expect(client.call("validate_credentials")["api_key"] == key, "validate_credentials names the key")
    try:
        KasmClient(url, key, "wrong-secret", basic_auth=True).call("validate_credentials")
        expect(False, "a wrong secret by Basic auth was accepted")
    except KasmError as error:
        expect(error.status == 401 and error.body["error_message"] == "Invalid API key or secret", f"wrong secret: {error}")
    try:
        KasmClient(url, key, "wrong-secret", key_headers=True).call("validate_credentials")
        expect(False, "a wrong secret in the api-key headers was accepted")
    except KasmError as error:
        expect(error.status == 401 and error.body["error_message"] == "Invalid API key or secret", f"wrong secret: {error}")
    done.append("validate")

    # 2. Create users the way sync jobs do: look first, create what is missing.
    usernames = [f"kasm{index:04d}@example.com" for index in range(count)]
    listed = {user["username"] for user in body_client.get_users()}
    for username in usernames:
        if username not in listed:
            body_client.call("create_user", target_user={"username": username, "first_name": "Kasm", "last_name": f"User {username[4:8]}"})
    done.append(f"created {count}")

    # 3. One get_users with credentials only lists every one of them, every way.
    for client in (body_client, basic_client, header_client):
        everyone = {user["username"]: user for user in client.get_users()}
        missing = [username for username in usernames if username not in everyone]
        expect(not missing, f"get_users left out {len(missing)} users, e.g. {missing[:3]}")
    # Running the sync again creates nothing (no 409 from a user the list did not show).
    for username in usernames:
        body_client.ensure_user(username)
    done.append("found every user")

    # 4. Update one found by name: names, phone, locked, a strong password; then a weak one.
    target = body_client.find_user(usernames[-1])
    expect(target is not None, "the last user is found by username")
    assert target is not None
    updated = body_client.call(
        "update_user",
        target_user={"user_id": target["user_id"], "first_name": "Ada", "last_name": "Lovelace", "phone": "555-010-4477", "locked": True, "password": "Correct-Horse-42"},
    )["user"]
    expect((updated["first_name"], updated["last_name"], updated["phone"], updated["locked"]) == ("Ada", "Lovelace", "555-010-4477", True), f"update: {updated}")
    expect(updated["password_set_date"] is not None, "the password was set")
    try:
        basic_client.call("update_user", target_user={"user_id": target["user_id"], "password": "password1"})
        expect(False, "a weak password was accepted")
    except KasmError as error:
        expect(error.status == 400 and error.body["code"] == "weak_password", f"weak password: {error}")
        expect("uppercase" in error.body["error_message"], f"the message names the rule: {error.body['error_message']}")
    done.append("updated")

    # 5. A group found by name: add the user, then remove them.
    group = basic_client.find_group(os.environ["GROUP_NAME"])
    expect(group is not None, "the group is found by name")
    assert group is not None
    pair = {"target_user": {"user_id": target["user_id"]}, "target_group": {"group_id": group["group_id"]}}
    body_client.call("add_user_group", **pair)
    names = [member["name"] for member in body_client.call("get_user", target_user={"user_id": target["user_id"]})["user"]["groups"]]
    expect(group["name"] in names, f"the user is in the group: {names}")
    basic_client.call("remove_user_group", **pair)
    done.append("group added and removed")

    # 6. Delete every user the suite made, half each way; none is left.
    everyone = {user["username"]: user["user_id"] for user in body_client.get_users()}
    for index, username in enumerate(usernames):
        client = body_client if index % 2 == 0 else basic_client
        client.call("delete_user", target_user={"user_id": everyone[username]})
    remaining = {user["username"] for user in basic_client.get_users()}
    expect(not remaining.intersection(usernames), "every user made was deleted")
    done.append("deleted")

    print(json.dumps({"done": done, "users": count}))


if __name__ == "__main__":
    try:
        main()
    except (AssertionError, KasmError) as failure:
        print(f"compatibility suite failed: {failure}", file=sys.stderr)
        sys.exit(1)
