"""The service's layers: ``service`` never imports ``workers`` (tasks leave through the port
in ``service.db`` that ``workers.app`` plugs Celery into), and its modules import each other
without circles, but one: ``service.games.consequences`` hands a game's events to leagues and
conditional moves, which build on games, importing them inside its function (issue 23: an
explicit hand-off, nothing registered at import time)."""

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
    circles = [
        sorted(c) for c in nx.simple_cycles(graph) if not set(c) <= TABLES and HAND_OFF not in c
    ]
    assert circles == []


HAND_OFF = "service.games.consequences"


def test_the_hand_off_imports_what_builds_on_games_only_inside_its_function() -> None:
    """Importing ``service.games`` imports neither leagues nor conditional moves (issue 23)."""
    tree = ast.parse((ROOT / "service/games/consequences.py").read_text())
    on_top = {
        node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module is not None
    } | {
        f"{node.module}.{alias.name}"
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert not on_top & {"service.leagues.leagues", "service.leagues", "service.conditional"}
    assert not (ROOT / "service/hooks.py").exists()


def test_every_game_event_consumer_is_listed_in_the_hand_off() -> None:
    """Leagues hear of a finished game, conditional moves of every move, from one place."""
    text = (ROOT / "service/games/consequences.py").read_text()
    for consumer in (
        "leagues.game_finished",
        "conditional.after_step",
        "chain.append_all",
        "notify.",
    ):
        assert consumer in text
