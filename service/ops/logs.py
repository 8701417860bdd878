"""One line per log record, in text or JSON (``PBEM_LOG_FORMAT=json``), for every process:
web, workers and beat (Celery's own logging setup is replaced), the command line.

A failure is one line: the message, then the exception's type and words, never a traceback
spread over many lines (``PBEM_LOG_TRACEBACKS=1`` appends the traceback, still on the line,
for debugging).
"""

from __future__ import annotations

import json
import logging
import os
import traceback
from datetime import UTC, datetime
from typing import Any

MARK = "_pbem_handler"


def _error(record: logging.LogRecord) -> str | None:
    if not record.exc_info or record.exc_info[1] is None:
        return None
    error = record.exc_info[1]
    text = f"{type(error).__name__}: {error}"
    if os.environ.get("PBEM_LOG_TRACEBACKS") == "1":
        text += " | " + "".join(traceback.format_exception(error))
    return " ".join(text.split())


class OneLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        at = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="seconds")
        line = f"{at} {record.levelname} {record.name}: {record.getMessage()}"
        error = _error(record)
        return " ".join((f"{line} | {error}" if error else line).split())


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "at": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        error = _error(record)
        if error:
            entry["error"] = error
        return json.dumps(entry, ensure_ascii=False)


def formatter(kind: str | None = None) -> logging.Formatter:
    kind = kind or os.environ.get("PBEM_LOG_FORMAT", "text")
    return JsonLines() if kind.strip().lower() == "json" else OneLine()


def setup(kind: str | None = None, level: int = logging.INFO) -> None:
    """Our one handler on the root logger (set up again: replaced, never doubled)."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, MARK, False)]:
        root.removeHandler(handler)
    handler = logging.StreamHandler()
    setattr(handler, MARK, True)
    handler.setFormatter(formatter(kind))
    root.addHandler(handler)
    root.setLevel(level)


def celery_setup(loglevel: Any = None, **_: Any) -> None:
    """Celery's ``setup_logging`` signal: connecting it stops Celery's own configuration;
    the worker's ``--loglevel`` still applies."""
    level = logging.getLevelName(loglevel) if isinstance(loglevel, str) else loglevel
    setup(level=level if isinstance(level, int) else logging.INFO)
