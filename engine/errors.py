"""The engine's one error hierarchy.

Every message is written for a person: it is mailed to players verbatim. It quotes what
was read, says why in plain words, names the rule (shared/rules C-2) and, where the list
is short, shows what *is* valid.

>>> err = IllegalMoveError("b2-b4", "a single stone moves at most 1 square", rule="EPA-5")
>>> str(err)
"illegal move 'b2-b4': a single stone moves at most 1 square (EPA-5)"
>>> str(NotationError("zz", "a move is <tail>-<dest>, e.g. a1-a3", valid=["a1-a2", "b1-b2"]))
"cannot read 'zz': a move is <tail>-<dest>, e.g. a1-a3. Valid here: a1-a2, b1-b2"

The engine stays pure: the reason is a :class:`Reason`, a stable ``code`` with parameters
and the English template as the default text. The templates are gettext msgids marked with
:func:`N_` and :func:`Nn_` (Babel keywords ``N_`` and ``Nn_:1,2``), so the service can
translate them without the engine importing gettext:

>>> why = Reason("stones_move_at_most", Nn_("{size} stone moves at most {n} square",
...     "{size} stones move at most {n} squares"), n=2, size=2)
>>> err = IllegalMoveError("b2-b5", why, rule="EPA-5")
>>> str(err)
"illegal move 'b2-b5': 2 stones move at most 2 squares (EPA-5)"
>>> err.code, dict(err.params)
('stones_move_at_most', {'n': 2, 'size': 2})
>>> err.render(lambda msgid: msgid) == str(err)
True
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

__all__ = [
    "N_",
    "EngineError",
    "Forms",
    "GameOverError",
    "IllegalMoveError",
    "Nn_",
    "NotYourTurnError",
    "NotationError",
    "OptionError",
    "PositionError",
    "Reason",
    "Translate",
    "UnknownGameError",
    "and_list",
    "commas",
    "joined",
    "or_list",
]

MAX_VALID_SHOWN = 12

Translate = Callable[[str], str]
"""``gettext``: an English msgid to the player's language."""
NTranslate = Callable[[str, str, int], str]
"""``ngettext``: singular and plural msgids and the count to the player's language."""


def N_(message: str) -> str:
    """Mark an English template for extraction; the text itself is returned unchanged."""
    return message


class Forms(NamedTuple):
    """The singular and plural English templates of a reason that counts (``n``)."""

    singular: str
    plural: str


def Nn_(singular: str, plural: str) -> Forms:
    """Mark a counted template's two English forms for extraction (Babel ``Nn_:1,2``)."""
    return Forms(singular, plural)


def _english(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


@dataclass(frozen=True, init=False)
class Reason:
    """Why, as a stable ``code``, parameters and the English ``template`` (a gettext msgid).

    A counted reason carries :class:`Forms` and its count as the ``n`` parameter, so the
    service can pick the plural form its language needs. Parameters may themselves be
    reasons or engine errors: they are rendered in the same language.
    """

    code: str
    template: str | Forms
    params: Mapping[str, object] = field(default_factory=dict)

    def __init__(self, code: str, template: str | Forms, /, **params: object) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "params", dict(params))

    @classmethod
    def literal(cls, text: str) -> Reason:
        """Words given as text (callers outside the engine); they cannot be translated."""
        return cls("literal", "{text}", text=text)

    @property
    def forms(self) -> Forms:
        template = self.template
        return template if isinstance(template, Forms) else Forms(template, template)

    def render(self, translate: Translate = N_, ntranslate: NTranslate | None = None) -> str:
        """The reason in the language of ``translate`` (``ngettext`` for counted ones)."""
        template = self.template
        if isinstance(template, Forms):
            count = int(self.params["n"])  # type: ignore[call-overload]
            if ntranslate is not None:
                template = ntranslate(template.singular, template.plural, count)
            else:
                template = translate(_english(template.singular, template.plural, count))
        else:
            template = translate(template)
        params = {key: _render(value, translate, ntranslate) for key, value in self.params.items()}
        return template.format(**params)

    def placeholders(self) -> set[str]:
        """The parameter names the template(s) use."""
        return {
            name.split(".")[0].split("[")[0]
            for text in set(self.forms)
            for _, name, _, _ in string.Formatter().parse(text)
            if name
        }

    def to_json(self) -> dict[str, Any] | None:
        """The reason as JSON (:meth:`from_json` reads it back), or None where it holds what
        JSON cannot say (a list, an error, a reason of its own kind): keep its English then.

        >>> why = Reason("x", Nn_("{n} stone", "{n} stones"), n=2, side=Reason("w", "White"))
        >>> Reason.from_json(why.to_json()) == why
        True
        """
        if type(self) is not Reason:
            return None
        params: dict[str, Any] = {}
        for key, value in self.params.items():
            if isinstance(value, Reason):
                nested = value.to_json()
                if nested is None:
                    return None
                params[key] = {"reason": nested}
            elif value is None or isinstance(value, str | int | float):
                params[key] = value
            else:
                return None
        template = self.template
        return {
            "code": self.code,
            "template": list(template) if isinstance(template, Forms) else template,
            "params": params,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reason:
        template = data["template"]
        params = {
            key: cls.from_json(value["reason"]) if isinstance(value, Mapping) else value
            for key, value in data["params"].items()
        }
        shape = Forms(*template) if isinstance(template, list) else str(template)
        return cls(str(data["code"]), shape, **params)

    def __str__(self) -> str:
        return self.render()

    def __hash__(self) -> int:  # the parameters are a dict: hash them as items
        return hash((self.code, self.template, tuple(sorted(self.params.items()))))


def _render(value: object, translate: Translate, ntranslate: NTranslate | None) -> object:
    if isinstance(value, Reason | EngineError):
        return value.render(translate, ntranslate)
    return value


def joined(reasons: Sequence[Reason]) -> Reason:
    """Several reasons as one: ``first; second; ...``."""
    result = reasons[-1]
    for reason in reversed(reasons[:-1]):
        result = Reason("joined", N_("{first}; {rest}"), first=reason, rest=result)
    return result


def commas(reasons: Sequence[Reason]) -> Reason:
    """Several reasons as one list: ``first, second, ...`` (each in the same language)."""
    result = reasons[-1]
    for reason in reversed(reasons[:-1]):
        result = Reason("comma_list", N_("{first}, {rest}"), first=reason, rest=result)
    return result


def and_list(items: Sequence[object]) -> Reason:
    """``a``, ``a and b``, ``a, b and c``: a list in words, the ``and`` translated."""
    words = [str(item) for item in items]
    if len(words) == 1:
        return Reason("one_item", "{item}", item=words[0])
    return Reason("and_list", N_("{items} and {last}"), items=", ".join(words[:-1]), last=words[-1])


def or_list(items: Sequence[object]) -> Reason:
    """``a``, ``a or b``, ``a or b or c``: alternatives in words, the ``or`` translated."""
    result = Reason("one_item", "{item}", item=str(items[-1]))
    for item in reversed(items[:-1]):
        result = Reason("or_list", N_("{first} or {rest}"), first=str(item), rest=result)
    return result


# Reasons raised in more than one place.
GAME_ENDED = Reason("game_ended", N_("the game has ended"))
NO_CHANCE_STEP = Reason("no_chance_step", N_("no chance step is due"))


def state_lacks(missing: object) -> Reason:
    return Reason("state_lacks", N_("stored state lacks {missing}"), missing=missing)


class EngineError(Exception):
    """Base of every error the engine raises on purpose; the message is for players.

    ``str(error)`` is the English message; :meth:`render` gives it in another language.
    """

    label = N_("error")

    def __init__(
        self,
        text: str,
        reason: Reason | str,
        *,
        rule: str | None = None,
        valid: Iterable[str] = (),
    ) -> None:
        self.text = text
        self.why = reason if isinstance(reason, Reason) else Reason.literal(reason)
        self.rule = rule
        self.valid = tuple(valid)
        super().__init__(self.render())

    @property
    def reason(self) -> str:
        """The reason in English."""
        return str(self.why)

    @property
    def code(self) -> str:
        return self.why.code

    @property
    def params(self) -> Mapping[str, object]:
        return self.why.params

    def render(self, translate: Translate = N_, ntranslate: NTranslate | None = None) -> str:
        """The whole message in the language of ``translate`` (and ``ntranslate``)."""
        message = translate(N_("{label} {text!r}: {reason}")).format(
            label=translate(self.label),
            text=self.text,
            reason=self.why.render(translate, ntranslate),
        )
        if self.rule:
            message = translate(N_("{message} ({rule})")).format(message=message, rule=self.rule)
        if self.valid:
            shown = ", ".join(self.valid[:MAX_VALID_SHOWN])
            more = len(self.valid) - MAX_VALID_SHOWN
            if more > 0:
                forms = Nn_(
                    "{message}. Valid here: {shown} and {n} more",
                    "{message}. Valid here: {shown} and {n} more",
                )
                template = ntranslate(*forms, more) if ntranslate else translate(forms.singular)
            else:
                template = translate(N_("{message}. Valid here: {shown}"))
            message = template.format(message=message, shown=shown, n=more)
        return message

    @property
    def message(self) -> str:
        return str(self)


class NotationError(EngineError):
    """The text cannot be read as a move or set of orders (C-2 syntax error)."""

    label = N_("cannot read")


class IllegalMoveError(EngineError):
    """The text reads as a move but breaks a rule (C-2 illegal move)."""

    label = N_("illegal move")


class NotYourTurnError(IllegalMoveError):
    """The seat owes no action in this state."""

    label = N_("not your turn for")


class GameOverError(IllegalMoveError):
    """The game has ended; nothing more can be played."""

    label = N_("game over, cannot play")


class PositionError(EngineError):
    """A position string (C-3) or stored state cannot be read."""

    label = N_("bad position")


class OptionError(EngineError):
    """An unknown game option, a bad option value or an unsupported player count."""

    label = N_("bad option")


class UnknownGameError(EngineError):
    """No game is registered under that name."""

    label = N_("unknown game")
