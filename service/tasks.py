"""The names of the worker tasks, written once: the service queues them (``db.enqueue``), the
worker package registers them (``workers/tasks.py``) and beat schedules them (``workers/app.py``).

The values are the names on the wire, so they stay as they are while tasks already queued
under them may still be waiting in a broker.

>>> Task.SEND == "pbem.send"
True
"""

from __future__ import annotations

from enum import StrEnum


class Task(StrEnum):
    RESOLVE_TURN = "pbem.resolve_turn"
    """One due turn of one game: (game id, turn number, swept at)."""
    RESOLVE_TURNS = "pbem.resolve_turns"
    """A batch of due turns from one sweep: ([[game id, turn number], ...], swept at)."""
    SEND = "pbem.send"
    """One outbox row."""
    SEND_BATCH = "pbem.send_batch"
    """A list of outbox rows (``db.batch_as`` turns many SEND into these)."""
    SEND_WEBHOOK = "pbem.send_webhook"
    """One webhook delivery (``service/webhooks.py``)."""
    SWEEP = "pbem.sweep"
    """Beat: due turns, due reminders, unsent mail."""
    PROCESS_INBOUND = "pbem.process_inbound"
    """One stored inbound mail."""
    INBOUND_SWEEP = "pbem.inbound_sweep"
    """Beat: inbound mail stored but not processed."""
    IMAP_POLL = "pbem.imap_poll"
    """Beat, when an IMAP host is set: fetch new mail."""
    LEAGUE_ADVANCE = "pbem.league_advance"
    """One league: pair its next round when the current one is done."""
    LEAGUE_SWEEP = "pbem.league_sweep"
    """Beat: leagues that may advance."""
