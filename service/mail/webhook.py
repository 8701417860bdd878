"""The inbound webhook, for mail providers that POST each received message to a URL.

``POST /inbound/mail`` with the raw RFC 5322 message as the body (any content type: the bytes
are the message) and ``X-Pbem-Signature: sha256=<hex HMAC-SHA256 of the body under
PBEM_INBOUND_WEBHOOK_SECRET>``, or the secret itself as ``Authorization: Bearer <secret>`` for
providers that can only send a fixed header. Both are compared in constant time. Answers:
202 stored (or already stored), 400 for header lines that could be split two ways (a bare
CR, VT, FF, ...: ``header_lines.py``), 401 no credentials, 403 wrong ones, 404 when no secret
is configured (the route is off), 413 past ``PBEM_INBOUND_MAX_BYTES``.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from flask import Blueprint, current_app, jsonify, request

from service.api.v1 import read_body
from service.db import Database
from service.errors import Forbidden, NotFound, ServiceError, Unauthorized
from service.i18n import N_
from service.mail import gateway

blueprint = Blueprint("mail_inbound", __name__)

SIGNATURE_HEADER = "X-Pbem-Signature"


def signature(secret: str, body: bytes) -> str:
    """The header value a sender puts in ``X-Pbem-Signature`` for ``body``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def check(secret: str, body: bytes, headers: Any) -> None:
    """Raise unless the request carries the right signature or shared secret."""
    signed = headers.get(SIGNATURE_HEADER, "")
    bearer = headers.get("Authorization", "")
    if signed:
        if not hmac.compare_digest(signed.strip().encode(), signature(secret, body).encode()):
            raise Forbidden("the signature does not match the body", "bad_signature")
        return
    if bearer.startswith("Bearer "):
        given = bearer.removeprefix("Bearer ").strip().encode()
        if not hmac.compare_digest(given, secret.encode()):
            raise Forbidden("wrong shared secret", "bad_secret")
        return
    raise Unauthorized(f"sign the body in {SIGNATURE_HEADER} or send the shared secret")


@blueprint.post("/inbound/mail")
def inbound() -> Any:
    database: Database = current_app.extensions["pbem.database"]
    settings = database.settings
    if not settings.inbound_webhook_secret:
        raise NotFound("the inbound mail webhook is off (set PBEM_INBOUND_WEBHOOK_SECRET)")
    request.max_content_length = settings.inbound_max_bytes
    body = read_body(cache=False)
    check(settings.inbound_webhook_secret, body, request.headers)
    if not body.strip():
        raise ServiceError(N_("the body must be the raw message"), "empty", values={})
    received = gateway.receive(database, body, "webhook")
    return jsonify({"id": received.id, "duplicate": received.duplicate}), 202
