"""Start-up time of ``pbem engine perft epaminondas --depth 1`` (target: under 0.2 s).

Run from the project root, or from any checkout given as the argument (to compare an older
tree)::

    python3 bench/cli_startup.py [TREE]

It runs the command ``RUNS`` times in fresh interpreters, and prints the median and best
wall time and the CPU time (user + system), next to a bare ``python3 -c pass`` for the
interpreter's own start-up. Bytecode is cached (in a temporary ``PYTHONPYCACHEPREFIX``,
after one warm-up run) as on an installed service, even where ``PYTHONDONTWRITEBYTECODE``
is set; ``--no-bytecode`` measures without.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 15
COMMAND = "from service.cli import main; main(['engine', 'perft', 'epaminondas', '--depth', '1'])"


def timed(code: str, cwd: Path, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """Wall times, and CPU times (user + system: what a loaded machine does not inflate)."""
    run = [sys.executable, "-c", code]
    subprocess.run(run, cwd=cwd, env=env, check=True, capture_output=True)  # warm-up
    walls, cpus = [], []
    for _ in range(RUNS):
        start, before = time.perf_counter(), os.times()
        subprocess.run(run, cwd=cwd, env=env, check=True, capture_output=True)
        after = os.times()
        walls.append(time.perf_counter() - start)
        cpus.append(
            after.children_user
            + after.children_system
            - before.children_user
            - before.children_system
        )
    return walls, cpus


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--no-bytecode"]
    tree = Path(args[0]) if args else Path(__file__).resolve().parents[1]
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        if "--no-bytecode" in sys.argv:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        for label, code in (("python3 -c pass", "pass"), ("pbem engine perft --depth 1", COMMAND)):
            walls, cpus = timed(code, tree, env)
            print(
                f"{label:<30} wall median {statistics.median(walls):.3f} s "
                f"best {min(walls):.3f} s; CPU median {statistics.median(cpus):.3f} s"
            )


if __name__ == "__main__":
    main()
