"""The JSON gate: every JSON request body of the API is read here, once, before any route.

First the raw text: a body passes only if it is strict UTF-8, nested at most ``MAX_DEPTH``
deep (measured by a flat scan *before* decoding, so a ``[[[[...]]]]`` bomb never reaches the
recursive decoder), holds no ``NaN``/``Infinity`` (nor a number too large for a float), no
integer outside PostgreSQL's ``BIGINT``, no duplicate key, no string with NUL or a lone
surrogate. A number written with a fraction of zero (``142684.0``) is that integer, as JSON
Schema 2020-12 counts it.

Then the route's request model (``service.api.schemas``, the same models the OpenAPI document
is written from) validates the body: types, lengths, ranges, enums, required and unknown
fields. Anything else is a 400 (``invalid_json`` or ``bad_field``) whose message names the
field and says why (``seats[1] must be an integer, not a string``). Routes read the validated
body with :func:`service.api.v1.body`; the service layer still checks meaning (a legal move,
an existing player) and answers in its own words.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

import engine
from engine.errors import NTranslate, Translate
from service import openapi
from service.api import schemas
from service.errors import BadRequest, Words, in_words
from service.i18n import N_

MAX_DEPTH = 16
BIGINT = (-(2**63), 2**63 - 1)
LARGEST_FLOAT = 1e15

_PATH_PARAMETER = re.compile(r"<(?:\w+(?:\([^)]*\))?:)?(\w+)>")
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*+"?|[\[\]{}]', re.DOTALL)
"""A string (to its closing quote, or to the end: never rescanned, so linear) or a bracket."""


class Refused(BadRequest):
    code = "invalid_json"


def read(raw: bytes, model: TypeAdapter[Any] | None) -> Any:
    """The decoded body, validated by ``model`` when the route has one (then as a dict of the
    fields given, defaults left to the service), or :class:`Refused` naming what is wrong."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _refused(
            N_("the body is not valid UTF-8 (byte %(byte)s)"), byte=error.start
        ) from None
    _check_depth(raw)
    try:
        value = json.loads(
            text,
            parse_constant=_no_constant,
            parse_int=_integer,
            parse_float=_float,
            object_pairs_hook=_object,
        )
    except Refused:
        raise
    except (ValueError, RecursionError) as error:
        raise _refused(
            N_("the body must be a JSON object, and is not JSON: %(error)s"), error=error
        ) from None
    _check_texts(value, "body")
    if model is None:
        return value
    if not isinstance(value, dict):
        found = _PHRASES.get(type(value), _A_VALUE)
        raise _refused(
            N_("the request body must be a JSON object, not %(found)s"), "bad_field", found=found
        )
    try:
        valid = model.validate_python(value)
    except ValidationError as error:
        raise explain(error) from None
    return model.dump_python(valid, exclude_unset=True, by_alias=True)


def _check_depth(raw: bytes) -> None:
    """Nesting depth from the brackets outside strings: no recursion, linear time."""
    depth = 0
    for token in _TOKEN.finditer(raw):
        found = token.group()
        if found in (b"[", b"{"):
            depth += 1
        elif found in (b"]", b"}"):
            depth -= 1
        if depth > MAX_DEPTH:
            raise _refused(
                N_("the body is nested more than %(depth)s levels deep"), depth=MAX_DEPTH
            )


def _no_constant(name: str) -> Any:
    raise _refused(N_("%(name)s is not a number this service accepts"), name=name)


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > 19:
        raise _refused(N_("%(number)s is too large a number"), number=f"{digits[:24]}...")
    number = int(digits)
    if not BIGINT[0] <= number <= BIGINT[1]:
        raise _refused(N_("%(number)s is too large a number"), number=digits)
    return number


def _float(text: str) -> float | int:
    number = float(text)
    if not math.isfinite(number) or abs(number) > LARGEST_FLOAT:
        raise _refused(N_("%(number)s is too large a number"), number=text[:24])
    return int(number) if number.is_integer() else number


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _refused(N_("the key %(key)r appears twice in one object"), key=key[:40])
        found[key] = value
    return found


# -- text anywhere in the body ----------------------------------------------------------------


def _check_texts(value: Any, where: str) -> None:
    """No NUL and no lone surrogate in any string or key (depth is bounded)."""
    if isinstance(value, str):
        _check_text(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, f"a key of {where}")
            _check_texts(item, key if where == "body" else f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_texts(item, f"{where}[{index}]")


def _check_text(text: str, where: str) -> None:
    if "\x00" in text:
        raise _refused(N_("%(where)s may not contain NUL characters"), "bad_field", where=where)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _refused(
            N_("%(where)s holds a lone surrogate (\\ud800-\\udfff)"), "bad_field", where=where
        ) from None


# -- what the model said, in words -------------------------------------------------------------

_A_VALUE = Words(N_("a value"))
_PHRASES: dict[type, Words] = {
    dict: Words(N_("an object")),
    list: Words(N_("a list")),
    str: Words(N_("a string")),
    bool: Words(N_("true or false")),
    int: Words(N_("an integer")),
    float: Words(N_("a number")),
    type(None): Words("null"),
}
_WANTED = {
    "int_type": Words(N_("an integer")),
    "int_from_float": Words(N_("a whole number")),
    "float_type": Words(N_("a number")),
    "string_type": Words(N_("a string")),
    "bool_type": Words(N_("true or false")),
    "list_type": Words(N_("a list")),
    "dict_type": Words(N_("an object")),
    "model_type": Words(N_("an object")),
    "model_attributes_type": Words(N_("an object")),
}
_ORDER = [{"kind", *_WANTED}, {"missing", "unknown_field", "union_tag_not_found"}]
"""Which error is told first: a value of the wrong type, then a field missing or unknown,
then a value out of its range or choices."""


def _refused(template: str, code: str | None = None, **values: Any) -> Refused:
    """A refusal whose message is a catalog text: the caller reads it in their language."""
    return Refused(template, code, values=values)


def ngettext(singular: str, plural: str, n: int) -> tuple[str, str, int]:
    """Marks a counted text for the catalogs (as gettext's ``ngettext``); :func:`_counted`
    says it."""
    return singular, plural, n


def _counted(text: tuple[str, str, int], code: str, **values: Any) -> Refused:
    """A refusal with a count (``%(num)s``): each language says it in its plural form. The
    English singular and plural are one text, as the message always read."""
    singular, plural, n = text
    filling = {"num": n, **values}

    def render(translate: Translate, ntranslate: NTranslate | None) -> str:
        chosen = ntranslate(singular, plural, n) if ntranslate else translate(singular)
        return chosen % in_words(filling, translate)

    return Refused(singular % filling, code, render=render)


def explain(error: ValidationError) -> Refused:
    """One error of ``error`` as a sentence (where, what was read, what is valid) with its
    code: ``bad_field`` for a wrong type, ``unknown_game``, ``bad_option`` (a game option),
    else ``bad_request``, the codes the service gave these refusals before the gate did."""
    errors = error.errors()
    first = next((e for kinds in _ORDER for e in errors if e["type"] in kinds), errors[0])
    return _sentence(first, _code(first))


def _code(error: ErrorDetails) -> str:
    if error["type"] in _ORDER[0]:
        return "bad_field"
    if error["type"] == "union_tag_invalid":
        return "unknown_game"
    if "options" in error["loc"]:
        return "bad_option"
    return "bad_request"


def _where(loc: tuple[int | str, ...]) -> str:
    where = ""
    for part in loc:
        if isinstance(part, int):
            where += f"[{part}]"
        elif not part.startswith("<"):
            where += f".{part}" if where else part
    return where or _THE_BODY


_THE_BODY = Words(N_("the body"))


def _sentence(error: ErrorDetails, code: str) -> Refused:
    kind, value, ctx = error["type"], error["input"], error.get("ctx") or {}
    loc = error["loc"]
    if loc and isinstance(loc[0], str) and loc[0] in engine.names():
        loc = loc[1:]  # the tag of a body chosen by its game
    where = _where(loc)
    if kind == "missing":
        return _refused(N_("%(where)s is required"), code, where=where)
    if kind in _WANTED:
        found = _PHRASES.get(type(value), _A_VALUE)
        if kind == "int_from_float" or (kind == "int_type" and isinstance(value, float)):
            return _refused(
                N_("%(where)s must be a whole number, not %(value)r"),
                code,
                where=where,
                value=value,
            )
        return _refused(
            N_("%(where)s must be %(wanted)s, not %(found)s"),
            code,
            where=where,
            wanted=_WANTED[kind],
            found=found,
        )
    if kind in ("literal_error", "enum"):
        return _refused(
            N_("%(where)s must be one of %(choices)s; got %(value)r"),
            code,
            where=where,
            choices=_choices(ctx["expected"]),
            value=value,
        )
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        field = ctx["discriminator"].strip("'")
        field = field if where == _THE_BODY else f"{where}.{field}"
        known = _choices(ctx.get("expected_tags", ", ".join(engine.names())))
        if kind == "union_tag_not_found":
            return _refused(
                N_("%(field)s is required: the name of a game, one of %(known)s"),
                code,
                field=field,
                known=known,
            )
        return _refused(
            N_("%(field)s must be the name of a game, one of %(known)s; got %(tag)s"),
            code,
            field=field,
            known=known,
            tag=ctx["tag"],
        )
    if kind == "string_too_short":
        return _counted(
            ngettext(
                "%(where)s must have at least %(num)s character(s); got %(value)r",
                "%(where)s must have at least %(num)s character(s); got %(value)r",
                ctx["min_length"],
            ),
            code,
            where=where,
            value=value,
        )
    if kind == "string_too_long":
        return _counted(
            ngettext(
                "%(where)s must have at most %(num)s characters; got %(length)s",
                "%(where)s must have at most %(num)s characters; got %(length)s",
                ctx["max_length"],
            ),
            code,
            where=where,
            length=len(value),
        )
    if kind == "too_short":
        return _counted(
            ngettext(
                "%(where)s must hold at least %(num)s item(s); got %(length)s",
                "%(where)s must hold at least %(num)s item(s); got %(length)s",
                ctx["min_length"],
            ),
            code,
            where=where,
            length=len(value),
        )
    if kind == "too_long":
        return _counted(
            ngettext(
                "%(where)s must hold at most %(num)s items; got %(length)s",
                "%(where)s must hold at most %(num)s items; got %(length)s",
                ctx["max_length"],
            ),
            code,
            where=where,
            length=len(value),
        )
    if kind == "string_pattern_mismatch":
        wanted = schemas.PATTERNS.get(ctx["pattern"])
        if wanted is None:
            return _refused(
                N_("%(where)s must be a text matching %(pattern)s; got %(value)r"),
                code,
                where=where,
                pattern=ctx["pattern"],
                value=value[:80],
            )
        return _refused(
            N_("%(where)s must be %(wanted)s; got %(value)r"),
            code,
            where=where,
            wanted=Words(wanted),
            value=value[:80],
        )
    if kind == "range":
        ends = (
            N_("%(where)s must be %(kind)s above %(low)s and at most %(high)s")
            if ctx["above"]
            else N_("%(where)s must be %(kind)s from %(low)s to %(high)s")
        )
        return _refused(
            ends, code, where=where, kind=Words(ctx["kind"]), low=ctx["low"], high=ctx["high"]
        )
    if kind == "duplicate":
        return _refused(
            N_("%(where)s lists %(item)s twice (items %(first)s and %(index)s); give each once"),
            code,
            where=where,
            **ctx,
        )
    if kind == "unknown_field":
        return _refused(
            N_("%(where)s has no field %(field)s; fields are %(fields)s"), code, where=where, **ctx
        )
    if kind == "date_time":
        return _refused(
            N_("%(where)s must be a date and time this service can hold; got %(value)s"),
            code,
            where=where,
            **ctx,
        )
    if kind == "rule":
        return _refused(ctx["template"], code, **ctx["values"])
    if kind == "kind":  # the discriminator's own message (``schemas``, marked ``N_``)
        found = _PHRASES.get(type(value), _A_VALUE)
        said = Words(error["msg"])
        template = N_("%(where)s %(said)s, not %(found)s")
        return _refused(template, code, where=where, said=said, found=found)
    if kind == "unknown":
        return _refused(
            N_("%(where)s must be a known %(what)s; got %(value)s"),
            code,
            where=where,
            what=Words(ctx["what"]),
            value=ctx["value"],
        )
    return Refused(f"{where} {error['msg']}", code)


def _choices(expected: str) -> str:
    """pydantic's "'a', 'b' or 'c'" as a, b, c."""
    return expected.replace("'", "").replace(" or ", ", ")


# -- which model ------------------------------------------------------------------------------


def openapi_path(rule: str) -> str:
    """A Flask rule under ``/api/v1`` as its OpenAPI path: ``/games/{game_id}/moves``."""
    path = _PATH_PARAMETER.sub(r"{\1}", rule.removeprefix("/api/v1"))
    return path.replace("{gid}", "{game_id}")


def route_for(method: str, rule: str) -> openapi.Route | None:
    """The documented route of a Flask rule under ``/api/v1``."""
    return openapi.route_for(method, openapi_path(rule))


def model_for(method: str, rule: str) -> TypeAdapter[Any] | None:
    """The request model of a Flask rule under ``/api/v1``, if its route takes a body."""
    route = route_for(method, rule)
    return None if route is None or route.body is None else openapi.request_adapter(route.body)
