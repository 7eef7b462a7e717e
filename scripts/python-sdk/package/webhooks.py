"""Checking a webhook delivery as a receiver, as Standard Webhooks 1.0 says, with the standard library alone.

The signature is an HMAC-SHA256, keyed by the secret's base64 after ``whsec_``, of
``<webhook-id>.<webhook-timestamp>.<body>``; ``webhook-signature`` holds one or more
``v1,<base64>`` (two while a rotation overlaps), any of which may match. A timestamp more
than five minutes from now is refused, so that a recorded delivery cannot be replayed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping

from .errors import WorkspaceUserApiError
from .models import Event

__all__ = ["WebhookVerificationError", "verify_webhook"]

TOLERANCE_SECONDS = 5 * 60


class WebhookVerificationError(WorkspaceUserApiError):
    """The delivery is not signed with the secret, or is too old or too new to be taken."""


def verify_webhook(secret: str, raw_body: bytes | str, headers: Mapping[str, str], *, now: float | None = None) -> Event:
    """The event a delivery carries, once its signature is checked; raises WebhookVerificationError otherwise.

    Give it the body exactly as it came, before any JSON parsing, and the request's headers
    (any mapping; names are compared without case).

    event = verify_webhook(os.environ["WEBHOOK_SECRET"], request.get_data(), request.headers)
    """
    lowered = {name.lower(): value for name, value in headers.items()}
    message_id = lowered.get("webhook-id")
    timestamp = lowered.get("webhook-timestamp")
    signatures = lowered.get("webhook-signature")
    if not message_id or not timestamp or not signatures:
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        sent = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds") from None
    current = time.time() if now is None else now
    if abs(current - sent) > TOLERANCE_SECONDS:
        raise WebhookVerificationError("webhook-timestamp is more than five minutes from now")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else raw_body
    expected = base64.b64encode(hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()).decode()
    for signature in signatures.split(" "):
        version, _, value = signature.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return Event.from_json(json.loads(body))
    raise WebhookVerificationError("no signature matches the secret")
