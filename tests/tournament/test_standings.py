"""Standings, tie-breaks, crosstable, JSON and CSV on hand-checked small events."""

from __future__ import annotations

import json

from service.tournament.core import Forfeit, Outcome, Pairing, PointsScheme, Result
from service.tournament.standings import (
    SWISS_TIEBREAKS,
    Tiebreak,
    standings,
    standings_csv,
    standings_json,
)


def game(first: str, second: str, round_no: int, outcome: Outcome) -> Result:
    return Result(Pairing(first, second, round_no, 1), outcome)


ROUND_ROBIN = [
    game("a", "d", 1, Outcome.FIRST_WON),
    game("b", "c", 1, Outcome.DRAW),
    game("d", "c", 2, Outcome.SECOND_WON),
    game("a", "b", 2, Outcome.SECOND_WON),
    game("b", "d", 3, Outcome.SECOND_WON),
    game("c", "a", 3, Outcome.SECOND_WON),
]


def test_round_robin_tiebreaks_by_hand() -> None:
    """Points: a 2 (beat d, c), b 1.5 (drew c, beat a), c 1.5 (drew b, beat d), d 1 (beat b).
    Head-to-head between the tied b and c: the draw, ½ each, so still tied.
    Sonneborn-Berger: b = ½·1.5 (c) + 1·2 (a) = 2.75; c = ½·1.5 (b) + 1·1 (d) = 1.75;
    a = 1·1 (d) + 1·1.5 (c) = 2.5; d = 1·1.5 (b) = 1.5. So b ranks above c.
    Buchholz: a = 1+1.5+1.5 = 4; b = 1.5+2+1 = 4.5; c = 1.5+1+2 = 4.5; d = 2+1.5+1.5 = 5.
    Median Buchholz drops the best and worst opponent: 1.5 for everyone."""
    tiebreaks = (
        Tiebreak.HEAD_TO_HEAD,
        Tiebreak.SONNEBORN_BERGER,
        Tiebreak.BUCHHOLZ,
        Tiebreak.MEDIAN_BUCHHOLZ,
    )
    rows = standings(["a", "b", "c", "d"], ROUND_ROBIN, tiebreaks=tiebreaks)
    assert [(r.rank, r.player, r.points) for r in rows] == [
        (1, "a", 2.0),
        (2, "b", 1.5),
        (3, "c", 1.5),
        (4, "d", 1.0),
    ]
    assert [dict(r.tiebreaks) for r in rows] == [
        {"head_to_head": 0.0, "sonneborn_berger": 2.5, "buchholz": 4.0, "median_buchholz": 1.5},
        {"head_to_head": 0.5, "sonneborn_berger": 2.75, "buchholz": 4.5, "median_buchholz": 1.5},
        {"head_to_head": 0.5, "sonneborn_berger": 1.75, "buchholz": 4.5, "median_buchholz": 1.5},
        {"head_to_head": 0.0, "sonneborn_berger": 1.5, "buchholz": 5.0, "median_buchholz": 1.5},
    ]


def test_head_to_head_decides_before_sonneborn_berger() -> None:
    """Points: e 2.5 (beat f, drew g, beat h), f 1 (beat g), g 1 (drew e, drew h),
    h 0.5. f and g tie on 1 and f beat g, so head-to-head puts f ahead although g's
    Sonneborn-Berger is higher (g = ½·2.5 + ½·0.5 = 1.5; f = 1·1 = 1)."""
    results = [
        game("e", "f", 1, Outcome.FIRST_WON),
        game("f", "g", 2, Outcome.FIRST_WON),
        game("g", "e", 3, Outcome.DRAW),
        game("g", "h", 4, Outcome.DRAW),
        game("e", "h", 5, Outcome.FIRST_WON),
    ]
    rows = standings(["g", "f", "e", "h"], results)
    assert [r.player for r in rows] == ["e", "f", "g", "h"]
    assert [dict(r.tiebreaks) for r in rows[1:3]] == [
        {"head_to_head": 1.0, "sonneborn_berger": 1.0, "wins": 1.0},
        {"head_to_head": 0.0, "sonneborn_berger": 1.5, "wins": 0.0},
    ]


SWISS_WITH_BYES = [
    game("p1", "p2", 1, Outcome.FIRST_WON),
    game("p3", "p4", 1, Outcome.DRAW),
    Result.bye(Pairing("p5", None, 1, 3)),
    game("p5", "p1", 2, Outcome.SECOND_WON),
    Result.forfeited_by(Pairing("p2", "p3", 2, 2), "p3", Forfeit.TIME),
    Result.bye(Pairing("p4", None, 2, 3)),
]


def test_swiss_tiebreaks_with_byes_and_forfeits_by_hand() -> None:
    """Points (bye = 1): p1 2, p4 ½+1 = 1.5, p2 0+1 = 1, p5 1+0 = 1, p3 ½+0 = 0.5.
    Buchholz (byes add nothing): p1 = p2 1 + p5 1 = 2; p2 = p1 2 + p3 0.5 = 2.5;
    p3 = p4 1.5 + p2 1 = 2.5; p4 = p3 0.5; p5 = p1 2. Median Buchholz with two
    opponents drops both: 0. Sonneborn-Berger: p1 = 1 + 1 = 2; p2 = 0.5 (forfeit win
    over p3); p3 = ½·1.5 = 0.75; p4 = ½·0.5 = 0.25; p5 = 0.
    p2 and p5 tie on 1; Buchholz 2.5 > 2 puts p2 ahead."""
    rows = standings(["p1", "p2", "p3", "p4", "p5"], SWISS_WITH_BYES, tiebreaks=SWISS_TIEBREAKS)
    assert [(r.player, r.points, dict(r.tiebreaks)) for r in rows] == [
        ("p1", 2.0, {"buchholz": 2.0, "median_buchholz": 0, "sonneborn_berger": 2.0}),
        ("p4", 1.5, {"buchholz": 0.5, "median_buchholz": 0, "sonneborn_berger": 0.25}),
        ("p2", 1.0, {"buchholz": 2.5, "median_buchholz": 0, "sonneborn_berger": 0.5}),
        ("p5", 1.0, {"buchholz": 2.0, "median_buchholz": 0, "sonneborn_berger": 0.0}),
        ("p3", 0.5, {"buchholz": 2.5, "median_buchholz": 0, "sonneborn_berger": 0.75}),
    ]
    p3 = rows[-1]
    assert (p3.played, p3.losses, p3.forfeit_losses, p3.byes) == (2, 1, 1, 0)


def test_points_scheme_three_one_zero_and_forfeit_penalty() -> None:
    scheme = PointsScheme(win=3, draw=1, loss=0, bye=0, forfeit_loss=-1)
    rows = standings(["p1", "p2", "p3", "p4", "p5"], SWISS_WITH_BYES, scheme, tiebreaks=())
    assert {r.player: r.points for r in rows} == {
        "p1": 6,
        "p2": 3,
        "p3": 0,
        "p4": 1,
        "p5": 0,
    }


def test_json_is_serialisable_and_carries_the_crosstable() -> None:
    rows = standings(["a", "b", "c", "d"], ROUND_ROBIN)
    document = json.loads(json.dumps(standings_json(rows, ROUND_ROBIN)))
    assert document["tiebreaks"] == ["head_to_head", "sonneborn_berger", "wins"]
    assert document["rows"][1]["player"] == "b"
    assert document["rows"][1]["results"] == {"c": ["½"], "a": ["1"], "d": ["0"]}


def test_csv_has_one_crosstable_column_per_rank() -> None:
    rows = standings(["a", "b", "c", "d"], ROUND_ROBIN)
    assert standings_csv(rows, ROUND_ROBIN) == (
        "rank,player,points,head_to_head,sonneborn_berger,wins,won,drawn,lost,1,2,3,4\n"
        "1,a,2,0,2.5,2,2,0,1,x,0,1,1\n"
        "2,b,1.5,0.5,2.75,1,1,1,1,1,x,½,0\n"
        "3,c,1.5,0.5,1.75,1,1,1,1,0,½,x,1\n"
        "4,d,1,0,1.5,1,1,0,2,0,1,0,x\n"
    )


def test_csv_marks_forfeits() -> None:
    rows = standings(["p2", "p3"], SWISS_WITH_BYES[4:5])
    assert standings_csv(rows, SWISS_WITH_BYES[4:5]).splitlines()[1:] == [
        "1,p2,1,0,0,1,1,0,0,x,+",
        "2,p3,0,0,0,0,0,0,1,-,x",
    ]
