"""README's two commands are what CI runs, in a fresh virtual environment."""

from __future__ import annotations

import ast
import contextlib
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", quick_start)


def test_ci_runs_readmes_test_command_exactly_as_written_in_a_bare_clone_and_fresh_venv() -> None:
    """Issue 22, point 1: in a clone of what is committed, in a new temporary folder (so no
    ../shared beside it), with a fresh venv; then the outside-material tests with it required."""
    run, test = readme_commands()
    assert run == "python3 -m pip install -e . && pbem run"
    assert "pytest" in test
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in ci.splitlines()]
    assert test in lines, "CI must run README's test command as written"
    steps = [
        "readme_tests_in_a_bare_clone() {",
        'local clone="$1/pbem"',
        'git clone --quiet "$PWD" "$clone"',
        'cd "$clone"',
        "fresh_venv",
        "source .venv/bin/activate",
        test,
        'outside="$(mktemp -d)"',
        'readme_tests_in_a_bare_clone "$outside" >"$outside/bare.log" 2>&1 &',
    ]
    at = [lines.index(step) for step in steps]
    assert at == sorted(at), "the test command must run in the bare clone's own fresh venv"
    assert "python3 -m venv .venv" in ci
    # This checkout's checks run beside it; a failure of either fails CI.
    required = "PBEM_REQUIRE_OUTSIDE_MATERIAL=1 python3 -m pytest --run-slow -m outside_material"
    assert lines.index("checks_in_this_checkout() {") < lines.index(required)
    assert lines.index("checks_in_this_checkout &") > at[-1]
    assert lines[-1] == '[ "$bare_status" -eq 0 ] && [ "$checks" -eq 0 ]'


def _requirement_name(requirement: str) -> str:
    return canonical(re.split(r"[\s\[<>=!~;(]", requirement.strip(), maxsplit=1)[0])


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    """Distributions the project declares (runtime and [dev]) and everything they require."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    todo = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    found: set[str] = set()
    while todo:
        name = _requirement_name(todo.pop())
        if name in found:
            continue
        found.add(name)
        with contextlib.suppress(metadata.PackageNotFoundError):  # checked where installed
            todo += [r for r in metadata.requires(name) or [] if "extra ==" not in r]
    return found


def imported_modules() -> set[str]:
    """Top-level modules imported anywhere in the tests (also inside functions)."""
    names = set()
    for path in [ROOT / "conftest.py", *(ROOT / "tests").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return names - sys.stdlib_module_names - {"engine", "service", "workers", "tests"}


def test_every_module_the_tests_import_is_declared() -> None:
    """A fresh venv installs only what pyproject declares ([dev] included): every third-party
    module a test imports must come from a declared distribution or one they require."""
    owners = metadata.packages_distributions()
    have = declared()
    missing = {
        module: owners.get(module, [module])
        for module in imported_modules()
        if not {canonical(dist) for dist in owners.get(module, [module])} & have
    }
    assert not missing, f"imported by tests but not declared in pyproject: {missing}"
