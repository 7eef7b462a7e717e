"""Requests as real, third-party Kasm clients write them, one case per shape.

Each case replays a request the way a public client builds it (read in its code):
Codoc-os/pykasm (Python), SiM22/terraform-provider-kasm (Go), and the MCP servers
and scripts that call the same operations. They rely on Kasm's tolerance (nulls,
unknown keys, empty passwords, pages from 0, dashed ids, both ids) and on the user
operations beyond the lifecycle (attributes, logout, group lifecycle).

Reads WORKSPACE_URL, WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET. Prints one JSON
line naming the cases that passed; exits non-zero at the first surprise.
"""

from __future__ import annotations

import json
import os
import uuid

from kasm_client import KasmClient, KasmError


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def refused(call, status: int, code: str) -> dict:
    try:
        call()
    except KasmError as error:
        expect(error.status == status and error.body.get("code") == code, f"expected {status} {code}, got {error}")
        return error.body
    raise AssertionError(f"expected {status} {code}, got 200")


def main() -> None:
    client = KasmClient(os.environ["WORKSPACE_URL"], os.environ["WORKSPACE_API_KEY"], os.environ["WORKSPACE_API_KEY_SECRET"])
    header_client = KasmClient(client.base_url, client.api_key, client.api_key_secret, key_headers=True)
    run = uuid.uuid4().hex[:8]
    passed: list[str] = []

    # pykasm's UserSyncClient.create: every optional field present, None when not given.
    user = client.call(
        "create_user",
        target_user={
            "username": f"pykasm-{run}@example.com",
            "password": "Correct-Horse-42",
            "first_name": None,
            "last_name": None,
            "phone": None,
            "organization": None,
            "locked": False,
            "disabled": False,
        },
    )["user"]
    expect((user["first_name"], user["phone"]) == ("", ""), f"null as not given: {user}")
    passed.append("create_user with nulls")

    # The Terraform provider's user resource: authorized_images and attributes beside the profile.
    terraform_user = client.call(
        "create_user",
        target_user={
            "username": f"terraform-{run}@example.com",
            "first_name": "Terra",
            "last_name": "Form",
            "password": "Correct-Horse-42",
            "locked": False,
            "disabled": False,
            "authorized_images": ["0123456789abcdef0123456789abcdef"],
        },
    )["user"]
    expect("authorized_images" not in terraform_user, "an unknown key is not echoed")
    passed.append("create_user with unknown keys")

    # A known field the service sets keeps its 400: tolerance is no mass assignment.
    refused(lambda: client.call("update_user", target_user={"user_id": user["user_id"], "realm": "ldap"}), 400, "invalid_request")
    passed.append("read-only field refused")

    # Update with an empty password beside other changes, and a top-level group_id beside target_user.
    updated = client.call(
        "update_user",
        target_user={"user_id": user["user_id"], "first_name": "Ada", "password": ""},
        group_id="0123456789abcdef0123456789abcdef",
    )["user"]
    expect(updated["first_name"] == "Ada" and updated["password_set_date"] == user["password_set_date"], f"empty password kept: {updated}")
    passed.append("update_user with empty password")

    # get_user as four clients send it: both ids (user_id wins), an empty one, a null one.
    both = client.call("get_user", target_user={"user_id": user["user_id"], "username": terraform_user["username"]})["user"]
    expect(both["user_id"] == user["user_id"], "user_id wins over username")
    by_name = client.call("get_user", target_user={"user_id": "", "username": user["username"]})["user"]
    expect(by_name["user_id"] == user["user_id"], "an empty user_id counts as absent")
    by_name = client.call("get_user", target_user={"user_id": None, "username": user["username"]})["user"]
    expect(by_name["user_id"] == user["user_id"], "a null user_id counts as absent")
    passed.append("get_user with both ids")

    # A dashed, upper-case id finds the same user; answers give 32 lowercase hex digits.
    dashed = str(uuid.UUID(user["user_id"])).upper()
    expect(client.call("get_user", target_user={"user_id": dashed})["user"]["user_id"] == user["user_id"], "dashed id")
    passed.append("dashed user_id")

    # The Terraform provider's get_users: page 0 first, with anonymous and anonymous_only.
    first = client.call("get_users", page=0, page_size=1, sort_by="username", sort_direction="asc", anonymous=False, anonymous_only=False)
    second = client.call("get_users", page=1, page_size=1, sort_by="username", sort_direction="asc", anonymous=False, anonymous_only=False)
    everyone = sorted(entry["username"] for entry in client.get_users())
    expect([entry["username"] for entry in first["users"]] == everyone[:1], "page 0 is the first page")
    expect([entry["username"] for entry in second["users"]] == everyone[1:2], "page 1 is the second page")
    passed.append("get_users from page 0")

    # Credentials in api-key / api-key-secret headers.
    expect(header_client.call("get_user", target_user={"user_id": user["user_id"]})["user"]["username"] == user["username"], "header credentials")
    passed.append("api-key headers")

    # pykasm's Attribute.save: every attribute, target_user_attributes; then Attribute.get.
    saved = client.call(
        "update_user_attributes",
        target_user_attributes={
            "user_id": user["user_id"],
            "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ada@example.com",
            "show_tips": True,
            "theme": "Dark",
            "preferred_language": "en-GB",
            "preferred_timezone": "Europe/London",
            "toggle_control_panel": False,
            "default_image": None,
            "auto_login_kasm": None,
        },
    )
    got = client.call("get_attributes", target_user={"user_id": user["user_id"]})["user_attributes"]
    expect(got == saved["user_attributes"], "get_attributes answers what update_user_attributes stored")
    expect((got["theme"], got["show_tips"], got["preferred_timezone"]) == ("Dark", True, "Europe/London"), f"attributes: {got}")
    expect(isinstance(got["user_attributes_id"], str) and got["chat_sfx"] is True, f"Kasm's fields: {got}")
    refused(
        lambda: client.call("update_user_attributes", target_user_attributes={"user_id": user["user_id"], "preferred_timezone": "Mars/Base"}),
        400,
        "invalid_attribute",
    )
    passed.append("attributes")

    # logout_user as pykasm and the Terraform provider send it.
    client.call("logout_user", target_user={"user_id": user["user_id"]})
    after = client.call("get_user", target_user={"user_id": user["user_id"]})["user"]
    expect(after["sessions_valid_from"] is not None, "logout_user records when sessions became invalid")
    passed.append("logout_user")

    # The Terraform provider's group resource: create (with Kasm's permissions), update, delete.
    group = client.call(
        "create_group",
        target_group={"name": f"CSP {run}", "priority": 0, "description": "Cloud", "permissions": ["allow_kasm_sharing"]},
    )["group"]
    renamed = client.call(
        "update_group",
        target_group={"group_id": group["group_id"], "name": f"CSP renamed {run}", "description": "Cloud", "priority": 1},
    )
    expect(renamed["group"]["name"] == f"CSP renamed {run}", f"update_group: {renamed}")
    client.call("add_user_group", target_user={"user_id": terraform_user["user_id"]}, target_group={"group_id": group["group_id"]})
    # Its group sync sets groups = ["CSP"]: the user leaves All Users, which a key with groups_modify_system may do.
    all_users = client.find_group("All Users")
    expect(all_users is not None, "All Users exists")
    assert all_users is not None
    client.call("remove_user_group", target_user={"user_id": terraform_user["user_id"]}, target_group={"group_id": all_users["group_id"]})
    groups = [entry["name"] for entry in client.call("get_user", target_user={"user_id": terraform_user["user_id"]})["user"]["groups"]]
    expect(groups == [f"CSP renamed {run}"], f"groups = [CSP]: {groups}")
    client.call("delete_group", target_group={"group_id": group["group_id"]})
    groups = [entry["name"] for entry in client.call("get_user", target_user={"user_id": terraform_user["user_id"]})["user"]["groups"]]
    expect(groups == [], f"delete_group removed the membership: {groups}")
    refused(lambda: client.call("delete_group", target_group={"group_id": all_users["group_id"]}), 409, "system_group")
    passed.append("group lifecycle")

    for target in (user, terraform_user):
        client.call("delete_user", target_user={"user_id": target["user_id"]}, force=True)
    print(json.dumps({"passed": passed}))


if __name__ == "__main__":
    main()
