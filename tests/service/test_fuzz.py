"""Fuzzing every route of the OpenAPI document: bodies generated from each route's own
request schema (by :func:`from_schema`), the same bodies with one field mutated into
something hostile, and hostile raw bodies (deep nesting, NaN, huge integers, lone
surrogates, NUL, bytes that are not UTF-8). Every answer must be JSON below 500; the slow
run sends 20,000 requests (``PBEM_FUZZ_REQUESTS`` to change it) and prints the figures."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.api import gate
from service.openapi import document
from tests.service.conftest import Client, new_player

HOSTILE_VALUES: list[Any] = [
    2**63,
    -(2**63) - 1,
    2**31,
    10**30,
    -1,
    0,
    "\ud800",
    "a\x00b",
    "é" * 300,
    [[]],
    {"": []},
    [1, [2, [3]]],
    None,
    True,
    1.5,
    "",
    "x" * 5000,
]
RAW_BODIES: list[bytes] = [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a":' * 5000 + b"1" + b"}" * 5000,
    b'{"days": NaN, "turn": Infinity, "text": -Infinity}',
    b'{"days": 1e400, "turn": 1}',
    b'{"turn": 123456789012345678901234567890, "text": "a1"}',
    b'{"turn": 1, "text": "\\ud800"}',
    b'{"turn": 1, "text": "a\\u0000"}',
    b'{"turn": 1, "turn": 2}',
    b'{"text": "\xff\xfe"}',
    b"\xef\xbb\xbf{}",
    b"{not json",
    b"[]",
    b'"text"',
    b"null",
    b'{"seats": [[1]], "game": ["x"], "emails": {"a": 1}}',
    b'{"players": [{"email": ["x"]}], "divisions": [{"a": 1}]}',
    b'"' + b'\\"' * 30_000,  # unterminated strings: the depth scan stays linear
    b"[" + b'"\\' * 30_000,
]


def _inline(schema: Any, definitions: dict[str, Any]) -> Any:
    """A schema of the document with its ``$ref``s to shared definitions written out."""
    if isinstance(schema, list):
        return [_inline(item, definitions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return _inline(definitions[schema["$ref"].rsplit("/", 1)[-1]], definitions)
    return {key: _inline(value, definitions) for key, value in schema.items()}


def _endpoints() -> list[tuple[str, str, dict[str, Any] | None]]:
    described = document()
    definitions = described["components"]["schemas"]
    found = []
    for path, operations in described["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            schema = _inline(body["schema"], definitions) if body else None
            found.append((method.upper(), path, schema))
    return found


ENDPOINTS = _endpoints()


def _mutated(body: Any, data: st.DataObject) -> Any:
    if not isinstance(body, dict) or not body:
        return data.draw(st.sampled_from(HOSTILE_VALUES))
    key = data.draw(st.sampled_from(sorted(body)))
    return {**body, key: data.draw(st.sampled_from(HOSTILE_VALUES))}


def _raw_body(schema: dict[str, Any] | None, data: st.DataObject) -> bytes:
    """One body for a route: valid by its schema, mutated, random JSON, or hostile bytes."""
    kind = data.draw(st.sampled_from(["valid", "mutated", "random", "raw"]))
    if kind == "raw":
        return data.draw(st.sampled_from(RAW_BODIES))
    if kind == "random":
        value = data.draw(JSON_VALUES)
    else:
        value = data.draw(STRATEGIES[id(schema)]) if schema else data.draw(JSON_VALUES)
        if kind == "mutated":
            value = _mutated(value, data)
    return json.dumps(value).encode("utf-8", "surrogatepass")


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of an OpenAPI schema (the subset the document uses), cheap to draw: shapes and
    choices as the document says, texts and numbers not always within its limits."""
    for union in ("oneOf", "anyOf"):
        if union in schema:
            return st.one_of([from_schema(option) for option in schema[union]])
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kinds = schema.get("type", "object")
    if isinstance(kinds, list):
        return st.one_of([from_schema({**schema, "type": kind}) for kind in kinds])
    if kinds == "object":
        properties = {k: from_schema(v) for k, v in schema.get("properties", {}).items()}
        required = set(schema.get("required", ()))
        return st.fixed_dictionaries(
            {k: v for k, v in properties.items() if k in required},
            optional={k: v for k, v in properties.items() if k not in required},
        )
    if kinds == "array":
        return st.lists(from_schema(schema.get("items", {"type": "string"})), max_size=4)
    if kinds == "integer":
        return st.integers(schema.get("minimum", -5), schema.get("maximum", 2**31 - 1))
    if kinds == "number":
        return st.integers(-3, 30) | st.floats(-1e5, 1e5)
    if kinds == "string" and schema.get("format") == "email":
        return st.emails()
    if kinds == "string" and schema.get("format") == "date-time":
        return st.datetimes().map(lambda moment: moment.isoformat() + "Z")
    if kinds == "string":
        return st.text(max_size=30)
    return st.just(None) if kinds == "null" else st.booleans()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
STRATEGIES = {id(s): from_schema(s) for _, _, s in ENDPOINTS if s is not None}


class Tally:
    def __init__(self) -> None:
        self.requests, self.statuses, self.failures = 0, Counter[int](), list[str]()


def _fuzz(clients: list[Client], ids: list[int], tally: Tally, data: st.DataObject) -> None:
    """One request to every route (each with its own body, caller and ids)."""
    for method, path, schema in ENDPOINTS:
        number = data.draw(st.sampled_from(ids) | st.integers(-(2**40), 2**40))
        concrete = path
        for name in ("{game_id}", "{player_id}", "{league_id}"):
            concrete = concrete.replace(name, str(number))
        client = data.draw(st.sampled_from(clients))
        headers = {"Authorization": f"Bearer {client.token}"} if client.token else {}
        raw = _raw_body(schema, data) if method != "GET" else b""
        response = client.client.open(
            "/api/v1" + concrete,
            method=method,
            data=raw,
            headers=headers,
            content_type="application/json",
        )
        tally.requests += 1
        tally.statuses[response.status_code] += 1
        if response.status_code >= 500 or (response.status_code >= 400 and not response.is_json):
            tally.failures.append(f"{method} {concrete} {raw[:200]!r}: {response.status}")


def _world(admin: Client) -> tuple[list[Client], list[int]]:
    """Players, games (sequential and sealed) and a league for the requests to reach."""
    alice, bob = new_player(admin, "Alice"), new_player(admin, "Bob")
    for game in ("countdown", "duel", "countdown"):
        admin.ok("POST", "/games", {"game": game, "seats": [alice.id, bob.id]}, status=201)
    league = {"name": "Fuzz Cup", "game": "countdown", "join_code": "fuzz"}
    admin.ok("POST", "/leagues", league, status=201)
    anonymous = Client(admin.client, None, {"id": 0})
    return [admin, alice, bob, anonymous], [1, 2, 3, alice.id, bob.id]


def _run(admin: Client, requests: int, capsys: pytest.CaptureFixture[str]) -> Tally:
    """Rounds of one request per route until ``requests`` were sent."""
    clients, ids = _world(admin)
    tally = Tally()

    def every_route(data: st.DataObject) -> None:
        _fuzz(clients, ids, tally, data)

    while tally.requests < requests:
        rounds = -(-(requests - tally.requests) // len(ENDPOINTS))
        run = settings(
            max_examples=min(rounds, 50),
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(given(data=st.data())(every_route))
        run()
    with capsys.disabled():
        top = ", ".join(f"{status}: {n}" for status, n in sorted(tally.statuses.items()))
        print(
            f"\nfuzz: {tally.requests} requests over {len(ENDPOINTS)} routes, "
            f"{sum(n for s, n in tally.statuses.items() if s >= 500)} x 5xx ({top})"
        )
    assert tally.failures == [], tally.failures[:10]
    return tally


def test_every_route_answers_hostile_bodies_with_json_4xx(
    admin: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    tally = _run(admin, 1000, capsys)
    assert tally.statuses[400] > 0


@pytest.mark.slow
def test_twenty_thousand_fuzzed_requests_and_no_5xx(
    admin: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    wanted = int(os.environ.get("PBEM_FUZZ_REQUESTS", "20000"))
    tally = _run(admin, wanted, capsys)
    assert tally.requests >= wanted


@pytest.mark.parametrize("raw", RAW_BODIES[:9], ids=[f"raw{i}" for i in range(9)])
def test_the_gate_refuses_hostile_bodies_naming_what_is_wrong(raw: bytes) -> None:
    with pytest.raises(gate.Refused) as refused:
        gate.read(raw, gate.model_for("POST", "/api/v1/games/<int:gid>/moves"))
    assert refused.value.status == 400 and refused.value.message


def test_the_gate_names_the_field_with_the_wrong_type() -> None:
    schema = gate.model_for("POST", "/api/v1/games")
    for body, words in [
        (b'{"game": "duel", "seats": [1, "two"]}', "seats[1] must be an integer, not a string"),
        (
            b'{"game": "duel", "seats": [1, 4294967296]}',
            "seats[1] must be a whole number from 1 to",
        ),
        (b'{"game": ["x"], "seats": []}', "game must be the name of a game, one of "),
        (b'{"game": "duel", "time_control": {"days": "3"}}', "time_control.days must be a number"),
        (b'{"game": "x", "options": {"pile": "\\u0000"}}', "options.pile may not contain NUL"),
    ]:
        with pytest.raises(gate.Refused) as refused:
            gate.read(body, schema)
        assert words in refused.value.message
    assert gate.read(b'{"game": "duel", "seats": [1, 2], "time_control": null}', schema)
    brackets = b'{"game": "duel", "seats": [1, 2], "position": "[[[[[[[[[[[[[[[[[[[["}'
    assert gate.read(brackets, schema)["position"] == "[" * 20


def test_non_ascii_tokens_codes_and_links_are_refused_never_crash(admin: Client) -> None:
    """Secrets are compared as bytes in constant time: ``hmac.compare_digest`` on two ``str``
    raises for non-ASCII text, which used to be a 500."""
    league = {"name": "Code Cup", "game": "countdown", "join_code": "fuzz"}
    league_id = admin.ok("POST", "/leagues", league, status=201)["league"]["id"]
    for code in ("é", "fuzzé", "\u202efuzz", "ｆｕｚｚ"):
        answer = admin.request("POST", f"/leagues/{league_id}/join", json={"code": code})
        assert answer.status_code == 403, answer.get_data(as_text=True)
    for token in ("é", "ü" * 64, "\x7f"):
        answer = admin.client.get(
            "/api/v1/players/me", headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 401
    for link in ("1.é", "1.ü" + "a" * 20, "é.é"):
        assert admin.client.get(f"/mail/{link}").status_code < 500
        assert admin.client.post(f"/mail/{link}/unsubscribe").status_code < 500
