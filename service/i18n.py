"""Languages: the service's gettext catalogs (Babel), and text, dates and numbers in a locale.

The catalogs are ``service/translations/<lang>/LC_MESSAGES/<domain>.po``: ``messages`` for
the service's text (template ``messages.pot``, map ``babel.cfg``) and ``engine`` for the
engine's errors (``engine.pot``, map ``babel-engine.cfg``), merged per language; the README's
"Languages" section says how to extract, update and compile them. They are compiled at first
use, per process, from the ``.po`` into memory (:func:`translations`): an editable install
(``pip install -e .``, the README's commands) runs no build step that could leave ``.mo``
files where the code reads them, so the ``.po`` are the one source. A ``.mo`` beside its
``.po`` (``pybabel compile``) that is not older than it is read instead.

Nothing here is global request state: every function takes the locale, and
:func:`in_locale` sets the locale of the templates rendered inside it (a context variable:
per thread, per task), for callers that do not pass ``locale`` to the template. English is
the source language: an English catalog translates nothing, so English output is the text
the code and templates hold.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from babel import Locale, dates, numbers
from babel.messages import mofile, pofile
from babel.support import NullTranslations, Translations
from jinja2 import Environment, pass_context
from jinja2.runtime import Context

__all__ = [
    "DEFAULT",
    "ENGINE_DOMAIN",
    "LANGUAGES",
    "TRANSLATIONS",
    "best_of",
    "domains",
    "format_date",
    "format_datetime",
    "format_decimal",
    "gettext",
    "in_locale",
    "install",
    "language_code",
    "language_name",
    "locale_for",
    "ngettext",
    "translations",
    "translators",
]

LANGUAGES: tuple[str, ...] = ("en", "de", "fr", "es", "it", "nl", "pt", "pl", "ru")
"""The supported locales: the languages the reply reader understands (``mail/phrases.py``)."""
DEFAULT = "en"
TRANSLATIONS = Path(__file__).with_name("translations")
DOMAIN = "messages"
"""The service's own domain; the engine's errors are ``ENGINE_DOMAIN`` (``babel-engine.cfg``)."""
ENGINE_DOMAIN = "engine"

_current: ContextVar[str] = ContextVar("pbem_locale", default=DEFAULT)


def N_(message: str) -> str:
    """Marks a text for extraction where it is defined; it is translated where it is shown."""
    return message


def supported(code: str | None) -> str | None:
    """``code`` if it names a supported language (any case, ``de-AT`` and ``de_AT`` count as
    ``de``), else None."""
    if not code:
        return None
    base = code.strip().replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else None


@functools.cache
def translations(locale: str) -> NullTranslations:
    """The compiled catalog of ``locale`` (cached per process): every domain present in its
    folder (``messages``, the service's, and ``engine``, the engine's errors) merged into
    one, so one catalog serves all. English and anything not supported translate nothing."""
    code = supported(locale)
    if code is None or code == DEFAULT:
        return NullTranslations()
    folder = TRANSLATIONS / code / "LC_MESSAGES"
    merged: Translations | None = None
    for domain in domains(folder):
        catalog = _compiled(folder, code, domain)
        if merged is None:
            merged = catalog
        else:
            merged.merge(catalog)
    return merged if merged is not None else NullTranslations()


def domains(folder: Path = TRANSLATIONS / DEFAULT / "LC_MESSAGES") -> list[str]:
    """The gettext domains with a catalog (``.po`` or ``.mo``) in ``folder``, ``messages``
    first."""
    found = {path.stem for path in folder.glob("*.po")} | {
        path.stem for path in folder.glob("*.mo")
    }
    return sorted(found, key=lambda name: (name != DOMAIN, name))


def _compiled(folder: Path, code: str, domain: str) -> Translations:
    """One domain's catalog: its ``.mo`` while not older than its ``.po``, else the ``.po``
    compiled in memory."""
    po, mo = folder / f"{domain}.po", folder / f"{domain}.mo"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as compiled:
            return Translations(compiled, domain=domain)
    with po.open("rb") as source:
        catalog = pofile.read_po(source, locale=code, domain=domain)
    buffer = io.BytesIO()
    mofile.write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return Translations(buffer, domain=domain)


def gettext(locale: str, message: str, **values: Any) -> str:
    """``message`` in ``locale``, its ``%(name)s`` placeholders filled from ``values``."""
    text = translations(locale).ugettext(message)
    return text % values if values else text


def ngettext(locale: str, singular: str, plural: str, n: int, **values: Any) -> str:
    """The form of ``singular``/``plural`` for ``n`` in ``locale`` (its own plural rules);
    ``n`` is a placeholder too (``%(num)s``, as in Jinja's ``ngettext``)."""
    text = translations(locale).ungettext(singular, plural, n)
    return text % {"num": n, **values}


def translators(locale: str) -> tuple[Callable[[str], str], Callable[[str, str, int], str]]:
    """``gettext`` and ``ngettext`` of ``locale`` with no placeholder filling: what the
    engine's errors take to render in a language (``EngineError.render(translate,
    ntranslate)``: their templates are ``str.format`` ones, ``{name}``, filled by the engine)."""
    catalog = translations(locale)
    return catalog.ugettext, catalog.ungettext


def language_name(code: str, in_language: str | None = None) -> str:
    """The language's own name ("Deutsch"), or its name in ``in_language``."""
    return Locale.parse(code).get_display_name(in_language or code) or code


def language_code(text: str) -> str | None:
    """The supported language ``text`` names: a code (``de``, ``de-AT``) or a name in
    English or in the language itself (``German``, ``Deutsch``, ``français``); else None."""
    wanted = " ".join(text.split()).casefold()
    found = supported(wanted) if len(wanted) <= 5 else None
    if found is not None:
        return found
    for code in LANGUAGES:
        locale = Locale.parse(code)
        names = {locale.english_name, locale.get_display_name(code)}
        if wanted in {name.casefold() for name in names if name}:
            return code
    return None


def best_of(accepted: Any) -> str | None:
    """The supported language a browser asks for first (werkzeug's ``request.accept_languages``,
    whose ``best_match`` weighs ``de-AT;q=0.9`` and the like), else None."""
    match = accepted.best_match(LANGUAGES) if accepted else None
    if match is None:  # "de-AT" alone: best_match wants the exact tag or its parent
        for value, _quality in accepted or ():
            code = supported(value)
            if code is not None:
                return code
    return supported(match)


def locale_for(player: Any) -> str:
    """The locale to write to ``player`` in: their ``language``, or English when they chose
    none (or there is no player: the operator's mails)."""
    return supported(getattr(player, "language", None)) or DEFAULT


# -- dates, times and numbers ---------------------------------------------------------------


def format_datetime(
    moment: datetime, locale: str, zone: str | None = None, form: str = "medium"
) -> str:
    """``moment`` (naive means UTC, as the service stores times) for a reader in ``zone`` (a
    player's ``time_zone``), as ``locale`` writes dates and times."""
    tz = ZoneInfo(zone or "UTC")
    aware = moment if moment.tzinfo else moment.replace(tzinfo=ZoneInfo("UTC"))
    return dates.format_datetime(aware, form, tzinfo=tz, locale=_babel(locale))


def format_moment(moment: datetime, locale: str, zone: str | None = None) -> str:
    """``Sat 1 Mar 2025, 18:00 CET (Europe/Paris)``, ``Sa., 1. März 2025, 18:00 MEZ
    (Europe/Paris)``: a deadline as mails and pages show it, to the minute, with the
    weekday, in ``zone`` (naive means UTC)."""
    zone = zone or "UTC"
    aware = moment if moment.tzinfo else moment.replace(tzinfo=ZoneInfo("UTC"))
    local = aware.astimezone(ZoneInfo(zone))
    name = local.tzname() or zone
    where = "" if name == zone else f" ({zone})"
    if locale == DEFAULT:
        return f"{local:%a} {local.day} {local:%b %Y, %H:%M} {name}{where}"
    # the locale's own order and words for weekday, day, month and year; a 24-hour clock
    day = Locale.parse(_babel(locale)).datetime_skeletons["yMMMEd"].pattern
    return f"{format_datetime(aware, locale, zone, day + ', HH:mm')} {name}{where}"


def format_date(day: date, locale: str, form: str = "medium") -> str:
    return dates.format_date(day, form, locale=_babel(locale))


def format_decimal(number: float, locale: str) -> str:
    return numbers.format_decimal(number, locale=_babel(locale))


def _babel(locale: str) -> str:
    return supported(locale) or DEFAULT


# -- templates ------------------------------------------------------------------------------


@contextmanager
def in_locale(locale: str) -> Iterator[str]:
    """Render the templates inside in ``locale`` (unless a template's context names its own
    ``locale``)."""
    token = _current.set(supported(locale) or DEFAULT)
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def current() -> str:
    return _current.get()


def _locale_of(context: Context) -> str:
    given = context.get("locale")
    return (supported(given) if isinstance(given, str) else None) or _current.get()


@pass_context
def _template_gettext(context: Context, message: str) -> str:
    return translations(_locale_of(context)).ugettext(message)


@pass_context
def _template_ngettext(context: Context, singular: str, plural: str, n: int) -> str:
    return translations(_locale_of(context)).ungettext(singular, plural, n)


def install(environment: Environment) -> Environment:
    """Give ``environment`` ``{% trans %}``, ``_()`` and ``ngettext()`` (Jinja's i18n
    extension, new style: ``%(name)s`` filled and escaped by Jinja) in the locale of each
    render: the context's ``locale``, else :func:`in_locale`'s, else English."""
    environment.add_extension("jinja2.ext.i18n")
    environment.install_gettext_callables(  # type: ignore[attr-defined]
        _template_gettext, _template_ngettext, newstyle=True
    )
    environment.globals.update(
        format_datetime=_template_datetime,
        format_date=_template_date,
        format_decimal=_decimal,
        format_moment=_template_moment,
    )
    return environment


@pass_context
def _template_datetime(
    context: Context, moment: datetime, zone: str | None = None, form: str = "medium"
) -> str:
    return format_datetime(moment, _locale_of(context), zone, form)


@pass_context
def _template_moment(context: Context, iso: str, zone: str | None = None) -> str:
    """A stored ISO time (a game's ``deadline``) as :func:`format_moment` writes it."""
    return format_moment(datetime.fromisoformat(iso), _locale_of(context), zone)


@pass_context
def _template_date(context: Context, day: date, form: str = "medium") -> str:
    return format_date(day, _locale_of(context), form)


@pass_context
def _decimal(context: Context, number: float) -> str:
    return format_decimal(number, _locale_of(context))


def placeholders(text: str) -> Mapping[str, int]:
    """The ``%(name)s`` placeholders of ``text``, counted (the catalog check compares them)."""
    import re

    found: dict[str, int] = {}
    for name in re.findall(r"%\((\w+)\)[sdrf]", text):
        found[name] = found.get(name, 0) + 1
    return found


@dataclass(frozen=True)
class Said:
    """A text to say later in its reader's language: its catalog text (``N_``) and what
    fills its ``%(name)s`` placeholders (a value that is itself :class:`Said` is said in the
    same language). ``str()`` is its English, the text as the code holds it."""

    template: str
    values: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, template: str, **values: Any) -> Said:
        return cls(template, tuple(values.items()))

    def in_(self, locale: str) -> str:
        filled = {k: v.in_(locale) if isinstance(v, Said) else v for k, v in self.values}
        text = translations(locale).ugettext(self.template)
        return text % filled if filled else text

    def __str__(self) -> str:
        return self.in_(DEFAULT)
