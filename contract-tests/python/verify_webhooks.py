"""verify_webhook against deliveries the service signed (given as JSON on stdin): each verdict, one per line."""

from __future__ import annotations

import json
import sys

from workspace_user_api import WebhookVerificationError, verify_webhook

for case in json.load(sys.stdin):
    try:
        event = verify_webhook(case["secret"], case["body"].encode(), case["headers"])
        print(f"ok {event.type} {event.data.resource.id}")
    except WebhookVerificationError as error:
        print(f"refused: {error}")
