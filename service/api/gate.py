"""The JSON gate: every JSON request body of the API is read here, once, before any route.

A body passes only if it is strict UTF-8, nested at most ``MAX_DEPTH`` deep (measured by a
flat scan *before* decoding, so a ``[[[[...]]]]`` bomb never reaches the recursive decoder),
holds no ``NaN``/``Infinity`` (nor a number too large for a float), no integer outside
PostgreSQL's ``BIGINT`` (``INTEGER`` where the OpenAPI schema says integer without its own
bounds: every integer column is one), no duplicate key, no string with NUL or a lone
surrogate, and every field the route's OpenAPI schema describes has that type. Anything
else is a 400 that names the field (``seats[2]``, ``time_control.days``). Routes read the
result with :func:`service.api.v1.body`; the service layer still checks meaning (ranges,
known games, e-mail addresses) and answers in its own words.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from service import openapi
from service.errors import BadRequest

MAX_DEPTH = 16
BIGINT = (-(2**63), 2**63 - 1)
INTEGER = (-(2**31), 2**31 - 1)
LARGEST_FLOAT = 1e15
LARGEST_NUMBER = 100_000
"""Fields typed ``number`` are days and points: anything larger is a mistake or an attack
(and would overflow a date)."""

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*+"?|[\[\]{}]', re.DOTALL)
"""A string (to its closing quote, or to the end: never rescanned, so linear) or a bracket."""
_PATH_PARAMETER = re.compile(r"<(?:\w+(?:\([^)]*\))?:)?(\w+)>")


class Refused(BadRequest):
    code = "invalid_json"


def read(raw: bytes, schema: dict[str, Any] | None) -> Any:
    """The decoded body, or :class:`Refused` naming what is wrong and where."""
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
    check(value, schema or {}, "body")
    return value


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


def _float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number) or abs(number) > LARGEST_FLOAT:
        raise Refused(f"{text[:24]} is too large a number")
    return number


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise Refused(f"the key {key[:40]!r} appears twice in one object")
        found[key] = value
    return found


# -- types and text ---------------------------------------------------------------------------

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "null": (type(None),),
}
_PHRASES = {
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "boolean": "true or false",
    "integer": "an integer",
    "number": "a number",
    "null": "null",
}


def check(value: Any, schema: dict[str, Any], where: str) -> None:
    """``value`` against the parts of ``schema`` that are about shape (depth is bounded)."""
    if isinstance(value, str):
        _check_text(value, where)
    allowed = _allowed_types(schema)
    if allowed and not any(_is(value, kind) for kind in allowed):
        wanted = " or ".join(_PHRASES.get(kind, kind) for kind in allowed)
        raise Refused(f"{where} must be {wanted}, not {_PHRASES[_name(value)]}", "bad_field")
    if isinstance(value, int | float) and not isinstance(value, bool):
        low, high = _bounds(allowed)
        low, high = schema.get("minimum", low), schema.get("maximum", high)
        if not low <= value <= high:
            kind = "a whole number" if "integer" in allowed else "a number"
            raise Refused(f"{where} must be {kind} from {low} to {high}", "bad_field")
    if isinstance(value, dict):
        _check_object(value, schema, where)
    elif isinstance(value, list):
        items = schema.get("items", {})
        for index, item in enumerate(value):
            check(item, items, f"{where}[{index}]")


def _bounds(allowed: list[str]) -> tuple[float, float]:
    if "integer" in allowed:
        return INTEGER
    if "number" in allowed:
        return -LARGEST_NUMBER, LARGEST_NUMBER
    return BIGINT


def _check_object(value: dict[str, Any], schema: dict[str, Any], where: str) -> None:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    extra = schema.get("additionalProperties", {})
    for key, item in value.items():
        _check_text(key, f"a key of {where}")
        inner = f"{key}" if where == "body" else f"{where}.{key}"
        if item is None and key not in required and key in properties:
            continue  # an optional field sent as null means "not given"
        check(item, properties.get(key, extra if isinstance(extra, dict) else {}), inner)


def _check_text(text: str, where: str) -> None:
    if "\x00" in text:
        raise Refused(f"{where} may not contain NUL characters", "bad_field")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(f"{where} holds a lone surrogate (\\ud800-\\udfff)", "bad_field") from None


def _allowed_types(schema: dict[str, Any]) -> list[str]:
    if "oneOf" in schema:
        kinds = [kind for option in schema["oneOf"] for kind in _allowed_types(option)]
        return list(dict.fromkeys(kinds)) if all(_allowed_types(o) for o in schema["oneOf"]) else []
    if "enum" in schema:
        return list(dict.fromkeys(_name(choice) for choice in schema["enum"]))
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) else list(kind or [])


def _is(value: Any, kind: str) -> bool:
    if isinstance(value, bool):
        return kind == "boolean"
    if kind == "number" and isinstance(value, int):
        return True
    return isinstance(value, _TYPES.get(kind, ()))


def _name(value: Any) -> str:
    for kind in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is(value, kind):
            return kind
    return type(value).__name__


# -- which schema -----------------------------------------------------------------------------


def _schemas() -> dict[tuple[str, str], dict[str, Any]]:
    return {(m.upper(), p): schema for m, p, *_, schema, _ in openapi.ROUTES if schema is not None}


SCHEMAS = _schemas()


def schema_for(method: str, rule: str) -> dict[str, Any] | None:
    """The OpenAPI request schema of a Flask rule under ``/api/v1``, if it has one."""
    path = _PATH_PARAMETER.sub(r"{\1}", rule.removeprefix("/api/v1")).replace("{gid}", "{game_id}")
    return SCHEMAS.get((method, path))
