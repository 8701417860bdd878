"""Errors the service raises on purpose; the API turns each into a JSON 4xx answer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

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


class Words(str):
    """A value of a message that is itself a catalog text (``N_``): translated with it."""


class Written(str):
    """A value of a message that each locale writes its own way (a date, a number): the
    string is its English; :meth:`ServiceError.localized` writes it for its locale."""

    write: Callable[[str], str]

    def __new__(cls, write: Callable[[str], str]) -> Written:
        made = super().__new__(cls, write(i18n.DEFAULT))
        made.write = write
        return made


def in_words(values: Mapping[str, Any], translate: Translate) -> dict[str, Any]:
    """``values`` to fill a message in the language of ``translate``: its :class:`Words` in
    that language too, its :class:`Written` as the current locale (``i18n.in_locale``)
    writes them."""
    return {
        key: translate(value)
        if isinstance(value, Words)
        else value.write(i18n.current())
        if isinstance(value, Written)
        else value
        for key, value in values.items()
    }


def fill(template: str, values: Mapping[str, Any], translate: Translate) -> str:
    """``template`` in the language of ``translate``, its placeholders filled from ``values``."""
    return translate(template) % in_words(values, translate)


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
        values: Mapping[str, Any] | None = None,
    ) -> None:
        if values is not None:  # a catalog text (``N_``) and what fills its placeholders
            template, filling = message, dict(values)
            message = template % filling
            render = render or (lambda translate, _n: fill(template, filling, translate))
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
        """The message in the language of ``translate``: the engine's words, a text given with
        its ``values``, or a catalog text as it stands (one written with its values already
        in, that no catalog holds, stays English)."""
        return self._render(translate, ntranslate) if self._render else translate(self.message)

    def localized(self, locale: str) -> str:
        """The message for a reader of ``locale`` (``i18n.locale_for(player)``); English is
        :attr:`message` exactly."""
        with i18n.in_locale(locale):  # what its :class:`Written` values are written for
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
