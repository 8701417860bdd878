"""Issue 24: the director's console in the director's language. Its pages, its action forms,
the confirmation, the answer (done or refused) and its times are in the signed-in player's
``language``, else in the browser's (``Accept-Language``), else in English (English pages:
test_console.py)."""

from __future__ import annotations

import re
from datetime import timedelta

from flask import Flask

from service.db import Database
from tests.service.conftest import Client
from tests.service.test_console import (
    TESS,
    act,
    ask_link,
    mailed_link,
    make_world,
    move_deadline,
    signed_in,
)


def test_a_german_director_sees_the_console_and_the_answers_to_an_action_in_german(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    world.tess.ok("PATCH", "/players/me", {"language": "de"})
    stuck, game = world.league_games[1], world.league_games[0]
    move_deadline(database, stuck, -timedelta(hours=3))
    web = signed_in(app, database, TESS)
    web.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr"  # her own choice wins over the browser's
    page = web.get("/console").get_data(as_text=True)
    assert '<html lang="de">' in page
    assert "<h1>Turnierleiter-Konsole</h1>" in page and "<h2>Laufende Partien</h2>" in page
    assert '<span class="flag flag-stuck">hängt</span>' in page
    assert "Zug 1 war vor 3 Stunden fällig und ist nicht ausgewertet" in page
    assert "<h2>Deine Ligen</h2>" in page and "Turnierleiter-Konsole" in page
    assert re.search(r"\d\d\.\d\d\.\d{4}, \d\d:\d\d UTC", page), "a German date"
    assert "Sign out" not in page and "Tess abmelden" in page

    desk = web.get(f"/console/games/{game}").get_data(as_text=True)
    assert f"<h1>Partie {game}: " in desk
    assert "<legend>Frist verlängern</legend>" in desk and "Zusätzliche Tage" in desk
    assert "Grund (kommt ins Prüfprotokoll)" in desk
    assert "Orders due" not in desk  # the game's status line is the engine's, in German too

    sentence, answer = act(web, f"/console/games/{game}/pause", {"reason": "im Krankenhaus"})
    assert sentence == f"Partie {game} anhalten, weil im Krankenhaus"
    done = web.get(answer.headers["Location"]).get_data(as_text=True)
    assert f'id="done">Erledigt: Partie {game} anhalten, weil im Krankenhaus.' in done
    assert "angehalten seit" in done or "Frist:" in done

    _, refused = act(web, f"/console/games/{world.own_game}/resume", {"reason": "hoppla"})
    assert refused.status_code == 409
    text = refused.get_data(as_text=True)
    assert f"Nicht getan: Partie {world.own_game} ist nicht angehalten." in text

    token = re.search(r'name="csrf" value="([^"]+)"', desk)
    assert token
    empty = web.post(f"/console/games/{game}/extend", data={"csrf": token[1], "step": "review"})
    assert "Bitte ausfüllen: Zusätzliche Tage, Grund. " in empty.get_data(as_text=True)

    players = web.get("/console/players?q=zz").get_data(as_text=True)
    assert "Kein Spielername und keine Adresse enthält „zz“." in players


def test_a_director_without_a_language_reads_the_console_in_the_browsers_russian(
    app: Flask, database: Database, admin: Client
) -> None:
    world = make_world(admin)
    late = world.own_game
    move_deadline(database, late, -timedelta(minutes=2))
    web = app.test_client()
    web.environ_base["HTTP_ACCEPT_LANGUAGE"] = "ru-RU,ru;q=0.9,en;q=0.5"
    sent = ask_link(web, TESS).get_data(as_text=True)
    assert "<h1>Войти</h1>" in sent and "ссылка для входа уже отправлена" in sent
    link = mailed_link(database, TESS)
    button = web.get(link).get_data(as_text=True)
    assert "<h1>Войти как Tess</h1>" in button
    token = re.search(r'name="csrf" value="([^"]+)"', button)
    assert token and web.post(link, data={"csrf": token[1]}).status_code == 303

    page = web.get("/console").get_data(as_text=True)
    assert '<html lang="ru">' in page and "<h1>Консоль директора</h1>" in page
    assert '<span class="flag flag-late">опаздывает</span> срок истёк 2 минуты назад' in page

    league = world.league_id
    sentence, answer = act(web, f"/console/leagues/{league}/pause", {"reason": "праздники"})
    assert sentence == (
        f"Поставить на паузу лигу {league} (Autumn &lt;Cup&gt;) и её партии, потому что праздники"
    )
    done = web.get(answer.headers["Location"]).get_data(as_text=True)
    assert f'id="done">Сделано: {sentence}.' in done

    _, again = act(web, f"/console/leagues/{league}/pause", {"reason": "ещё раз"})
    assert again.status_code == 409
    assert "Не сделано: " in again.get_data(as_text=True)

    token = re.search(r'name="csrf" value="([^"]+)"', done)
    assert token
    signed_out = web.post("/sign-out", data={"csrf": token[1]}).get_data(as_text=True)
    assert (
        "<h1>Вы вышли</h1>" in signed_out and "Вы вышли из системы в этом браузере." in signed_out
    )
