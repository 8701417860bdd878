"""The Flask app factory: ``flask --app service.app:create_app run``."""

from __future__ import annotations

import hashlib
import hmac
import logging
from datetime import timedelta
from typing import Any

from flask import Flask, current_app, g, jsonify, request
from werkzeug.exceptions import HTTPException

from service import db, http_texts, i18n
from service.config import Settings
from service.errors import ServiceError

log = logging.getLogger(__name__)


def error_body(
    code: str,
    message: str,
    status: int,
    headers: Any = (),
    rules: Any = (),
    reason: str | None = None,
) -> Any:
    """The error shape of every refusal; a 401 names its scheme (``WWW-Authenticate``). An
    error that cites rules links each (``rules``: id and absolute URL of its anchor); one the
    engine raised carries the engine's code for why (``reason``)."""
    extra = dict(headers)
    if status == 401:
        extra.setdefault("WWW-Authenticate", "Bearer")
    error: dict[str, Any] = {"code": code, "message": message}
    if rules:
        base = current_app.extensions["pbem.database"].settings.public_url
        error["rules"] = [{"id": rule, "url": base + path} for rule, path in rules]
    if reason:
        error["reason"] = reason
    return jsonify({"error": error}), status, extra


SESSION_HOURS = 12
"""A sign-in on the web (``/sign-in``, ``service/console``) lasts this long."""


def _sessions(app: Flask, settings: Settings) -> None:
    """The signed session cookie of the signed-in pages: its key derived from
    ``PBEM_SECRET_KEY`` for this use only (a cookie is never a valid reply address or link);
    HttpOnly, SameSite=Lax, and Secure when the service is reached over https."""
    purpose = b"pbem web session v1\x00"
    app.secret_key = hmac.new(settings.secret(), purpose, hashlib.sha256).hexdigest()
    app.config.update(
        SESSION_COOKIE_NAME="pbem_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.public_url.startswith("https://"),
        PERMANENT_SESSION_LIFETIME=timedelta(hours=SESSION_HOURS),
    )


def caller_locale() -> str:
    """The language of this request's refusals: the token's player's (set once the route
    read the token), else that of a token the request carries (a refusal before the route
    ran: the gate's), else the browser's ``Accept-Language``, else English."""
    if "caller_locale" not in g:
        g.caller_locale = _token_locale() or i18n.best_of(request.accept_languages)
    return g.caller_locale or i18n.DEFAULT


def _token_locale() -> str | None:
    from service import players

    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    try:
        with current_app.extensions["pbem.database"].transaction() as session:
            player = players.authenticate(session, token.strip())
            return i18n.supported(player.language)
    except Exception:  # an unknown token, or no database: the refusal still goes out
        return None


def _page_locale() -> dict[str, str]:
    """The locale of a page whose view names none: the browser's (``Accept-Language``)
    among the supported ones, else English. A view that knows its reader passes ``locale``
    (``web.page_locale``), which wins over this."""
    return {"locale": i18n.best_of(request.accept_languages) or i18n.DEFAULT}


def create_app(settings: Settings | None = None, dispatch: db.Dispatch | None = None) -> Flask:
    from service import play, rules, web
    from service.api import leagues, ops, v1
    from service.console import pages as console
    from service.mail import webhook
    from service.ops import logs

    logs.setup()
    database = db.configure(settings or Settings.from_env(), dispatch)
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = database.settings.max_body_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    _sessions(app, database.settings)
    app.extensions["pbem.database"] = database
    i18n.install(app.jinja_env)
    app.context_processor(_page_locale)
    app.register_blueprint(v1.blueprint)
    app.register_blueprint(webhook.blueprint)
    app.register_blueprint(leagues.blueprint)
    app.register_blueprint(leagues.pages)
    app.register_blueprint(web.blueprint)
    app.register_blueprint(ops.blueprint)
    app.register_blueprint(play.blueprint)
    app.register_blueprint(rules.blueprint)
    app.register_blueprint(console.blueprint)
    app.before_request(v1.read_json_body)
    for endpoint, view in list(app.view_functions.items()):
        if endpoint != "static":  # a deadlock or serialization failure: the request again
            app.view_functions[endpoint] = db.retrying(view)  # type: ignore[assignment]

    @app.errorhandler(ServiceError)
    def service_error(error: ServiceError) -> Any:
        message = error.localized(caller_locale())
        return error_body(error.code, message, error.status, rules=error.rules, reason=error.reason)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        code = (error.name or "error").lower().replace(" ", "_")
        # werkzeug's own headers (a 405's Allow) travel with the JSON body
        headers = [(k, v) for k, v in error.get_headers() if k.lower() != "content-type"]
        message = i18n.gettext(caller_locale(), error.description or error.name)
        return error_body(code, message, error.code or 400, headers)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Any:
        log.exception("unexpected error")
        message = i18n.gettext(caller_locale(), http_texts.INTERNAL)
        return error_body("internal", message, 500)

    return app
