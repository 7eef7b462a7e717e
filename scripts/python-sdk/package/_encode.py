"""What a method sends for a model argument: the model's JSON, or a plain mapping as it is.

``client.update_user(target_user={"user_id": USER_ID, "first_name": "Ada"})`` works as
well as ``target_user=UserUpdate(user_id=USER_ID, first_name="Ada")``: the service
judges either, and its answer names what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class _Model(Protocol):
    def to_json(self) -> dict[str, Any]: ...


def as_json(value: _Model | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    return value.to_json()
