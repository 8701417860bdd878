"""The service's layers: ``service`` never imports ``workers`` (tasks leave through the port
in ``service.db`` that ``workers.app`` plugs Celery into), and its modules import each other
without circles (games tell leagues of a finished game through ``service.hooks``)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
TABLES = {"service.models", "service.leagues.models", "service.mail.models"}
"""One metadata: ``service.models`` imports the other table modules so every table is known."""


def imports() -> nx.DiGraph:
    """Every import of every ``service`` module, at the top or inside a function."""
    modules = {}
    for path in (ROOT / "service").rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        modules[name] = path
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            for target in targets:
                if target.split(".")[0] == "workers" or (target in modules and target != name):
                    graph.add_edge(name, target)
    return graph


def test_no_service_module_imports_the_workers() -> None:
    graph = imports()
    offenders = [(a, b) for a, b in graph.edges if b.split(".")[0] == "workers"]
    assert offenders == []


def test_service_modules_import_each_other_without_circles() -> None:
    graph = imports()
    circles = [sorted(c) for c in nx.simple_cycles(graph) if not set(c) <= TABLES]
    assert circles == []


def test_leagues_hear_of_finished_games_through_the_hook() -> None:
    import workers.tasks  # noqa: F401  (what a worker process imports)
    from service import hooks
    from service.leagues import leagues

    assert leagues.game_finished in hooks._game_finished


def test_conditional_moves_hear_of_every_move_through_the_hook() -> None:
    """Every way a move comes in (API, mail gateway, play page) loads the conditional moves."""
    import workers.tasks  # noqa: F401  (the worker: the mail gateway)
    from service import conditional, hooks
    from service.app import create_app  # noqa: F401  (the web process: API and play page)

    assert conditional.after_step in hooks._move_played
