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
from service import openapi
from service.api import schemas
from service.errors import BadRequest

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
        raise Refused(f"the body is not valid UTF-8 (byte {error.start})") from None
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
        raise Refused(f"the body must be a JSON object, and is not JSON: {error}") from None
    _check_texts(value, "body")
    if model is None:
        return value
    if not isinstance(value, dict):
        found = _PHRASES.get(type(value), "a value")
        raise Refused(f"the request body must be a JSON object, not {found}", "bad_field")
    try:
        valid = model.validate_python(value)
    except ValidationError as error:
        message, code = explain(error)
        raise Refused(message, code) from None
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
            raise Refused(f"the body is nested more than {MAX_DEPTH} levels deep")


def _no_constant(name: str) -> Any:
    raise Refused(f"{name} is not a number this service accepts")


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > 19:
        raise Refused(f"{digits[:24]}... is too large a number")
    number = int(digits)
    if not BIGINT[0] <= number <= BIGINT[1]:
        raise Refused(f"{digits} is too large a number")
    return number


def _float(text: str) -> float | int:
    number = float(text)
    if not math.isfinite(number) or abs(number) > LARGEST_FLOAT:
        raise Refused(f"{text[:24]} is too large a number")
    return int(number) if number.is_integer() else number


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise Refused(f"the key {key[:40]!r} appears twice in one object")
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
        raise Refused(f"{where} may not contain NUL characters", "bad_field")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(f"{where} holds a lone surrogate (\\ud800-\\udfff)", "bad_field") from None


# -- what the model said, in words -------------------------------------------------------------

_PHRASES: dict[type, str] = {
    dict: "an object",
    list: "a list",
    str: "a string",
    bool: "true or false",
    int: "an integer",
    float: "a number",
    type(None): "null",
}
_WANTED = {
    "int_type": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "string_type": "a string",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}
_ORDER = [{"kind", *_WANTED}, {"missing", "unknown_field", "union_tag_not_found"}]
"""Which error is told first: a value of the wrong type, then a field missing or unknown,
then a value out of its range or choices."""


def explain(error: ValidationError) -> tuple[str, str]:
    """One error of ``error`` as a sentence (where, what was read, what is valid), and its
    code: ``bad_field`` for a wrong type, ``unknown_game``, ``bad_option`` (a game option),
    else ``bad_request``, the codes the service gave these refusals before the gate did."""
    errors = error.errors()
    first = next((e for kinds in _ORDER for e in errors if e["type"] in kinds), errors[0])
    return _sentence(first), _code(first)


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
    return where or "the body"


def _sentence(error: ErrorDetails) -> str:
    kind, value, ctx = error["type"], error["input"], error.get("ctx") or {}
    loc = error["loc"]
    if loc and isinstance(loc[0], str) and loc[0] in engine.names():
        loc = loc[1:]  # the tag of a body chosen by its game
    where = _where(loc)
    if kind == "missing":
        return f"{where} is required"
    if kind in _WANTED:
        found = _PHRASES.get(type(value), "a value")
        if kind == "int_from_float" or (kind == "int_type" and isinstance(value, float)):
            return f"{where} must be a whole number, not {value!r}"
        return f"{where} must be {_WANTED[kind]}, not {found}"
    if kind in ("literal_error", "enum"):
        return f"{where} must be one of {_choices(ctx['expected'])}; got {value!r}"
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        field = ctx["discriminator"].strip("'")
        field = field if where == "the body" else f"{where}.{field}"
        known = _choices(ctx.get("expected_tags", ", ".join(engine.names())))
        if kind == "union_tag_not_found":
            return f"{field} is required: the name of a game, one of {known}"
        return f"{field} must be the name of a game, one of {known}; got {ctx['tag']}"
    if kind == "string_too_short":
        return f"{where} must have at least {ctx['min_length']} character(s); got {value!r}"
    if kind == "string_too_long":
        return f"{where} must have at most {ctx['max_length']} characters; got {len(value)}"
    if kind == "too_short":
        return f"{where} must hold at least {ctx['min_length']} item(s); got {len(value)}"
    if kind == "too_long":
        return f"{where} must hold at most {ctx['max_length']} items; got {len(value)}"
    if kind == "string_pattern_mismatch":
        wanted = schemas.PATTERNS.get(ctx["pattern"], f"a text matching {ctx['pattern']}")
        return f"{where} must be {wanted}; got {value[:80]!r}"
    if kind == "rule":
        return str(error["msg"])
    if kind == "kind":
        return f"{where} {error['msg']}, not {_PHRASES.get(type(value), 'a value')}"
    return f"{where} {error['msg']}"


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
