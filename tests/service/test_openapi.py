"""The OpenAPI document is valid and describes exactly the app's routes; a property-based
run throws generated bodies at every route and expects JSON answers below 500."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openapi_spec_validator import validate

from service.openapi import ROUTES, Route, document
from tests.service.conftest import Client


def test_the_document_is_valid_openapi() -> None:
    validate(document())


def test_the_document_lists_every_route_of_the_app(app: Flask, alice: Client) -> None:
    served = alice.ok("GET", "/openapi.json")
    documented = {(m.upper(), p) for p, ops in served["paths"].items() for m in ops}
    real = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1"):
            continue
        path = re.sub(r"<(?:\w+(?:\([^)]*\))?:)?(\w+)>", r"{\1}", rule.rule[len("/api/v1") :])
        path = path.replace("{gid}", "{game_id}")
        for method in rule.methods or ():
            if method not in ("HEAD", "OPTIONS"):
                real.add((method, path))
    assert documented == real


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(route=st.sampled_from(ROUTES), payload=json_values, number=st.integers(-5, 2**40))
def test_any_request_gets_a_json_answer_below_500(
    alice: Client, route: Route, payload: Any, number: int
) -> None:
    method, path = route.method, route.path
    path = path.replace("{game_id}", str(number)).replace("{player_id}", str(number))
    path = path.replace("{league_id}", str(number))
    response = alice.request(method.upper(), path, json=payload if method != "get" else None)
    assert response.status_code < 500, response.get_data(as_text=True)
    if not path.endswith((".txt", ".csv")) or response.status_code >= 400:
        assert response.is_json
