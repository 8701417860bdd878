"""Answering a league invitation by replying to it, on a real database with tasks run inline:
the invitation's Reply-To is the player's signed league address; a reply saying accept or
decline goes through the league service and is confirmed once; a forged address, a game's
address, a stranger or a duplicate delivery changes nothing (more)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from sqlalchemy import func, select

from service import players
from service.db import Database
from service.leagues import director, leagues
from service.leagues.mail import forfeit_line, game_in_words, players_line, scoring_line
from service.leagues.models import Entry, League
from service.mail import gateway
from service.mail.addresses import (
    LEAGUE_PURPOSE,
    LEAGUE_VERSION,
    PURPOSE,
    VERSION,
    _tag,
    _varint,
    make_league_address,
)
from service.mail.models import InboundMessage
from tests.service.gateway_kit import game_row, latest, mails, make_game, reply, text_of
from tests.service.test_gateway_flow import send

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"


def invite(database: Database, *addresses: str) -> int:
    """A league by Tess with these addresses invited (each mailed an invitation)."""
    with database.transaction() as session:
        td = players.by_address(session, "td@example.org")
        if td is None:
            td, _ = players.create(
                session, None, {"name": "Tess", "emails": ["td@example.org"], "roles": ["td"]}
            )
        league = leagues.create(session, td, {"name": "Autumn <Cup>", "game": "countdown"})
        leagues.invite(session, league.id, td, {"players": list(addresses)})
        return league.id


def status_of(database: Database, league_id: int, address: str) -> str:
    with database.transaction() as session:
        player = players.by_address(session, address)
        assert player is not None
        query = select(Entry.status).where(
            Entry.league_id == league_id, Entry.player_id == player.id
        )
        return str(session.scalar(query))


def league_address(database: Database, league_id: int, address: str) -> str:
    settings = database.settings
    with database.transaction() as session:
        player = players.by_address(session, address)
        assert player is not None
        player_id = player.id
    return make_league_address(settings.secret(), settings.mail_domain, league_id, player_id)


def test_the_invitation_asks_for_a_reply_and_its_reply_to_names_the_league(
    database: Database,
) -> None:
    league_id = invite(database, ALICE)
    invitation = latest(database, ALICE)
    assert str(invitation["Reply-To"]) == league_address(database, league_id, ALICE)
    text = " ".join(text_of(invitation).split())
    assert "reply to this mail with accept" in text and "decline" in text


@pytest.mark.parametrize("typed", ["accept", "Yes!", "Hi Tess,\njoin\nThanks"])
def test_accept_by_reply(database: Database, typed: str) -> None:
    league_id = invite(database, ALICE)
    row = send(database, reply(latest(database, ALICE), ALICE, typed, shape="gmail"))
    assert row.status == "processed", row.result
    assert row.result == f"league {league_id}: invitation accepted"
    assert status_of(database, league_id, ALICE) == "active"
    [confirmation] = mails(database, ALICE, "league_answer")
    assert "invitation accepted" in confirmation.subject
    answer = latest(database, ALICE)
    assert str(answer["Reply-To"]) == league_address(database, league_id, ALICE)
    assert str(answer["Auto-Submitted"]) == "auto-replied"
    assert not mails(database, ALICE, "error_reply")


@pytest.mark.parametrize("typed", ["decline", "No."])
def test_decline_by_reply_and_change_of_mind(database: Database, typed: str) -> None:
    league_id = invite(database, ALICE)
    row = send(database, reply(latest(database, ALICE), ALICE, typed))
    assert row.status == "processed" and "declined" in (row.result or "")
    assert status_of(database, league_id, ALICE) == "declined"
    confirmation = latest(database, ALICE)
    assert "Reply accept to this mail" in " ".join(text_of(confirmation).split())
    row = send(database, reply(confirmation, ALICE, "accept"))
    assert row.status == "processed" and status_of(database, league_id, ALICE) == "active"


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("", "no answer"),
        ("accept\ndecline", "both accept and decline"),
        ("maybe next time", "could not read 'maybe next time'"),
        ("take 1", "could not read 'take 1'"),
        ("resign", "could not read 'resign'"),
    ],
)
def test_anything_but_one_clear_answer_gets_one_error_reply(
    database: Database, typed: str, why: str
) -> None:
    league_id = invite(database, ALICE)
    row = send(database, reply(latest(database, ALICE), ALICE, typed))
    assert row.status == "rejected" and why in (row.result or "")
    assert status_of(database, league_id, ALICE) == "invited"
    [error] = mails(database, ALICE, "error_reply")
    answer = latest(database, ALICE)
    assert "reply with accept" in " ".join(text_of(answer).split())
    assert str(answer["Reply-To"]) == league_address(database, league_id, ALICE)
    assert error.kind == "error_reply" and not mails(database, ALICE, "league_answer")


def test_an_answer_after_the_start_is_refused_with_the_reason(database: Database) -> None:
    league_id = invite(database, ALICE, BOB, CAROL)
    for address in (BOB, CAROL):
        assert send(database, reply(latest(database, address), address, "yes")).status == (
            "processed"
        )
    invitation = latest(database, ALICE)
    with database.transaction() as session:
        leagues.start(session, league_id, None)
    row = send(database, reply(invitation, ALICE, "accept"))
    assert row.status == "rejected" and "entries are closed" in (row.result or "")
    assert status_of(database, league_id, ALICE) == "expired"
    assert "entries are closed" in " ".join(text_of(latest(database, ALICE)).split())


def test_a_forged_league_address_changes_nothing(database: Database) -> None:
    league_id = invite(database, ALICE)
    real = league_address(database, league_id, ALICE)
    local, _, domain = real.partition("@")
    forged = local[:-3] + ("aaa" if not local.endswith("aaa") else "bbb") + "@" + domain
    row = send(database, reply(None, ALICE, "accept", to=forged))
    assert row.status == "rejected" and "not issued by us" in (row.result or "")
    assert status_of(database, league_id, ALICE) == "invited"


def test_a_token_signed_for_the_other_purpose_is_refused(database: Database) -> None:
    """A league payload under a game tag, or a game payload under a league tag, made with
    the server's real secret, is refused as not ours; nothing changes in the league or game."""
    league_id = invite(database, ALICE)
    game_id, alice, _ = make_game(database)
    secret = database.settings.secret()
    # varints, as the real addresses are: ids pass 255 on a long-lived test database
    league_payload = bytes([LEAGUE_VERSION]) + _varint(league_id) + _varint(alice)
    game_payload = bytes([VERSION]) + b"".join(_varint(n) for n in (game_id, alice, 1))
    for blob in (
        league_payload + _tag(secret, league_payload, PURPOSE),
        game_payload + _tag(secret, game_payload, LEAGUE_PURPOSE),
    ):
        token = base64.b32encode(blob).decode().rstrip("=").lower()
        to = f"play+{token}@{database.settings.mail_domain}"
        row = send(database, reply(None, ALICE, "accept", to=to))
        assert row.status == "rejected" and "not issued by us" in (row.result or "")
    assert status_of(database, league_id, ALICE) == "invited"
    assert game_row(database, game_id)["turn"] == 1
    assert not mails(database, ALICE, "league_answer")


def test_accept_on_a_game_address_is_a_game_matter(database: Database) -> None:
    """'accept' sent to a game's address is read by the game (there is no draw to accept)."""
    league_id = invite(database, ALICE)
    game_id, _, _ = make_game(database)
    row = send(database, reply(latest(database, ALICE, game_id), ALICE, "accept"))
    assert row.status == "rejected" and "league" not in (row.result or "")
    assert status_of(database, league_id, ALICE) == "invited"


def test_a_foreign_sender_changes_nothing_and_learns_nothing(database: Database) -> None:
    league_id = invite(database, ALICE)
    row = send(database, reply(latest(database, ALICE), CAROL, "accept"))
    assert row.status == "rejected" and "not one of your addresses" in (row.result or "")
    assert status_of(database, league_id, ALICE) == "invited"
    assert mails(database, CAROL) == []  # never answered: anyone can write any From
    told = text_of(latest(database, ALICE))
    assert CAROL in told and "not one of your addresses" in told


def test_machine_mail_to_the_league_address_is_ignored(database: Database) -> None:
    league_id = invite(database, ALICE)
    before = len(mails(database, ALICE))
    raw = reply(latest(database, ALICE), ALICE, "yes", headers={"Auto-Submitted": "auto-replied"})
    row = send(database, raw)
    assert row.status == "ignored" and len(mails(database, ALICE)) == before
    assert status_of(database, league_id, ALICE) == "invited"


def test_a_duplicate_delivery_answers_once(database: Database) -> None:
    league_id = invite(database, ALICE)
    raw = reply(latest(database, ALICE), ALICE, "accept")
    first = gateway.receive(database, raw, "smtp")
    again = gateway.receive(database, raw, "imap")
    assert again == gateway.Received(first.id, True)
    assert gateway.process(database, first.id) == "processed"
    assert status_of(database, league_id, ALICE) == "active"
    assert len(mails(database, ALICE, "league_answer")) == 1
    with database.transaction() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 1


# -- issue 21, point 7: what the invitation says, and answers in prose ----------------------


def test_the_invitation_states_game_players_forfeits_and_scoring_and_no_token_route(
    database: Database,
) -> None:
    """issue 21, point 7: the invitation omitted board size, forfeit rule, scoring and the
    number of players, and offered new invitees an API route needing a token they never got."""
    with database.transaction() as session:
        td, _ = players.create(
            session, None, {"name": "Tess", "emails": ["td@example.org"], "roles": ["td"]}
        )
        data = {
            "name": "Spring League",
            "game": "epaminondas",
            "options": {"board": "14x12"},
            "scoring": {"win": 3, "draw": 1, "loss": 0},
            "time_control": {"days": 2},
        }
        league = leagues.create(session, td, data)
        leagues.invite(session, league.id, td, {"players": [ALICE, BOB, CAROL]})
    invitation = latest(database, CAROL)
    text = " ".join(text_of(invitation).split())
    assert "a round robin of Epaminondas on a 14×12 board, with the anti-copy rule." in text
    assert "Players: 3 so far (0 accepted, 3 invited); 2 in each game." in text
    assert "Time control: 2 days a turn." in text
    assert (
        "Forfeits: a move not made by its deadline loses the game on time, a forfeit; a player "
        "who withdraws loses their remaining games by forfeit." in text
    )
    assert (
        "Scoring: a win 3 points, a draw 1 point, a loss 0 points, a bye 1 point, a loss by "
        "forfeit 0 points." in text
    )
    assert "board=" not in text and "14x12" not in text
    assert "/api/" not in text and "token" not in text.lower()
    html = invitation.get_body(("html",))
    assert html is not None
    page = " ".join(html.get_content().split())
    assert "/api/" not in page and "Epaminondas on a 14×12 board" in page
    assert "reply to this mail with <strong>accept</strong>" in page


@pytest.mark.parametrize(
    "typed",
    [
        "Yes, count me in!",
        "yes please",
        "count me in",
        "I'm in",
        "I\N{RIGHT SINGLE QUOTATION MARK}m in!",
        "Hi Tess,\n\nYes \N{EM DASH} count me in.\n\nCheers,\nAlice",
        "Sure, sounds fun",
        "Count me in!\nLooking forward to it.",
    ],
)
def test_a_prose_yes_accepts(database: Database, typed: str) -> None:
    """issue 21, point 7: "Yes, count me in!" was refused though move replies accept prose."""
    league_id = invite(database, ALICE)
    row = send(database, reply(latest(database, ALICE), ALICE, typed, shape="gmail"))
    assert row.status == "processed", row.result
    assert row.result == f"league {league_id}: invitation accepted"
    assert status_of(database, league_id, ALICE) == "active"
    assert not mails(database, ALICE, "error_reply")


@pytest.mark.parametrize(
    "typed", ["no thanks", "No, sorry, not this time", "No thank you.", "Count me out"]
)
def test_a_prose_no_declines(database: Database, typed: str) -> None:
    """issue 21, point 7: declines in prose are read as declines."""
    league_id = invite(database, ALICE)
    row = send(database, reply(latest(database, ALICE), ALICE, typed))
    assert row.status == "processed", row.result
    assert status_of(database, league_id, ALICE) == "declined"


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("Yes, but only if it starts in May", "('but' leaves the answer open)"),
        ("count me in?", "('count me in?' asks rather than answers)"),
        ("Yes, I resign", "('resign' is a command of a game, not an answer)"),
        ("Looking forward to it", "we found no answer, accept or decline, in your reply"),
    ],
)
def test_an_unreadable_prose_answer_is_quoted_with_what_is_valid(
    database: Database, typed: str, why: str
) -> None:
    """issue 21, point 7: a clear answer for replies that cannot be read: what was read, why,
    and the answers that are valid; nothing changes."""
    league_id = invite(database, ALICE)
    row = send(database, reply(latest(database, ALICE), ALICE, typed))
    assert row.status == "rejected" and why in (row.result or "")
    assert status_of(database, league_id, ALICE) == "invited"
    answer = " ".join(text_of(latest(database, ALICE)).split())
    assert why in answer
    assert f"'{typed}'" in answer
    assert "reply with accept (or yes, or join, or count me in)" in answer
    assert "decline (or no, or no thanks)" in answer


WORDS = [
    ("epaminondas", {"board": "14x12", "anti_copy": "on"}, 2,
     "Epaminondas on a 14×12 board, with the anti-copy rule"),
    ("epaminondas", {"board": "8x8", "anti_copy": "off"}, 2,
     "Epaminondas on an 8×8 board, without the anti-copy rule"),
    ("nelaxtam", {"size": "8", "sea": "1", "variant": "quiet"}, 2,
     "Nelaxtam on an 8×8 board, 1 troop arriving by sea, the quiet variant (one troop acts a "
     "turn)"),
    ("anti-grid", {"board": "small", "chain": "on"}, 2,
     "Anti-Grid on the small board (12×12, 11 pawns each), with chain captures"),
    ("elemento", {"dice": "turned"}, 4,
     "Elemento for 4 players, the dice turned after each turn (ELE-16)"),
    ("elasta", {}, 2, "Elasta"),
]  # fmt: skip


@pytest.mark.parametrize(("game", "options", "seats", "words"), WORDS)
def test_the_game_and_its_options_in_words(
    game: str, options: dict[str, str], seats: int, words: str
) -> None:
    """issue 21, point 7: "Epaminondas on a 14×12 board", never ``board=14x12``."""
    assert game_in_words(game, options, seats) == words


def terms(**fields: Any) -> League:
    base: dict[str, Any] = {
        "game": "epaminondas",
        "options": {"board": "14x12", "anti_copy": "on"},
        "seats": 2,
        "format": "round_robin",
        "settings": {"withdrawal": "forfeit"},
        "scoring": {"win": 1.0, "draw": 0.5, "loss": 0.0, "bye": 1.0, "forfeit_loss": 0.0},
        "time_control": {"days": 3.0, "skip_weekends": False, "forfeit_after": 3, "bank": None},
    }
    return League(**{**base, **fields})


def test_the_forfeit_rule_and_scoring_follow_the_league() -> None:
    """issue 21, point 7: sealed games forfeit after missed turns, alternating ones on time;
    knockout and tables score as their formats do."""
    sealed = terms(game="nelaxtam", options={}, time_control={"forfeit_after": 2})
    assert forfeit_line(sealed).startswith(
        "missing the deadline of 2 turns in a row forfeits the game"
    )
    bank = terms(time_control={"forfeit_after": 3, "bank": {"initial_days": 10}})
    assert forfeit_line(bank).startswith("a player whose time bank runs out loses the game")
    expunge = terms(settings={"withdrawal": "expunge"})
    assert forfeit_line(expunge).endswith(
        "a player who withdraws leaves the standings with all their games"
    )
    knockout = terms(format="knockout", settings={"draw_rule": "higher_seed"})
    assert scoring_line(knockout) == (
        "knockout: the winner of each game goes on, the loser is out; a drawn game goes to "
        "the higher seed"
    )
    tables = terms(game="elemento", options={"dice": "rolled"}, seats=4, format="tables")
    assert scoring_line(tables).startswith("1 point for each player you finish ahead of")
    assert players_line(tables) == "0 so far (0 accepted); 3 or 4 at each table"


# -- issue 24: a player's league mails in their own language ---------------------------------


def test_a_german_player_gets_the_invitation_and_its_answers_in_german(
    database: Database,
) -> None:
    """Alice reads German: the invitation and the confirmations of her answers (German
    words, as the invitation asks for them) are German, and so is a director's message."""
    with database.transaction() as session:
        alice, _ = players.create(session, None, {"name": "Alice", "emails": [ALICE]})
        players.update(session, alice, {"language": "de"})
    league_id = invite(database, ALICE, BOB)
    invitation = latest(database, ALICE)
    text = " ".join(text_of(invitation).split())
    assert str(invitation["Subject"]) == (
        f"[pbem league #{league_id}] Tess lädt dich zu Autumn <Cup> ein"
    )
    assert "Alice, Tess lädt dich zur Liga Autumn <Cup> ein: ein Rundenturnier in" in text
    assert "Spieler: bisher 1 (0 zugesagt, 1 eingeladen); 2 pro Partie." in text
    assert "Bedenkzeit: 3 Tage pro Zug." in text
    assert "Wertung: Sieg 1 Punkt, Remis ½ Punkt, Niederlage 0 Punkte" in text
    assert "über der Markierungszeile annehmen" in text and "invites you" not in text
    assert "invites you to the league" in " ".join(text_of(latest(database, BOB)).split())

    row = send(database, reply(invitation, ALICE, "Hallo Tess,\n\nAnnehmen\n\nGruß, Alice"))
    assert row.status == "processed", row.result
    assert status_of(database, league_id, ALICE) == "active"
    [accepted] = mails(database, ALICE, "league_answer")
    assert accepted.subject == f"[pbem league #{league_id}] Autumn <Cup>: Einladung angenommen"
    confirmation = latest(database, ALICE)
    text = " ".join(text_of(confirmation).split())
    assert "Alice, du hast die Einladung zur Liga Autumn <Cup> angenommen" in text
    assert "Antworte auf diese Mail mit ablehnen" in text

    row = send(database, reply(confirmation, ALICE, "Nein danke"))
    assert row.status == "processed" and status_of(database, league_id, ALICE) == "declined"
    assert "Einladung abgelehnt" in mails(database, ALICE, "league_answer")[-1].subject
    text = " ".join(text_of(latest(database, ALICE)).split())
    assert "Antworte auf diese Mail mit annehmen" in text

    send(database, reply(latest(database, ALICE), ALICE, "ja"))
    with database.transaction() as session:
        td = players.by_address(session, "td@example.org")
        director.message(session, league_id, td, {"subject": "Runde 1", "text": "Viel Glück!"})
    message = " ".join(text_of(latest(database, ALICE)).split())
    assert "Alice, eine Nachricht von Tess, Turnierleitung der Liga Autumn <Cup>:" in message
    assert "Seite der Liga: " in message
