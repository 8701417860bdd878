"""``pbem engine``: generic commands over every registered game."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from engine import names
from service.cli import main


@pytest.mark.parametrize("game", names())
def test_show_prints_the_board_and_the_position_of_every_game(game: str) -> None:
    result = CliRunner().invoke(main, ["engine", "show", game])
    assert result.exit_code == 0, result.output
    assert "Position: " in result.output


def test_moves_lists_at_most_the_limit_but_counts_all() -> None:
    result = CliRunner().invoke(main, ["engine", "moves", "nelaxtam", "--limit", "2"])
    lines = result.output.splitlines()
    assert result.exit_code == 0
    assert len(lines) == 4
    assert lines[2] == "... 273430078 more not listed (--limit)"
    assert lines[3] == "273430080 moves"


def test_bad_option_values_are_one_clear_line() -> None:
    result = CliRunner().invoke(main, ["engine", "moves", "epaminondas", "-o", "board=9x9"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: bad option 'board=9x9': option 'board' of Epaminondas takes one of the listed "
        "values. Valid here: 14x12, 8x8"
    ]


SERVICE_MODULES = ("sqlalchemy", "flask", "celery", "alembic", "kombu", "jinja2", "service.db")


def test_pbem_engine_imports_only_the_engine_and_click() -> None:
    """`pbem engine ...` starts fast because the other command groups load lazily: run it in
    a fresh interpreter and list what it imported (time is for bench/, not tests)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import json, sys\n"
        "from service.cli import main\n"
        "try:\n"
        "    main(['engine', 'perft', 'epaminondas', '--depth', '1'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0] == "perft(1) = 114", done.stdout
    loaded = json.loads(lines[-1])
    heavy = [m for m in loaded if m.split(".")[0] in SERVICE_MODULES or m in SERVICE_MODULES]
    assert heavy == []
    assert "engine.perft" in loaded and "service.cli.engine" in loaded
    ours = [m for m in loaded if m.startswith("service.")]
    assert ours == ["service.cli", "service.cli.engine"]
