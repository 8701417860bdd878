"""Deadlines: turn lengths, weekend skipping, time banks and vacations.

A game's time control (JSON, all fields optional)::

    {"days": 2, "skip_weekends": false, "forfeit_after": 3,
     "bank": {"initial_days": 10, "increment_days": 1, "max_days": 20}}

Sealed turns last ``days``; a seat that misses ``forfeit_after`` turns in a row forfeits
(0: never). Sequential moves get ``days`` each, or with ``bank`` the mover's remaining bank
(initial days, plus ``increment_days`` after each move, capped at ``max_days``); running out
loses on time. Weekends are Saturday and Sunday in UTC.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from service.errors import BadRequest
from service.i18n import N_

DEFAULT = {"days": 3.0, "skip_weekends": False, "forfeit_after": 3, "bank": None}
DAY = timedelta(days=1)


def normalise(given: Mapping[str, Any] | None) -> dict[str, Any]:
    """A complete time control from what a client sent; BadRequest names a bad field."""
    control = dict(DEFAULT)
    for key, value in (given or {}).items():
        if key not in DEFAULT:
            known = ", ".join(DEFAULT)
            raise BadRequest(
                N_("time_control has no field %(key)s; fields are %(fields)s"),
                values={"key": repr(key), "fields": known},
            )
        control[key] = value
    control["days"] = _positive(control["days"], "time_control.days")
    if not isinstance(control["skip_weekends"], bool):
        raise BadRequest(N_("time_control.skip_weekends must be true or false"))
    forfeit = control["forfeit_after"]
    if not isinstance(forfeit, int) or isinstance(forfeit, bool) or forfeit < 0:
        raise BadRequest(N_("time_control.forfeit_after must be a whole number, 0 for never"))
    if control["bank"] is not None:
        control["bank"] = _bank(control["bank"])
    return control


def _bank(bank: Any) -> dict[str, float]:
    if not isinstance(bank, Mapping):
        raise BadRequest(
            N_("time_control.bank must be an object with initial_days, increment_days")
        )
    initial = _positive(bank.get("initial_days"), "time_control.bank.initial_days")
    increment = _positive(bank.get("increment_days", 0), "time_control.bank.increment_days", True)
    cap = _positive(bank.get("max_days", initial), "time_control.bank.max_days")
    return {"initial_days": initial, "increment_days": increment, "max_days": max(cap, initial)}


def _positive(value: Any, name: str, zero: bool = False) -> float:
    """Days above 0 (at least 0 with ``zero``), at most ten years (the API's document says
    the same: ``service.api.schemas.TimeControl``)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or value < 0 or (value == 0 and not zero):
        raise BadRequest(
            N_("%(name)s must be a positive number of days, got %(given)s"),
            values={"name": name, "given": repr(value)},
        )
    if value > 3650:
        raise BadRequest(
            N_("%(name)s must be at most 3650 days, got %(given)s"),
            values={"name": name, "given": repr(value)},
        )
    return float(value)


def add_days(start: datetime, days: float, skip_weekends: bool = False) -> datetime:
    """``start`` plus ``days``; with ``skip_weekends`` Saturdays and Sundays do not count."""
    if not skip_weekends:
        return start + timedelta(days=days)
    remaining = timedelta(days=days)
    cursor = start
    while True:
        day_start = cursor.replace(hour=0, minute=0, second=0, microsecond=0)
        if cursor.weekday() >= 5:
            cursor = day_start + DAY
            continue
        left_today = day_start + DAY - cursor
        if remaining <= left_today:
            return cursor + remaining
        remaining -= left_today
        cursor = day_start + DAY


def vacation_end(vacations: list[tuple[datetime, datetime]], now: datetime) -> datetime | None:
    """When the leave running at ``now`` ends, or None."""
    ends = [end for start, end in vacations if start <= now < end]
    return max(ends) if ends else None
