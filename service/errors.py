"""Errors the service raises on purpose; the API turns each into a JSON 4xx answer."""

from __future__ import annotations

from collections.abc import Callable

from engine import (
    EngineError,
    GameOverError,
    NotationError,
    NotYourTurnError,
    OptionError,
    PositionError,
    UnknownGameError,
)
from engine.errors import NTranslate, Translate
from service import i18n, rules

Render = Callable[[Translate, NTranslate | None], str]
"""A message in the language of ``gettext`` and ``ngettext`` (``EngineError.render``)."""


class ServiceError(Exception):
    """A request the service refuses, with a message for a person."""

    status = 400
    code = "bad_request"

    reason: str | None = None
    """The engine's stable code for why (``no_stone_on``), when the engine refused: the same in
    every language, so a client can tell refusals apart without reading the message."""

    def __init__(
        self,
        message: str,
        code: str | None = None,
        reason: str | None = None,
        *,
        render: Render | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        """In English; :meth:`localized` gives it in a player's language."""
        self._render = render
        if code:
            self.code = code
        self.reason = reason
        self.rules = tuple(rules.rule_links(None, message))
        """The rules the message cites (the engine's words do), each with its path on the
        game's rules page (``/rules/<game>#<ID>``): the API's error body links them."""

    def render(self, translate: Translate, ntranslate: NTranslate | None = None) -> str:
        """The message in the language of ``translate``: the engine's words (issue 24) are
        translated; the service's own stay as written."""
        return self._render(translate, ntranslate) if self._render else self.message

    def localized(self, locale: str) -> str:
        """The message for a reader of ``locale`` (``i18n.locale_for(player)``); English is
        :attr:`message` exactly."""
        return self.render(*i18n.translators(locale))


class BadRequest(ServiceError):
    pass


class Unauthorized(ServiceError):
    status = 401
    code = "unauthorized"


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class Conflict(ServiceError):
    status = 409
    code = "conflict"


class Unprocessable(ServiceError):
    status = 422
    code = "invalid"


def from_engine(error: EngineError) -> ServiceError:
    """The engine's own words, with a code and status that fit; :meth:`ServiceError.localized`
    renders them in a player's language."""
    kinds: list[tuple[type[EngineError], type[ServiceError], str]] = [
        (UnknownGameError, BadRequest, "unknown_game"),
        (OptionError, BadRequest, "bad_option"),
        (GameOverError, Conflict, "game_over"),
        (NotYourTurnError, Conflict, "not_your_turn"),
        (NotationError, Unprocessable, "cannot_read"),
        (PositionError, Unprocessable, "bad_position"),
    ]
    reason = None if error.code == "literal" else error.code  # plain text has no stable code
    for engine_kind, service_kind, code in kinds:
        if isinstance(error, engine_kind):
            return service_kind(str(error), code, reason, render=error.render)
    return Unprocessable(str(error), "illegal_move", reason, render=error.render)
