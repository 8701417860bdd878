"""``/healthz`` and ``/metrics`` (outside ``/api/v1``, no token: what a process manager and
Prometheus scrape); each calls the ops service and returns."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app

from service.api.v1 import transaction
from service.ops import health, metrics

blueprint = Blueprint("ops", __name__)


@blueprint.get("/healthz")
def healthz() -> Any:
    return health.check(current_app.extensions["pbem.database"])


@blueprint.get("/metrics")
def prometheus() -> Any:
    with transaction() as session:
        text = metrics.exposition(metrics.snapshot(session))
    return Response(text, mimetype="text/plain", content_type="text/plain; version=0.0.4")
