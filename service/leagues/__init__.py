"""Leagues and tournaments on top of the games: entries and invitations, rounds started by
the pure formats in ``service.tournament``, results recorded when a game ends, standings,
ratings, and the directors' tools with their audit log.

Modules: ``models`` (tables), ``leagues`` (creating, entries, rounds, the game-end hook),
``standings`` (database rows to the pure formats and standings), ``ratings`` (Glicko-2 and
OpenSkill per game and board size), ``director`` (TD tools, audit log), ``seasons`` (the
next season of divisions), ``mail`` (league mails), ``page`` (the public HTML page).
"""
