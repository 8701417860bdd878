"""Suite-wide options: ``--run-slow`` runs the tests marked slow (CI does); tests marked
``outside_material`` skip, or fail under ``PBEM_REQUIRE_OUTSIDE_MATERIAL=1``, when their part of
``../shared`` is missing (``tests/outside.py``)."""

from __future__ import annotations

import pytest

from tests import outside

# Alembic's env.py runs only inside ``alembic`` (it reads ``context.config`` on import); the
# migrations hold no doctests.
collect_ignore_glob = ["service/migrations/*"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers("outside_material"):
        reason = outside.missing(mark.args[0])
        if reason and outside.required():
            pytest.fail(f"{reason}, and {outside.REQUIRE} is set", pytrace=False)
        if reason:
            pytest.skip(reason)
