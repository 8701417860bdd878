"""Languages (issue 24, the foundation): the catalogs, text, dates and numbers in a locale,
templates rendered in the reader's locale, and the ``language`` preference by API, on the
settings page and by mail (through the gateway), defaulting to the first reply's language
or, on pages, the browser's."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import pytest
from babel.messages import pofile
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.plurals import get_plural
from flask import Flask
from sqlalchemy import select

from engine import EngineError, new_game
from service import i18n
from service.db import Database
from service.mail import gateway, language
from service.mail.links import settings_token
from service.mail.render import ENVIRONMENT as MAIL_ENVIRONMENT
from service.mail.smtpd import Listener
from service.models import Player
from tests.service.conftest import Client
from tests.service.gateway_kit import inbound, latest, make_game, reply, text_of
from tests.service.test_gateway_smtp import Sink, answer, sink, wired

__all__ = ["sink", "wired"]  # the SMTP sink and listener fixtures, used by name below

ROOT = Path(__file__).resolve().parents[2]
REFRESH = (
    "pybabel extract -F babel.cfg --sort-by-file -w 100 -o service/translations/messages.pot . "
    "&& pybabel update -i service/translations/messages.pot -d service/translations "
    "--no-fuzzy-matching --ignore-obsolete -w 100"
)
REFRESH_ENGINE = (
    "pybabel extract -F babel-engine.cfg --sort-by-file -w 100 "
    "-o service/translations/engine.pot . && pybabel update -D engine "
    "-i service/translations/engine.pot -d service/translations "
    "--no-fuzzy-matching --ignore-obsolete -w 100"
)
DOMAINS = {"messages": ("babel.cfg", REFRESH), "engine": ("babel-engine.cfg", REFRESH_ENGINE)}
"""Each gettext domain, its extraction map and how to refresh it (README, "Languages")."""
CATALOGS = {
    (code, domain): i18n.TRANSLATIONS / code / "LC_MESSAGES" / f"{domain}.po"
    for code in i18n.LANGUAGES
    for domain in DOMAINS
}
ALICE, BOB = "alice@example.org", "bob@example.org"
PLACEHOLDER_RE = re.compile(r"%\((\w+)\)[sdifr]|%[sdifr]|\{\w*(?:![rsa])?\}")
"""Python-format and Jinja's ``%(name)s``, and the engine's ``str.format`` ``{name}``."""


def read_catalog(path: Path, locale: str | None = None) -> pofile.Catalog:
    with path.open("rb") as source:
        return pofile.read_po(source, locale=locale)


def placeholders(text: str) -> set[str]:
    return {match.group(0) for match in PLACEHOLDER_RE.finditer(text)}


# -- the catalogs -------------------------------------------------------------------------


def test_nine_languages_are_supported_and_each_has_a_catalog() -> None:
    """Issue 24: en, de, fr, es, it, nl, pt, pl, ru, the languages the reader understands;
    each has a catalog of every domain (the service's ``messages``, the engine's ``engine``)."""
    assert i18n.LANGUAGES == ("en", "de", "fr", "es", "it", "nl", "pt", "pl", "ru")
    for (code, domain), path in CATALOGS.items():
        assert path.exists(), f"no {domain} catalog for {code}: {path}"
    assert i18n.domains() == list(DOMAINS)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_every_catalog_parses_is_complete_and_its_placeholders_agree(
    code: str, domain: str
) -> None:
    """Issue 24's catalog check: every .po of every domain parses, has every message of its
    template, no fuzzy or empty entry, the locale's plural rule (and as many forms), and each
    msgstr the placeholders of its msgid (python-format and Jinja's ``%(name)s``, the
    engine's ``{name}``)."""
    catalog = read_catalog(CATALOGS[code, domain], code)
    template = read_catalog(i18n.TRANSLATIONS / f"{domain}.pot")
    wanted = {message.id for message in template if message.id}
    refresh = DOMAINS[domain][1]
    assert {message.id for message in catalog if message.id} == wanted, f"update: {refresh}"
    assert catalog.plural_forms == get_plural(code).plural_forms
    for message in catalog:
        if not message.id:
            continue
        assert not message.fuzzy, f"{code}: fuzzy entry {message.id!r}"
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), f"{code}: no translation of {message.id!r}"
        if isinstance(message.id, tuple):
            assert len(strings) == get_plural(code).num_plurals, f"{code}: {message.id!r}"
        expected = set().union(*(placeholders(text) for text in ids))
        for text in strings:
            assert placeholders(text) == expected, f"{code}: {text!r} for {message.id!r}"
    assert not list(catalog.check()), f"{code}: {list(catalog.check())}"


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_template_is_up_to_date_with_the_code(domain: str) -> None:
    """What ``pybabel extract -F <map>`` finds in the code and templates is what the domain's
    ``.pot`` holds (refresh it with the README's commands, ``DOMAINS`` here): ``babel.cfg``
    for the service, ``babel-engine.cfg`` (``N_`` and ``Nn_:1,2`` over engine/) for the
    engine."""
    config_name, refresh = DOMAINS[domain]
    with (ROOT / config_name).open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    found = {
        message[2] if isinstance(message[2], str) else message[2][0]
        for message in extract_from_dir(str(ROOT), method_map, options_map)
    }
    template = read_catalog(i18n.TRANSLATIONS / f"{domain}.pot")
    assert found == {
        message.id if isinstance(message.id, str) else message.id[0]
        for message in template
        if message.id
    }, f"refresh: {refresh}"


def test_a_catalog_is_compiled_in_memory_and_english_translates_nothing() -> None:
    """No .mo is committed: the .po is compiled at first use (editable installs run no
    build step), once per process."""
    german = i18n.translations("de")
    assert german is i18n.translations("de")
    assert german.ugettext(language.HEADLINE) == "Sprache: %(language)s"
    assert i18n.gettext("en", language.HEADLINE, language="English") == "Language: English"
    assert i18n.gettext("xx", language.HEADLINE, language="?") == "Language: ?"
    assert i18n.gettext("de-AT", language.HEADLINE, language="Deutsch") == "Sprache: Deutsch"


# -- locale-aware text, dates and numbers -----------------------------------------------------


def test_translators_render_in_a_locale_for_the_engines_errors() -> None:
    """``EngineError.render(translate, ntranslate)`` takes these: one catalog holds both
    domains (the service's and the engine's, merged); a msgid in none stays English, in the
    right English plural form."""
    translate, ntranslate = i18n.translators("de")
    assert translate(language.HEADLINE) == "Sprache: %(language)s"
    assert translate("illegal move") == "unzulässiger Zug"
    assert ntranslate("{n} stone", "{n} stones", 2) == "{n} stones"


def test_dates_times_and_numbers_follow_the_locale_and_the_players_zone() -> None:
    moment = datetime(2026, 11, 26, 6, 30)  # naive: UTC, as stored
    assert i18n.format_datetime(moment, "de", "Europe/Berlin") == "26.11.2026, 07:30:00"
    assert i18n.format_datetime(moment, "en", "UTC").startswith("Nov 26, 2026")
    assert i18n.format_date(moment.date(), "fr") == "26 nov. 2026"
    assert i18n.format_decimal(1234.5, "de") == "1.234,5"
    assert i18n.format_decimal(1234.5, "en") == "1,234.5"
    assert i18n.format_decimal(1234.5, "ru") == "1\xa0234,5"


def test_plural_forms_follow_the_locale() -> None:
    """With no translation, English's two forms; each catalog states its own rule."""
    assert i18n.ngettext("en", "%(num)s move", "%(num)s moves", 1) == "1 move"
    assert i18n.ngettext("pl", "%(num)s move", "%(num)s moves", 5) == "5 moves"
    for domain in DOMAINS:
        assert "nplurals=3" in read_catalog(CATALOGS["pl", domain], "pl").plural_forms
        assert "nplurals=3" in read_catalog(CATALOGS["ru", domain], "ru").plural_forms


def test_language_codes_and_names_are_read() -> None:
    assert i18n.language_code("de") == i18n.language_code("DE-at") == "de"
    assert i18n.language_code("Deutsch") == i18n.language_code("german") == "de"
    assert i18n.language_code("русский") == "ru"
    assert i18n.language_code("klingon") is None
    assert i18n.language_name("pl") == "polski"


def test_locale_for_is_the_players_language_else_english() -> None:
    assert i18n.locale_for(Player(name="Jörg", language="de")) == "de"
    assert i18n.locale_for(Player(name="Ann", language=None)) == "en"
    assert i18n.locale_for(None) == "en"


# -- templates in the reader's locale ------------------------------------------------------------


def test_mail_templates_translate_in_the_readers_locale() -> None:
    """The mail environment has the i18n extension (new style): the context's ``locale``,
    else ``in_locale``'s, else English; English is the text as written."""
    template = MAIL_ENVIRONMENT.from_string(
        "{% trans language='Deutsch' %}Language: {{ language }}{% endtrans %}"
        " | {{ _('Language: %(language)s', language=name) }}"
    )
    assert template.render(name="English") == "Language: Deutsch | Language: English"
    assert template.render(name="Deutsch", locale="de") == "Sprache: Deutsch | Sprache: Deutsch"
    with i18n.in_locale("ru"):
        assert template.render(name="x").startswith("Язык: Deutsch")
        assert template.render(name="x", locale="en").startswith("Language: ")
    assert template.render(name="x").startswith("Language: ")


def test_mail_readers_get_their_locale_in_the_render_context(database: Database) -> None:
    """``notify.reader_context`` names the locale that ``locale_for`` picks."""
    from service.notify import reader_context

    with database.transaction() as session:
        player = Player(name="Jörg", language="de")
        assert reader_context(database.settings, player, "j@example.org")["locale"] == "de"
        player.language = None
        assert reader_context(database.settings, player, "j@example.org")["locale"] == "en"
        assert reader_context(database.settings, None, "j@example.org")["locale"] == "en"
        session.rollback()


def test_web_and_league_environments_have_the_extension(app: Flask) -> None:
    from service.leagues.page import ENVIRONMENT as LEAGUE_ENVIRONMENT

    source = "{{ _('Language: %(language)s', language='Nederlands') }}"
    assert LEAGUE_ENVIRONMENT.from_string(source).render(locale="nl") == "Taal: Nederlands"
    with app.test_request_context(headers={"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"}):
        from flask import render_template_string

        assert render_template_string(source) == "Idioma: Nederlands"
    with app.test_request_context(headers={"Accept-Language": "ja,zh;q=0.8"}):
        assert render_template_string(source) == "Language: Nederlands"


# -- the preference by API --------------------------------------------------------------------


def test_the_language_is_set_by_the_api_and_none_until_chosen(alice: Client) -> None:
    assert alice.ok("GET", "/players/me")["player"]["language"] is None
    assert alice.ok("PATCH", "/players/me", {"language": "fr"})["player"]["language"] == "fr"
    assert alice.ok("GET", "/players/me")["player"]["language"] == "fr"


def test_an_unknown_language_is_a_400_naming_the_valid_codes(alice: Client) -> None:
    for wrong in ("klingon", "DE", 7):
        response = alice.request("PATCH", "/players/me", json={"language": wrong})
        assert response.status_code == 400, response.get_data(as_text=True)
        message = response.get_json()["error"]["message"]
        assert "language" in message and "en, de, fr, es, it, nl, pt, pl, ru" in message
    assert alice.ok("GET", "/players/me")["player"]["language"] is None


def test_the_openapi_document_states_the_languages(anonymous: Client) -> None:
    document = anonymous.ok("GET", "/openapi.json")
    schemas = document["components"]["schemas"]
    preferences = next(s for name, s in schemas.items() if name.startswith("PreferencesIn"))
    field = preferences["properties"]["language"]
    assert set(field.get("enum") or field["anyOf"][0]["enum"]) == set(i18n.LANGUAGES)
    assert "language" in field.get("description", "")


# -- the settings page ------------------------------------------------------------------------


def settings_path(database: Database) -> tuple[str, int]:
    _game, _alice, bob = make_game(database, game="epaminondas")
    return f"/mail/{settings_token(database.settings.secret(), bob)}", bob


def language_of_player(database: Database, player_id: int) -> str | None:
    with database.transaction() as session:
        return session.get_one(Player, player_id).language


FORM = {"notify": "each", "own_copy": "short", "board_flip": "on", "board_text": "grid"}


def test_the_settings_page_offers_the_browsers_language_until_one_is_chosen(
    app: Flask, database: Database
) -> None:
    """On pages, a player with no language yet is offered the browser's (Accept-Language)."""
    path, bob = settings_path(database)
    client = app.test_client()
    page = client.get(path, headers={"Accept-Language": "de-AT,de;q=0.9,en;q=0.5"})
    text = page.get_data(as_text=True)
    assert '<option value="de" lang="de" selected>Deutsch</option>' in text
    assert "Noch nicht gewählt" in text  # the page speaks the browser's language too
    english = client.get(path, headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert '<option value="en" lang="en" selected>English</option>' in english
    assert language_of_player(database, bob) is None


def test_the_language_is_saved_on_the_settings_page(app: Flask, database: Database) -> None:
    path, bob = settings_path(database)
    client = app.test_client()
    saved = client.post(path, data={**FORM, "time_zone": "UTC", "language": "pl"})
    assert saved.status_code == 200
    assert '<option value="pl" lang="pl" selected>polski</option>' in saved.get_data(as_text=True)
    assert language_of_player(database, bob) == "pl"
    page = client.get(path, headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert 'value="pl" lang="pl" selected' in page and "Wybrałeś go sam." in page
    refused = client.post(path, data={**FORM, "time_zone": "UTC", "language": "xx"})
    assert refused.status_code == 400
    assert language_of_player(database, bob) == "pl"
    kept = client.post(path, data={**FORM, "time_zone": "UTC"})  # a form without the field
    assert kept.status_code == 200 and language_of_player(database, bob) == "pl"


# -- by mail, through the gateway ---------------------------------------------------------------


def send(database: Database, who: str, typed: str, game_id: int, shape: str = "plain") -> str:
    raw = reply(latest(database, who, game_id), who, typed, shape=shape)
    return inbound(database, gateway.receive(database, raw, "inject").id).status


def player_language(database: Database, address: str) -> str | None:
    with database.transaction() as session:
        player = session.scalar(select(Player).where(Player.emails.any(address=address)))
        assert player is not None
        return player.language


def test_a_german_players_language_de_gets_a_german_confirmation(database: Database) -> None:
    """Issue 24: ``Sprache de`` by mail sets the language, and the answer says so in German."""
    game_id, _, _ = make_game(database, game="epaminondas")
    assert send(database, BOB, "Sprache de", game_id) == "processed"
    assert player_language(database, BOB) == "de"
    answer = latest(database, BOB, game_id)
    assert "Sprache auf Deutsch umgestellt; ab jetzt schreiben wir dir in dieser Sprache" in (
        text_of(answer)
    )
    assert "Sprache: Deutsch" in str(answer["Subject"])


@pytest.mark.parametrize(
    ("typed", "code", "said"),
    [
        ("language fr", "fr", "nous vous écrivons en français"),
        ("idioma español", "es", "te escribimos en español"),
        ("lingua it", "it", "ti scriviamo in italiano"),
        ("taal nl", "nl", "schrijven we je in het Nederlands"),
        ("língua pt", "pt", "escrevemos para você em português"),
        ("język pl", "pl", "piszemy do Ciebie w tym języku"),
        ("язык ru", "ru", "мы пишем вам на этом языке"),
        ("Language: EN", "en", "from now on we write to you in this language"),
    ],
)
def test_each_language_is_confirmed_in_itself(
    database: Database, typed: str, code: str, said: str
) -> None:
    game_id, _, _ = make_game(database, game="epaminondas")
    assert send(database, BOB, typed, game_id) == "processed"
    assert player_language(database, BOB) == code
    assert said in text_of(latest(database, BOB, game_id))


def test_an_unknown_language_by_mail_is_answered_with_the_valid_list(database: Database) -> None:
    """Nothing changes; the answer lists the codes, in the language of the reply when the
    player has none yet."""
    game_id, _, _ = make_game(database, game="epaminondas")
    assert send(database, BOB, "Hallo,\nSprache klingonisch\nViele Grüße", game_id) == "rejected"
    text = text_of(latest(database, BOB, game_id))
    assert "in „klingonisch“ schreiben wir nicht; wähle eine dieser Sprachen:" in text
    assert language.choices("de") in " ".join(text.split())
    assert player_language(database, BOB) == "de"  # the reply's own language, by default
    game_id, _, _ = make_game(database, game="epaminondas")
    assert send(database, ALICE, "language xx", game_id) == "rejected"
    assert "we do not write in 'xx'; choose one of: en (English), de (Deutsch)" in " ".join(
        text_of(latest(database, ALICE, game_id)).split()
    )


def test_the_first_replys_language_is_taken_while_none_is_chosen(database: Database) -> None:
    """Defaulting: a move alone shows no language; the first reply that does sets it; a
    later reply in another language, or a chosen language, is not overridden."""
    game_id, _, _ = make_game(database, game="epaminondas")
    assert send(database, ALICE, "a1-a3", game_id) == "processed"
    assert player_language(database, ALICE) is None
    assert send(database, BOB, "Hallo Alice,\nMein Zug: a11-a10\nViele Grüße", game_id) == (
        "processed"
    )
    assert player_language(database, BOB) == "de"
    assert send(database, ALICE, "Bonjour,\nmon coup : b1-b3\nmerci", game_id) == "processed"
    assert player_language(database, ALICE) == "fr"
    send(database, ALICE, "Hi Bob,\nmy move: c1-c3\ncheers", game_id)  # not her turn: refused
    assert player_language(database, ALICE) == "fr"


@pytest.mark.integration
def test_through_the_smtp_listener_a_german_reply_gets_a_german_answer(
    sink: Sink, wired: tuple[Database, Listener]
) -> None:
    """Issue 24, through the real gateway: Bob's German reply (his first, so German becomes
    his language) reaches the SMTP listener; a ``Sprache`` line gets the German answer,
    delivered over SMTP."""
    database, listener = wired
    make_game(database, options={"pile": "7"})
    answer(sink, listener, ALICE, "take 2", "plain")
    answer(sink, listener, BOB, "Hallo Alice,\nSprache: Deutsch\nViele Grüße", "latin1")
    assert player_language(database, BOB) == "de"
    answered = sink.latest(BOB)
    assert "Sprache auf Deutsch umgestellt" in text_of(answered)
    assert "Sprache: Deutsch" in str(answered["Subject"])


# -- the engine's errors in the player's language -----------------------------------------------

ENGLISH_PLACEHOLDER = re.compile(r"\{\w+(?:![rsa])?\}")
ONE_ERROR_PER_GAME = {
    "epaminondas": "a1-a5",  # too far for a phalanx of 2 (a plural form)
    "anti-grid": "a1-a2",  # onto no point
    "elasta": "0147265",  # seven chips: a counted reason joined with others
    "elemento": "F@d4",  # a square of a colour the dice do not show
    "nelaxtam": "1:a1",  # the invasion places all five troops (lists valid orders)
}


def engine_error(game: str, text: str) -> EngineError:
    state = new_game(game).initial_state()
    while not state.to_act:  # Elemento opens with its seating draw and the dice
        state = state.apply_chance(state.chance_outcomes()[0]).state
    with pytest.raises(EngineError) as raised:
        state.play(state.to_act[0], state.parse(state.to_act[0], text))
    return raised.value


@pytest.mark.parametrize("game", ONE_ERROR_PER_GAME)
@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_an_error_of_each_game_renders_in_each_language(code: str, game: str) -> None:
    """Every template the error asks for (frame, label, reason, the words inside) has a
    translation; English stays the engine's text byte for byte; every other language differs
    from it and fills every placeholder."""
    error = engine_error(game, ONE_ERROR_PER_GAME[game])
    catalog = i18n.translations(code)
    asked: list[str] = []

    def translate(msgid: str) -> str:
        asked.append(msgid)
        return catalog.ugettext(msgid)

    def ntranslate(singular: str, plural: str, n: int) -> str:
        asked.append(singular)
        return catalog.ungettext(singular, plural, n)

    rendered = error.render(translate, ntranslate)
    assert rendered == error.render(*i18n.translators(code))
    if code == i18n.DEFAULT:
        assert rendered == str(error)
        return
    assert rendered != str(error), rendered
    assert not ENGLISH_PLACEHOLDER.search(rendered), rendered
    known = catalog._catalog  # type: ignore[attr-defined]
    untranslated = [
        msgid
        for msgid in asked
        if msgid not in known
        and (msgid, 0) not in known
        and not ENGLISH_PLACEHOLDER.fullmatch(msgid)  # "{item}": words, not a template
    ]
    assert not untranslated, untranslated
    assert error.rule is None or error.rule in rendered


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_the_valid_list_frames_agree_in_each_language(code: str) -> None:
    """The mail gateway finds the engine's "Valid here: ..." tail by the words between the
    message and the list: both frames (with and without "and N more") share them."""
    translate, ntranslate = i18n.translators(code)
    short = translate("{message}. Valid here: {shown}")
    separator = short.split("{message}", 1)[1].split("{shown}", 1)[0]
    for n in (1, 2, 5, 21):
        long = ntranslate(
            "{message}. Valid here: {shown} and {n} more",
            "{message}. Valid here: {shown} and {n} more",
            n,
        )
        assert long.startswith("{message}" + separator + "{shown}"), (code, long)


def test_a_german_players_illegal_move_by_api_gets_the_german_message(
    alice: Client, bob: Client
) -> None:
    """Issue 24: the engine's words in the caller's language; ``code`` and ``reason`` stay
    the same in every language; a caller with no language gets English."""
    data = {"game": "epaminondas", "seats": [alice.id, bob.id]}
    game = alice.ok("POST", "/games", data, status=201)["game"]
    path = f"/games/{game['id']}/moves"
    english = alice.request("POST", path, json={"turn": 1, "text": "a1-a5"}).get_json()["error"]
    assert english["message"] == (
        "illegal move 'a1-a5': the 2 stones a1-a2 move at most 2 squares (EPA-5)"
    )
    alice.ok("PATCH", "/players/me", {"language": "de"})
    response = alice.request("POST", path, json={"turn": 1, "text": "a1-a5"})
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["message"] == (
        "unzulässiger Zug 'a1-a5': die 2 Steine a1-a2 ziehen höchstens 2 Felder (EPA-5)"
    )
    assert (error["code"], error["reason"]) == (english["code"], english["reason"])
    assert error.get("rules") == english.get("rules")
    alice.ok("PATCH", "/players/me", {"language": "ru"})
    russian = alice.request("POST", path, json={"turn": 1, "text": "a1-a5"}).get_json()["error"]
    assert "2 камня a1-a2 ходят не дальше чем на 2 клетки (EPA-5)" in russian["message"]


def test_a_german_players_illegal_move_by_mail_is_answered_with_the_german_reason(
    database: Database,
) -> None:
    """Through the gateway: Alice chose German; her illegal move's error reply quotes the
    engine's reason in German, and a second error's "Valid here" list is given once."""
    game_id, _, _ = make_game(database, game="epaminondas")
    assert send(database, ALICE, "Sprache de", game_id) == "processed"
    assert send(database, ALICE, "a1-a5", game_id) == "rejected"
    text = " ".join(text_of(latest(database, ALICE, game_id)).split())
    assert "unzulässiger Zug 'a1-a5': die 2 Steine a1-a2 ziehen höchstens 2 Felder (EPA-5)" in (
        text
    )
    assert "the 2 stones" not in text


def test_the_mail_gateway_keeps_one_valid_list_in_the_readers_language() -> None:
    """Issue 21's one "Valid here" list, for errors in German too."""
    from service.mail.gateway import _one_valid_list

    first = "unzulässiger Zug 'x': nein. Hier gültig: a1-a2, b1-b2"
    second = "unzulässiger Zug 'y': auch nicht. Hier gültig: a1-a2, b1-b2"
    joined = _one_valid_list([first, second], "de")
    assert joined.count("Hier gültig") == 1 and joined.endswith("Hier gültig: a1-a2, b1-b2")


@pytest.mark.parametrize("code", i18n.LANGUAGES)
def test_a_text_in_both_domains_is_translated_alike(code: str) -> None:
    """The domains are merged into one catalog, so a msgid both hold ("none", "White") must
    mean the same in both, or one would silently win."""
    service = {m.id: m.string for m in read_catalog(CATALOGS[code, "messages"], code) if m.id}
    engine = {m.id: m.string for m in read_catalog(CATALOGS[code, "engine"], code) if m.id}
    differing = {key for key in service.keys() & engine.keys() if service[key] != engine[key]}
    assert not differing, f"{code}: {sorted(map(str, differing))}"


def test_a_conditional_moves_engine_error_is_in_the_players_language() -> None:
    """``if X then Y`` lines wrap the engine's refusal in where it was found; the engine's
    words follow the reader's language, and English is the message as before."""
    from service import conditional
    from service.errors import ServiceError

    state = new_game("epaminondas").initial_state()
    where = conditional._where("l12-l11", "a1-a5", 1)
    with pytest.raises(ServiceError) as raised:
        conditional._apply(state, 0, "a1-a5", where, conditional.YOUR_ANSWER)
    error = raised.value
    assert (
        error.localized("en")
        == error.message
        == (
            "in 'if l12-l11 then a1-a5' (level 2), your answer: illegal move 'a1-a5': the 2 "
            "stones a1-a2 move at most 2 squares (EPA-5)"
        )
    )
    assert error.localized("de") == (
        "in 'if l12-l11 then a1-a5' (Ebene 2), deine Antwort: unzulässiger Zug 'a1-a5': die 2 "
        "Steine a1-a2 ziehen höchstens 2 Felder (EPA-5)"
    )
    assert error.code == "illegal_move"
