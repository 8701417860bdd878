"""Engine speed: Epaminondas perft(3) and legal-move generation.

Run from the project root (one core, pure Python)::

    python3 bench/engine_bench.py

It prints the time of perft(3) from the 14x12 start (1,787,292 leaves) and the average time
to generate the legal moves of one position, over every position of
``shared/corpora/epaminondas/positions.jsonl``, with the moves per second that makes.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from engine import new_game
from engine.games.epaminondas import EpaminondasState
from engine.perft import perft

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "epaminondas"
ROUNDS = 5


def corpus_states() -> list[EpaminondasState]:
    """Every corpus position (``A`` = White, rank 12 first) on the default 14x12 game."""
    game = new_game("epaminondas")
    states = []
    for line in (CORPUS / "positions.jsonl").read_text().splitlines():
        record = json.loads(line)
        rows = [epa13_rank(row.replace("A", "W")) for row in record["board"]]
        side = "w" if record["to_move"] == 1 else "b"
        state = game.parse_position("/".join(rows) + " " + side)
        assert isinstance(state, EpaminondasState)
        states.append(state)
    return states


def epa13_rank(row: str) -> str:
    """``W--B`` -> ``W2B``: a run of empty squares becomes its length (EPA-13)."""
    out, gap = "", 0
    for char in row:
        if char == "-":
            gap += 1
        else:
            out += (str(gap) if gap else "") + char
            gap = 0
    return out + (str(gap) if gap else "")


def bench_perft() -> None:
    start = new_game("epaminondas").initial_state()
    began = time.perf_counter()
    nodes = perft(start, 3)
    elapsed = time.perf_counter() - began
    print(f"perft(3) from the 14x12 start: {nodes:,} in {elapsed:.2f} s")


def bench_generation() -> None:
    states = corpus_states()
    best = float("inf")
    total = 0
    for _ in range(ROUNDS):
        began = time.perf_counter()
        total = sum(len(state.generated_moves()) for state in states)
        best = min(best, time.perf_counter() - began)
    per_position = best / len(states) * 1e6
    print(
        f"legal-move generation over {len(states):,} corpus positions (best of {ROUNDS}):"
        f" {per_position:.0f} µs per position, {total / best:,.0f} moves/s"
    )
    began = time.perf_counter()
    counted = sum(state.count_moves() for state in states)
    elapsed = time.perf_counter() - began
    print(
        f"move counting by popcount (perft's last ply): {elapsed / len(states) * 1e6:.0f} µs"
        f" per position, {counted / elapsed:,.0f} moves/s"
    )


if __name__ == "__main__":
    bench_perft()
    bench_generation()
