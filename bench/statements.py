"""SQL statements per unit of work (issue 23): one API move of an alternating game, and one
sealed-turn resolution, counted on PostgreSQL with a ``before_cursor_execute`` listener.

Run from the project root (PostgreSQL as on CI, a fresh schema; no other process)::

    python3 bench/statements.py            # the counts
    python3 bench/statements.py --verbose  # and every statement, grouped by table
    python3 bench/statements.py --where    # and the project code that ran each one

(a) ``POST /api/v1/games/<id>/moves`` through the Flask app's test client, as the player to
move in an Epaminondas game whose players get every mail; after ``--warmup`` moves (caches
filled), ``--moves`` moves are counted one by one. Printed with and without the statements
run inside ``players.authenticate`` (the bearer token's lookup, which every API call needs).

(b) one due turn of an Elasta and of a Nelaxtam game (deadline passed, nobody sent orders, so
both seats get default orders), resolved the way the sweep's task does it:
``schedule.resolve_turns`` (task ``pbem.resolve_turns``) with that one turn; after one
resolution of each kind not counted, ``--games`` games per kind are counted.

Tasks queued by the counted work are dropped (no broker is written to), so only the web or
worker side of each unit is counted; the mail it queues is written to the outbox as usual. A
transaction's BEGIN/COMMIT are not cursor executions and are not counted.

With ``--verbose`` each statement is printed under the table it names first, numbered by its
place in the unit of work and marked ``[auth]`` when the token lookup ran it.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import harness

TABLE = re.compile(r'\b(?:FROM|INTO|UPDATE)\s+"?(\w+)"?', re.IGNORECASE)
ISSUE = {"move": (37, 8), "resolution": (40, 10)}
"""Issue 23's figures: (measured then, target)."""


def table_of(statement: str) -> str:
    found = TABLE.search(statement)
    return found.group(1) if found else statement.split(None, 1)[0].upper()


class Recorder:
    """Every statement the engine executes while ``counting``, with the phase it ran in."""

    def __init__(self) -> None:
        self.statements: list[tuple[str, str]] = []
        self.phase = "work"
        self.on = False
        self.where = False

    def listen(self, conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        if self.on:
            self.statements.append((self.phase, statement + (callers() if self.where else "")))

    def listen_to(self, engine: Any) -> None:
        from sqlalchemy import event

        event.listen(engine, "before_cursor_execute", self.listen)

    @contextmanager
    def counting(self) -> Iterator[list[tuple[str, str]]]:
        self.statements = []
        self.on = True
        try:
            yield self.statements
        finally:
            self.on = False

    def marking(self, phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function``, whose statements are recorded under ``phase``."""

        def marked(*args: Any, **kwargs: Any) -> Any:
            before, self.phase = self.phase, phase
            try:
                return function(*args, **kwargs)
            finally:
                self.phase = before

        return marked


def callers() -> str:
    """The project's frames that ran a statement, innermost last (``--where``)."""
    import traceback

    root = str(Path(__file__).resolve().parents[1])
    frames = [
        f"{Path(f.filename).relative_to(root)}:{f.lineno} {f.name}"
        for f in traceback.extract_stack()
        if f.filename.startswith(root) and "/bench/" not in f.filename
    ]
    return "\n        <- " + "\n        <- ".join(reversed(frames[-4:]))


def drop(name: str, args: tuple[Any, ...]) -> None:
    """The task port of this run: queued tasks go nowhere."""


def measure_moves(recorder: Recorder, warmup: int, moves: int) -> list[list[tuple[str, str]]]:
    from bench.move_api import playouts
    from service import db
    from service.app import create_app

    players = harness.add_players(2, notify="none")
    tokens = {pid: harness.token_for(pid) for pid in players}
    game_id = harness.new_game("epaminondas", players)
    harness.set_notify(players, "each")
    line = playouts([game_id], warmup + moves)[0]
    client = create_app(dispatch=drop).test_client()  # configures the database again
    recorder.listen_to(db.current().engine)
    counted = []
    for turn, (seat, text) in enumerate(line, 1):
        headers = {"Authorization": f"Bearer {tokens[players[seat]]}"}
        with recorder.counting() as statements:
            answer = client.post(
                f"/api/v1/games/{game_id}/moves",
                json={"turn": turn, "text": text},
                headers=headers,
            )
        if answer.status_code != 200:
            raise SystemExit(f"move {turn} {text!r}: {answer.status_code} {answer.text[:300]}")
        if turn > warmup:
            counted.append(list(statements))
    return counted


def measure_resolutions(recorder: Recorder, kind: str, games: int) -> list[list[tuple[str, str]]]:
    from sqlalchemy import update

    from service import db, schedule
    from service.models import Turn

    players = harness.add_players(2, notify="none")
    template = harness.new_game(kind, players)
    clones = harness.clone_games(template, [tuple(players)] * games)
    harness.set_notify(players, "each")
    database = db.current()
    with database.transaction() as session:
        past = schedule.utcnow().replace(microsecond=0)
        session.execute(update(Turn).where(Turn.resolved_at.is_(None)).values(deadline=past))
    counted = []
    for index, game_id in enumerate([template, *clones]):
        with recorder.counting() as statements:
            resolved = schedule.resolve_turns(database, [[game_id, 1]], past.isoformat())
        if resolved != 1:
            raise SystemExit(f"{kind} game {game_id}: turn 1 was not resolved")
        if index:  # the first of each kind fills the caches
            counted.append(list(statements))
    return counted


def summary(runs: list[list[tuple[str, str]]], without: str | None = None) -> str:
    counts = [sum(1 for phase, _ in run if phase != without) for run in runs]
    return (
        f"{statistics.median(counts):g} per unit (min {min(counts)}, max {max(counts)}, "
        f"{len(counts)} counted)"
    )


COLUMNS = re.compile(r"^(SELECT|INSERT INTO \w+) \(?([^()]*?)\)? (FROM|VALUES|SELECT)\b")


def shortened(statement: str) -> str:
    """The statement on one line, its column list replaced by how many columns it names."""
    text = " ".join(statement.split())
    return COLUMNS.sub(lambda m: f"{m[1]} <{m[2].count(',') + 1} columns> {m[3]}", text, 1)


def print_statements(title: str, run: list[tuple[str, str]]) -> None:
    """One unit's statements, grouped by the table each names first."""
    print(f"\n-- {title}: {len(run)} statements --")
    by_table: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for order, (phase, statement) in enumerate(run, 1):
        by_table[table_of(statement)].append((order, phase, statement))
    for table, rows in sorted(by_table.items(), key=lambda item: -len(item[1])):
        print(f"  {table} ({len(rows)})")
        for order, phase, statement in rows:  # order: its place in the unit of work
            text = shortened(statement)
            mark = " [auth]" if phase == "auth" else ""
            head, _, where = text.partition(" <- ")
            print(f"    {order:3d} {head[:150]}{'...' if len(head) > 150 else ''}{mark}")
            if where:
                print("        <- " + statement.split("\n        <- ", 1)[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=6, help="API moves counted")
    parser.add_argument("--warmup", type=int, default=2, help="API moves not counted first")
    parser.add_argument("--games", type=int, default=3, help="resolutions counted per kind")
    parser.add_argument("--verbose", action="store_true", help="print every statement")
    parser.add_argument("--where", action="store_true", help="and the code that ran it")
    args = parser.parse_args()

    with harness.service_env():
        from service import db, players

        recorder = Recorder()
        recorder.where = args.where
        # the statements of the bearer token's lookup are told apart as "auth"
        players.authenticate = recorder.marking("auth", players.authenticate)  # type: ignore[method-assign]
        moves = measure_moves(recorder, args.warmup, args.moves)
        resolutions = {
            kind: measure_resolutions(recorder, kind, args.games) for kind in ("elasta", "nelaxtam")
        }
        db.current().engine.dispose()  # the app's database, before its schema is dropped

    rows = [
        ("API move", summary(moves)),
        ("  without auth", summary(moves, without="auth")),
        ("  by table", ", ".join(f"{t} {n}" for t, n in by_table(moves[-1]).most_common())),
    ]
    for kind, runs in resolutions.items():
        rows += [
            (f"{kind} resolution", summary(runs)),
            ("  by table", ", ".join(f"{t} {n}" for t, n in by_table(runs[-1]).most_common())),
        ]
    rows.append(
        (
            "issue 23",
            "then {0} per move, {2} per resolution; targets <= {1} and <= {3}".format(
                *ISSUE["move"], *ISSUE["resolution"]
            ),
        )
    )
    harness.print_table("SQL statements per unit of work (PostgreSQL)", rows)
    if args.verbose or args.where:
        print_statements("the last API move counted", moves[-1])
        for kind, runs in resolutions.items():
            print_statements(f"the last {kind} resolution counted", runs[-1])


def by_table(run: list[tuple[str, str]]) -> Counter[str]:
    return Counter(table_of(statement) for _, statement in run)


if __name__ == "__main__":
    main()
