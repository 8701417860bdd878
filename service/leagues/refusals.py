"""The league service's refusals in the caller's language (issue 24).

A refusal is raised in English, as before, and keeps its English ``message``; the API
(``app.py``, ``g.caller_locale``) and the mail gateway ask :meth:`ServiceError.localized`
for it in a player's language, which translates the marked text first and fills in the
values after, so ids, names and what the caller sent stay as they were.
"""

from __future__ import annotations

from typing import Any, TypeVar

from service.errors import ServiceError

Refusal = TypeVar("Refusal", bound=ServiceError)


def refused(kind: type[Refusal], message: str, code: str | None = None, **values: Any) -> Refusal:
    """``kind`` saying ``message`` (a text marked with ``N_`` where it is written, its
    ``%(name)s`` placeholders filled from ``values``), translated when localized: the same as
    ``kind(message, code, values=values)``, which is how the rest of the service says it."""
    return kind(message, code, values=values or None)
