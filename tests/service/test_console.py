"""Issue 22, point 4: sign-in by a mailed link (no password), a player's own page with a new
API token, and the director's console: stuck and late games first, players found, and every
director's action through a confirmation page into the audit log by the API's own functions.
(The same in Chromium, at phone widths: test_console_browser.py.)"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from service.console import sign_in
from service.db import Database
from service.leagues.models import AuditEntry
from service.mail.links import settings_token
from service.models import Outbox, Turn, utcnow
from tests.service.conftest import Client, new_player
from tests.service.mails import readable

LINK = re.compile(r"https?://\S+?(/sign-in/[\w.]+)")
CSRF = re.compile(r'name="csrf" value="([^"]+)"')
TESS = "tess@example.org"


@dataclass
class World:
    """A director (Tess) with a running league of four (sealed Duel games) and a game of her
    own outside it; an admin; a player."""

    tess: Client
    league_id: int
    league_games: list[int]
    own_game: int
    people: list[Client]


def make_world(admin: Client) -> World:
    made = admin.ok(
        "POST", "/players", {"name": "Tess", "emails": [TESS], "roles": ["td"]}, status=201
    )
    tess = Client(admin.client.application.test_client(), made["token"], made["player"])
    people = [new_player(admin, name) for name in ("Alice", "Bob", "Cyd", "Dee", "Eve")]
    data = {"name": "Autumn <Cup>", "game": "duel", "time_control": {"days": 2}}
    league_id = tess.ok("POST", "/leagues", data, status=201)["league"]["id"]
    tess.ok("POST", f"/leagues/{league_id}/players", {"players": [p.id for p in people[:4]]})
    for person in people[:4]:
        person.ok("POST", f"/leagues/{league_id}/accept")
    started = tess.ok("POST", f"/leagues/{league_id}/start")["league"]
    league_games = [g["game"] for g in started["rounds"][0]["games"] if g.get("game")]
    seats = {"game": "countdown", "seats": [people[4].id, people[0].id]}
    own = tess.ok("POST", "/games", {**seats, "time_control": {"days": 3}}, status=201)
    return World(tess, league_id, league_games, own["game"]["id"], people)


def move_deadline(database: Database, game_id: int, by: timedelta) -> None:
    """The open turn's deadline moved to now + ``by`` (the sweep does not run in tests, so a
    past deadline stays unresolved: a late or stuck game)."""
    with database.transaction() as session:
        turn = session.scalars(
            select(Turn).where(Turn.game_id == game_id, Turn.resolved_at.is_(None))
        ).one()
        turn.deadline = utcnow() + by


def csrf(page: str) -> str:
    found = CSRF.search(page)
    assert found, "the page has no form with a CSRF value"
    return found[1]


def ask_link(web: FlaskClient, address: str) -> Any:
    token = csrf(web.get("/sign-in").get_data(as_text=True))
    return web.post("/sign-in", data={"csrf": token, "address": address})


def sign_in_mails(database: Database, address: str) -> list[Outbox]:
    with database.transaction() as session:
        query = select(Outbox).where(Outbox.kind == "sign_in", Outbox.to_address == address)
        return list(session.scalars(query.order_by(Outbox.id)))


def mailed_link(database: Database, address: str) -> str:
    """The path of the sign-in link in the newest sign-in mail to ``address``."""
    found = LINK.search(readable(sign_in_mails(database, address)[-1]))
    assert found, "the sign-in mail carries no link"
    return found[1]


def signed_in(app: Flask, database: Database, address: str) -> FlaskClient:
    """A browser-like client signed in through the mailed link, as a person would."""
    web = app.test_client()
    ask_link(web, address)
    link = mailed_link(database, address)
    page = web.get(link).get_data(as_text=True)
    answer = web.post(link, data={"csrf": csrf(page)})
    assert answer.status_code == 303, answer.get_data(as_text=True)
    return web


def audit(database: Database) -> list[tuple[str, int | None, int | None, str, str]]:
    with database.transaction() as session:
        rows = session.scalars(select(AuditEntry).order_by(AuditEntry.id))
        return [(r.action, r.game_id, r.league_id, r.actor, r.reason) for r in rows]


def act(web: FlaskClient, path: str, data: dict[str, str]) -> tuple[str, Any]:
    """An action's form sent, then its confirmation page's form: (the sentence, the answer)."""
    token = csrf(web.get(path.rsplit("/", 1)[0]).get_data(as_text=True))
    review = web.post(path, data={"csrf": token, "step": "review", **data})
    page = review.get_data(as_text=True)
    assert review.status_code == 200, page
    sentence = re.search(r'<p id="sentence"><strong>(.*?)</strong>', page)
    assert sentence, page
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page))
    return sentence[1], web.post(path, data=hidden)


# -- signing in ---------------------------------------------------------------------------


def test_the_sign_in_page_answers_alike_for_known_and_unknown_addresses(
    app: Flask, database: Database, admin: Client
) -> None:
    make_world(admin)
    web = app.test_client()
    known = ask_link(web, " Tess@Example.org ").get_data(as_text=True)
    unknown = ask_link(web, "nobody@example.org").get_data(as_text=True)
    assert known.replace(TESS, "X") == unknown.replace("nobody@example.org", "X")
    assert "a sign-in link is on its way" in known
    assert [row.to_address for row in sign_in_mails(database, TESS)] == [TESS]
    assert sign_in_mails(database, "nobody@example.org") == []
    text = readable(sign_in_mails(database, TESS)[0])
    assert "Tess, here is your link to sign in" in text and "30 minutes" in text
    wrong = ask_link(web, "not an address")
    assert wrong.status_code == 400
    assert "\u201cnot an address\u201d is not an e-mail address" in wrong.get_data(as_text=True)


def test_sign_in_links_are_limited_per_address_and_the_page_does_not_say_so(
    app: Flask, database: Database, admin: Client
) -> None:
    make_world(admin)
    web = app.test_client()
    answers = {ask_link(web, TESS).get_data(as_text=True) for _ in range(sign_in.PER_HOUR + 2)}
    assert len(answers) == 1
    assert len(sign_in_mails(database, TESS)) == sign_in.PER_HOUR


def test_the_mailed_link_signs_in_by_a_post_and_a_get_changes_nothing(
    app: Flask, database: Database, admin: Client
) -> None:
    make_world(admin)
    web = app.test_client()
    ask_link(web, TESS)
    link = mailed_link(database, TESS)
    shown = web.get(link)
    assert shown.status_code == 200 and "Sign in as Tess" in shown.get_data(as_text=True)
    assert web.get("/console").status_code == 303  # a GET (a mail scanner) signs nobody in
    answer = web.post(link, data={"csrf": csrf(shown.get_data(as_text=True))})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/console")
    cookie = answer.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    console = web.get("/console")
    assert "Director's console" in console.get_data(as_text=True)
    assert console.headers["Cache-Control"] == "no-store"
    assert console.headers["X-Frame-Options"] == "DENY"
    out = web.post("/sign-out", data={"csrf": csrf(web.get("/me").get_data(as_text=True))})
    assert "You are signed out" in out.get_data(as_text=True)
    assert web.get("/console").status_code == 303


def test_a_link_signs_in_once_and_its_use_ends_the_older_links(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    secret = database.settings.secret()
    soon = int((utcnow() + timedelta(minutes=20)).timestamp())
    older = f"/sign-in/{sign_in.sign_in_token(secret, world.tess.id, soon)}"
    newer = f"/sign-in/{sign_in.sign_in_token(secret, world.tess.id, soon + 60)}"
    web = app.test_client()
    shown = web.get(newer).get_data(as_text=True)
    assert web.post(newer, data={"csrf": csrf(shown)}).status_code == 303
    web.post("/sign-out", data={"csrf": csrf(web.get("/me").get_data(as_text=True))})
    for used in (newer, older):
        again = web.get(used)
        assert again.status_code == 410
        assert "This sign-in link was used already" in again.get_data(as_text=True)
        check = csrf(web.get("/sign-in").get_data(as_text=True))
        assert web.post(used, data={"csrf": check}).status_code == 410
    assert web.get("/console").status_code == 303, "a used link signed someone in"


def test_an_expired_or_altered_link_is_refused_in_plain_words(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    secret = database.settings.secret()
    gone = int((utcnow() - timedelta(minutes=1)).timestamp())
    web = app.test_client()
    expired = web.get(f"/sign-in/{sign_in.sign_in_token(secret, world.tess.id, gone)}")
    assert expired.status_code == 410
    page = expired.get_data(as_text=True)
    assert "This sign-in link has expired" in page and "a link works for 30 minutes" in page
    ask_link(web, TESS)
    link = mailed_link(database, TESS)
    number, expires, tag = link.rsplit("/", 1)[1].split(".")
    for altered in (
        f"{world.people[0].id}.{expires}.{tag}",  # another player
        f"{number}.{int(expires) + 86400}.{tag}",  # a longer life
        f"{number}.{expires}.{tag[:-3]}",  # cut short
    ):
        answer = web.get(f"/sign-in/{altered}")
        assert answer.status_code == 400
        assert "This sign-in link does not work" in answer.get_data(as_text=True)
        assert web.post(f"/sign-in/{altered}", data={"csrf": "x"}).status_code == 400
    assert web.get("/console").status_code == 303


def test_a_form_without_the_session_check_value_does_nothing(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    web = signed_in(app, database, TESS)
    path = f"/console/games/{world.own_game}/pause"
    data = {"step": "confirm", "reason": "forged"}
    for forged in ({}, {"csrf": "not-the-one"}):
        answer = web.post(path, data={**data, **forged})
        assert answer.status_code == 400
        assert "This form is out of date" in answer.get_data(as_text=True)
    assert audit(database) == []


def test_the_session_cookie_is_secure_when_the_service_is_on_https(
    database: Database, admin: Client
) -> None:
    from service.app import create_app
    from tests.service.conftest import run_inline

    settings = replace(database.settings, public_url="https://pbem.example")
    app = create_app(settings, dispatch=run_inline)
    make_world(admin)
    web = app.test_client()
    ask_link(web, TESS)
    link = mailed_link(database, TESS)
    assert "https://pbem.example/sign-in/" in readable(sign_in_mails(database, TESS)[-1])
    answer = web.post(link, data={"csrf": csrf(web.get(link).get_data(as_text=True))})
    assert answer.status_code == 303 and "Secure" in answer.headers["Set-Cookie"]
    app.extensions["pbem.database"].engine.dispose()


def test_the_settings_page_button_mails_a_sign_in_link(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    alice = world.people[0]
    web = app.test_client()
    path = f"/mail/{settings_token(database.settings.secret(), alice.id)}"
    page = web.get(path).get_data(as_text=True)
    assert "Send me a sign-in link" in page and f'action="{path}/sign-in"' in page
    sent = web.post(path + "/sign-in")
    assert sent.status_code == 200
    assert "We mailed a sign-in link to alice@example.org" in sent.get_data(as_text=True)
    assert len(sign_in_mails(database, "alice@example.org")) == 1
    for _ in range(sign_in.PER_HOUR - 1):
        web.post(path + "/sign-in")
    refused = web.post(path + "/sign-in")
    assert refused.status_code == 429 and "Enough links for now" in refused.get_data(as_text=True)
    assert web.post("/mail/1.nottag/sign-in").status_code == 404


# -- a player's page and the API token ----------------------------------------------------


def test_a_new_api_token_is_shown_once_and_the_old_one_stops_working(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    alice = world.people[0]
    web = signed_in(app, database, "alice@example.org")
    mine = web.get("/me").get_data(as_text=True)
    assert f"/games/{world.own_game}" in mine and "Get a new API token" in mine
    ask = web.get("/me/token")
    assert "Confirm: replace my API token" in ask.get_data(as_text=True)
    assert alice.get("/players/me").status_code == 200  # asking changed nothing
    made = web.post("/me/token", data={"csrf": csrf(ask.get_data(as_text=True))})
    assert made.headers["Cache-Control"] == "no-store"
    token = re.search(r'id="token">(pbem_[\w-]+)<', made.get_data(as_text=True))
    assert token
    assert alice.get("/players/me").status_code == 401
    renewed = Client(alice.client, token[1], alice.player)
    assert renewed.ok("GET", "/players/me")["player"]["name"] == "Alice"


def test_a_player_who_directs_nothing_gets_a_friendly_403(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    web = signed_in(app, database, "alice@example.org")
    for path in ("/console", "/console/players?q=a", f"/console/games/{world.own_game}"):
        answer = web.get(path)
        assert answer.status_code == 403, path
        page = answer.get_data(as_text=True)
        assert "This page is for tournament directors" in page and "Alice" in page
    token = csrf(web.get("/me").get_data(as_text=True))
    path = f"/console/games/{world.own_game}/pause"
    for step in ("review", "confirm"):
        answer = web.post(path, data={"csrf": token, "step": step, "reason": "mine now"})
        assert answer.status_code == 403
    assert audit(database) == []


def test_another_director_sees_only_their_own_and_is_refused_the_rest(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    admin.ok(
        "POST",
        "/players",
        {"name": "Tom", "emails": ["tom@example.org"], "roles": ["td"]},
        status=201,
    )
    web = signed_in(app, database, "tom@example.org")
    page = web.get("/console").get_data(as_text=True)
    assert "No running games of yours" in page and "You direct no league" in page
    refused = web.get(f"/console/games/{world.league_games[0]}")
    assert refused.status_code == 403
    assert "Tom does not direct league" in refused.get_data(as_text=True)
    refused = web.get(f"/console/leagues/{world.league_id}")
    assert refused.status_code == 403


# -- the console --------------------------------------------------------------------------


def test_stuck_and_late_games_come_first_each_saying_why(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    stuck, late = world.league_games[1], world.own_game
    move_deadline(database, stuck, -timedelta(hours=3))
    move_deadline(database, late, -timedelta(minutes=5))
    web = signed_in(app, database, TESS)
    page = web.get("/console").get_data(as_text=True)
    order = [int(n) for n in re.findall(r'<tr data-game="(\d+)"', page)]
    assert order == [stuck, late, world.league_games[0]]
    assert f'data-game="{stuck}" data-flag="stuck"' in page
    assert f'data-game="{late}" data-flag="late"' in page
    assert "turn 1 was due 3 hours ago and is not resolved" in page
    assert "the deadline passed 5 minutes ago" in page
    assert "Autumn &lt;Cup&gt;" in page  # her league, escaped
    everyone = signed_in(app, database, "ada@example.org").get("/console")
    assert everyone.status_code == 200  # an admin sees every game
    listed = re.findall(r'<tr data-game="(\d+)"', everyone.get_data(as_text=True))
    assert len(listed) == 3


def test_players_are_found_by_name_or_address(
    app: Flask, database: Database, admin: Client
) -> None:
    make_world(admin)
    web = signed_in(app, database, TESS)
    by_name = web.get("/console/players?q=ali").get_data(as_text=True)
    assert "alice@example.org" in by_name and "bob@example.org" not in by_name
    by_address = web.get("/console/players?q=BOB@EXAMPLE").get_data(as_text=True)
    assert ">Bob</a>" in by_address
    nothing = web.get("/console/players?q=%25").get_data(as_text=True)
    assert "No player\u2019s name or address contains \u201c%\u201d" in nothing


def test_every_action_is_confirmed_then_done_by_the_api_function_into_the_audit_log(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    game, league = world.league_games[0], world.league_id
    alice, eve = world.people[0], world.people[4]
    web = signed_in(app, database, TESS)
    steps = [
        (
            f"/console/games/{game}/pause",
            {"reason": "in hospital"},
            f"Pause game {game} because in hospital",
        ),
        (
            f"/console/games/{game}/extend",
            {"days": "2", "reason": "postal strike"},
            f"Extend game {game} by 2 days because postal strike",
        ),
        (
            f"/console/games/{game}/resume",
            {"reason": "back home"},
            f"Resume game {game} because back home",
        ),
        (f"/console/games/{game}/process", {"reason": "both asked"}, f"Process game {game} now"),
        (
            f"/console/games/{game}/replace",
            {"player": str(alice.id), "by": "eve@example.org", "reason": "Alice is ill"},
            f"Replace Alice (player {alice.id}) in game {game} by Eve (player {eve.id}) because",
        ),
        (
            f"/console/games/{game}/result",
            {"result": "1-0", "forfeit": "time", "reason": "never moved"},
            f"Set the result of game {game} to 1-0, a loss on time because never moved",
        ),
        (
            f"/console/leagues/{league}/message",
            {"subject": "Round 2", "text": "Starts Monday."},
            f"Mail everyone in league {league} (Autumn &lt;Cup&gt;) the message \u201cRound 2",
        ),
        (
            f"/console/leagues/{league}/pause",
            {"reason": "holidays"},
            f"Pause league {league} (Autumn &lt;Cup&gt;) and its games because holidays",
        ),
        (
            f"/console/leagues/{league}/resume",
            {"reason": "holidays over"},
            f"Resume league {league}",
        ),
    ]
    for path, data, words in steps:
        sentence, answer = act(web, path, data)
        assert sentence.startswith(words), sentence
        assert answer.status_code == 303, answer.get_data(as_text=True)
        done = web.get(answer.headers["Location"]).get_data(as_text=True)
        assert f'id="done">Done: {sentence}.' in done
    expected = [
        ("pause_game", game, league, "Tess", "in hospital"),
        ("extend_deadline", game, league, "Tess", "postal strike"),
        ("resume_game", game, league, "Tess", "back home"),
        ("process_now", game, league, "Tess", "both asked"),
        ("replace_player", game, league, "Tess", "Alice is ill"),
        ("set_result", game, league, "Tess", "never moved"),
        ("message", None, league, "Tess", "Round 2"),
        ("pause_league", None, league, "Tess", "holidays"),
        ("resume_league", None, league, "Tess", "holidays over"),
    ]
    assert audit(database) == expected
    api_log = world.tess.ok("GET", f"/leagues/{league}/audit")["audit"]
    assert [entry["action"] for entry in api_log] == [row[0] for row in expected]


def test_a_refused_action_says_why_on_the_page_and_changes_nothing(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    game = world.own_game
    web = signed_in(app, database, TESS)
    _, answer = act(web, f"/console/games/{game}/resume", {"reason": "oops"})
    assert answer.status_code == 409
    assert f"Not done: game {game} is not paused." in answer.get_data(as_text=True)
    _, answer = act(web, f"/console/games/{game}/extend", {"days": "many", "reason": "x"})
    assert answer.status_code == 400
    assert "days must be a number of days from 0 to 365; got &#39;many&#39;" in answer.get_data(
        as_text=True
    )
    _, answer = act(web, f"/console/games/{game}/result", {"result": "5-5", "reason": "x"})
    assert answer.status_code == 422 and "cannot read the result" in answer.get_data(as_text=True)
    _, answer = act(web, f"/console/games/{game}/process", {"reason": "x"})
    assert answer.status_code == 409 and "has no sealed turn open" in answer.get_data(as_text=True)
    token = csrf(web.get(f"/console/games/{game}").get_data(as_text=True))
    empty = web.post(f"/console/games/{game}/pause", data={"csrf": token, "step": "review"})
    assert empty.status_code == 400
    assert "Fill in: Reason. Every director" in empty.get_data(as_text=True)
    replace = web.post(
        f"/console/games/{game}/replace",
        data={"csrf": token, "step": "review", "player": "1", "by": "no one", "reason": "x"},
    )
    assert replace.status_code == 200  # the confirmation names what was typed...
    _, answer = act(
        web, f"/console/games/{game}/replace", {"player": "1", "by": "no one", "reason": "x"}
    )
    assert answer.status_code == 400  # ...and the action says what is wrong with it
    assert "is neither a player number nor an e-mail address" in answer.get_data(as_text=True)
    _, answer = act(
        web, f"/console/games/{game}/replace", {"player": "1", "by": "9" * 12, "reason": "x"}
    )
    assert answer.status_code == 400 and "player numbers go up to" in answer.get_data(as_text=True)
    nul = web.post(
        f"/console/games/{game}/pause", data={"csrf": token, "step": "confirm", "reason": "a\x00"}
    )
    assert nul.status_code == 400 and "a NUL character" in nul.get_data(as_text=True)
    assert web.get("/console/players?q=a%00b").status_code == 200
    assert web.get("/console/games/99999").status_code == 404
    assert web.get("/console/games/abc").status_code == 404
    assert audit(database) == []
