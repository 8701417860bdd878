"""Time to render the mails of one move: ``opponent_moved`` (subject, text and HTML) for the
seeded scenarios of the mail tests, on the largest boards (issue 23).

    python3 bench/board_render.py [--number 200]

Prints the milliseconds per mail and per board picture (``render_board_html`` and
``render_board_text``) for a 16x16 Anti-Grid board and 8x8 and 14x12 Epaminondas boards.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.mail.render import render_board_html, render_board_text, render_email
from tests.mail.scenarios import context

BOARDS = (
    ("anti-grid 16x16", "anti-grid", (("board", "large"),)),
    ("epaminondas 8x8", "epaminondas", (("board", "8x8"),)),
    ("epaminondas 14x12", "epaminondas", (("board", "14x12"),)),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=200, help="renders per measure")
    number = parser.parse_args().number
    print(f"{'board':20} {'mail ms':>8} {'html ms':>8} {'text ms':>8}")
    for label, name, options in BOARDS:
        values = context("opponent_moved", name, options)
        times = [measure(call, values, number) for call in (mail, board_html, board_text)]
        print(f"{label:20} " + " ".join(f"{t:8.3f}" for t in times))


def mail(values: dict[str, Any]) -> object:
    return render_email("opponent_moved", values)


def board_html(values: dict[str, Any]) -> object:
    return render_board_html(values["view"])


def board_text(values: dict[str, Any]) -> object:
    return render_board_text(values["view"])


def measure(call: Callable[[dict[str, Any]], object], values: dict[str, Any], number: int) -> float:
    """Milliseconds per call, the best of five measures (the least disturbed by others)."""
    return min(timeit.repeat(lambda: call(values), number=number, repeat=5)) / number * 1000


if __name__ == "__main__":
    main()
