"""Issue 23: the task names are written once, in ``service.tasks.Task``; the worker registers
every one of them under its unchanged name and beat schedules only those."""

from __future__ import annotations

import re
from pathlib import Path

from service.tasks import Task

ROOT = Path(__file__).resolve().parents[2]


def test_the_worker_registers_every_task_under_its_name() -> None:
    import workers.tasks  # noqa: F401  (registers the tasks)
    from workers.app import celery

    registered = {name for name in celery.tasks if name.startswith("pbem.")}
    assert registered == {str(task) for task in Task}


def test_beat_schedules_named_tasks() -> None:
    from workers.app import celery

    scheduled = {entry["task"] for entry in celery.conf.beat_schedule.values()}
    assert scheduled <= set(Task) and Task.SWEEP in scheduled


def test_no_module_spells_a_task_name_out() -> None:
    names = "|".join(re.escape(str(task)) for task in Task)
    pattern = re.compile(rf"[\"']({names})[\"']")
    spelled = [
        str(path.relative_to(ROOT))
        for folder in ("service", "workers")
        for path in (ROOT / folder).rglob("*.py")
        if path != ROOT / "service" / "tasks.py"
        if pattern.search(path.read_text())
    ]
    assert spelled == []
