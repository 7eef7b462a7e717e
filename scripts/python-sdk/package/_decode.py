"""Checks on the JSON the service answers with, used by the generated models.

Each returns its value with a precise type, or raises UnexpectedResponse naming
the field. Values the contract does not forbid a newer service to add (an
unknown property, a new enum value) are let through.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .errors import UnexpectedResponse


def _wrong(expected: str, value: object, where: str) -> UnexpectedResponse:
    return UnexpectedResponse(f"{where}: expected {expected}, got {type(value).__name__}")


def json_object(value: object, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _wrong("an object", value, where)
    return value


def required(fields: dict[str, Any], name: str, where: str) -> Any:
    if name not in fields:
        raise UnexpectedResponse(f"{where}: the required property {name!r} is missing")
    return fields[name]


def array(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _wrong("an array", value, where)
    return value


def text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _wrong("a string", value, where)
    return value


def integer(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _wrong("an integer", value, where)
    return value


def number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _wrong("a number", value, where)
    return float(value)


def boolean(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise _wrong("a boolean", value, where)
    return value


def date_time(value: object, where: str) -> datetime:
    """An RFC 3339 date-time; Python 3.10's fromisoformat does not read the ``Z`` suffix."""
    raw = text(value, where)
    try:
        return datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
    except ValueError:
        raise UnexpectedResponse(f"{where}: {raw!r} is not a date-time") from None
