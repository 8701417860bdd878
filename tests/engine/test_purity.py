"""engine/ is pure rules: it imports nothing that does I/O or belongs to the service."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = {
    "flask",
    "sqlalchemy",
    "celery",
    "kombu",
    "redis",
    "smtplib",
    "socket",
    "jinja2",
    "service",
    "workers",
    "requests",
    "urllib",
    "subprocess",
    "psycopg",
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("path", sorted(ENGINE.rglob("*.py")), ids=lambda p: p.name)
def test_engine_module_imports_no_io(path: Path) -> None:
    assert not imported_roots(path) & FORBIDDEN
