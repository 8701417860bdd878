"""Divisions with promotion and relegation between seasons.

Divisions are listed top first, each as its final standings (best first). The top
``promoted`` of every division but the first go up one division, the bottom ``relegated``
of every division but the last go down one. Players leaving the league are dropped
before the moves (so a leaver's place in the relegation zone goes to no one else: the
division simply keeps fewer players), and newcomers join the bottom division.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from service.tournament.core import PlayerId


def next_season(
    final_standings: Sequence[Sequence[PlayerId]],
    promoted: int = 1,
    relegated: int = 1,
    leaving: Collection[PlayerId] = (),
    newcomers: Sequence[PlayerId] = (),
) -> list[list[PlayerId]]:
    """Next season's divisions. Within one: those relegated from above, then those who
    stayed, then those promoted from below, each in last season's finishing order.

    >>> next_season([["a", "b", "c"], ["d", "e", "f"]])
    [['a', 'b', 'd'], ['c', 'e', 'f']]
    """
    if promoted < 0 or relegated < 0:
        raise ValueError("promotion and relegation counts cannot be negative")
    staying = [[p for p in division if p not in leaving] for division in final_standings]
    last = len(staying) - 1
    from_above: list[list[PlayerId]] = [[] for _ in staying]
    stayed: list[list[PlayerId]] = [[] for _ in staying]
    from_below: list[list[PlayerId]] = [[] for _ in staying]
    for index, division in enumerate(staying):
        up = promoted if index > 0 else 0
        down = relegated if index < last else 0
        if up + down > len(division):
            raise ValueError(
                f"division {index + 1} has {len(division)} players, "
                f"cannot promote {up} and relegate {down}"
            )
        stayed[index] = division[up : len(division) - down]
        if up:
            from_below[index - 1] = division[:up]
        if down:
            from_above[index + 1] = division[len(division) - down :]
    divisions = [a + s + b for a, s, b in zip(from_above, stayed, from_below, strict=True)]
    divisions[-1].extend(newcomers)
    return divisions
