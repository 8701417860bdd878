"""Pure tournament logic: pairings, standings, divisions and ratings.

No database, no I/O, no randomness: the service stores entrants and results and asks a
format for the next round. Every two-player format has the same interface
(``next_round(entrants, results, withdrawn) -> list[Pairing] | None``, ``None`` once the
event is over), so the service drives round robin, Swiss and knockout alike; multiplayer
tables (``tables.MultiplayerTables``) follow the same shape with ``Table``/``TableResult``.
"""
