# mypy: disable-error-code="valid-type,assignment,arg-type"
# (types here are made by calls, as pydantic allows; a field left out defaults to None without
# the type saying null, so that the document does not say null is allowed where it is not)
"""The shapes of ``/api/v1``: one pydantic model per request body and per success body.

These models are the single source of truth: the JSON gate (``service.api.gate``) validates
every request body with them, and ``service.openapi`` writes the OpenAPI document from their
JSON Schema, so the document states exactly the limits the gate enforces (lengths, ranges,
enums, required fields, no NUL in any text). The service layer still checks meaning (a move
is legal, a player exists, a turn has not moved on) and answers in its own words.

Request models are strict (an integer is an integer, ``"1"`` is not) and refuse unknown
fields. Bodies that depend on the game (``POST /games``, ``POST /leagues``) are one model per
game of the catalog, chosen by ``"game"``: each states that game's options with their values
and its player counts; they are built when first asked for, once the games are registered.
Response models describe what the routes send (more fields may be added later: clients
must ignore fields they do not know).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Annotated, Any, ClassVar, Literal, Union
from zoneinfo import available_timezones

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    WrapValidator,
    create_model,
    model_validator,
)
from pydantic_core import PydanticCustomError

import engine
from service.i18n import LANGUAGES, N_
from service.models import BOARD_TEXT, NOTIFY, OWN_COPY, ROLES, WEBHOOK_EVENTS, WEBHOOK_FORMATS
from service.players import EMAIL_PATTERN

MAX_ID = 2**31 - 1
MAX_INTEGER = 2**31 - 1
"""Every integer column is a PostgreSQL ``INTEGER``."""

# -- patterns: ECMA-262 in the document, the same regex (Rust's) in pydantic ------------------

SPACE = r"\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\x1c-\x1f"
"""What ``str.strip()`` removes (Unicode White_Space, plus the four separators Python adds)
and ECMA-262's BOM, spelled out: ``\\s`` differs between the document's regex dialect
(ECMA-262: no U+0085, but U+FEFF) and pydantic's (Rust: U+0085, no U+FEFF), and the two
must agree on every character."""
NO_NUL = r"^[^\x00]*$"
NOT_BLANK = rf"^[^\x00]*[^{SPACE}\x00][^\x00]*$"
TRIMMED = rf"^[^{SPACE}\x00]([^\x00]*[^{SPACE}\x00])?$"
EMAIL = EMAIL_PATTERN  # the service's own check (``service.players``)
RESULT = rf"^[{SPACE}]*(1-0|0-1|1/2-1/2|draw|[0-9]+(-[0-9]+)+)[{SPACE}]*$"
DATE_TIME = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)
PATTERNS = {
    NO_NUL: N_("a text without NUL characters"),
    NOT_BLANK: N_("a text that is not blank (and has no NUL characters)"),
    TRIMMED: N_("a text with no spaces at either end (and no NUL characters)"),
    EMAIL: N_("an e-mail address such as ada@example.org (ASCII letters, digits, punctuation)"),
    RESULT: N_("1-0, 0-1, 1/2-1/2, draw, or places such as 1-3-2"),
    DATE_TIME: N_("an ISO 8601 date and time with a time zone, e.g. 2030-01-31T12:00:00Z"),
}
"""How an error message says what a pattern wants (``service.api.gate``)."""


def text(max_length: int, description: str = "", pattern: str = NO_NUL, min_length: int = 0) -> Any:
    """A string of at most ``max_length`` characters matching ``pattern``."""
    return Annotated[
        str,
        Field(
            min_length=min_length or None,
            max_length=max_length,
            pattern=pattern,
            description=description or None,
        ),
    ]


def not_blank(max_length: int, description: str = "") -> Any:
    return text(max_length, description, NOT_BLANK, min_length=1)


def _ranged(kind: str, low: float, high: float, above: bool) -> WrapValidator:
    """A range error that names both ends (pydantic's names only the end it crossed)."""
    ends = f"above {_n(low)} and at most {_n(high)}" if above else f"from {_n(low)} to {_n(high)}"

    def check(value: Any, handler: Callable[[Any], Any]) -> Any:
        try:
            return handler(value)
        except ValidationError as error:
            if error.errors()[0]["type"] not in RANGE_ERRORS:
                raise
            raise PydanticCustomError(
                "range",
                "must be {kind} {ends}",
                {"kind": kind, "ends": ends, "low": _n(low), "high": _n(high), "above": above},
            ) from None

    return WrapValidator(check)


def _n(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


RANGE_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def whole(low: int, high: int = MAX_INTEGER, description: str = "") -> Any:
    return Annotated[
        int,
        Field(ge=low, le=high, description=description or None),
        _ranged(N_("a whole number"), low, high, False),
    ]


def number(low: float, high: float, above: bool = False, description: str = "") -> Any:
    return Annotated[
        float,
        Field(
            gt=low if above else None,
            ge=None if above else low,
            le=high,
            description=description or None,
        ),
        _ranged(N_("a number"), low, high, above),
    ]


def unique() -> Any:
    """No item twice (JSON Schema's ``uniqueItems``: equal JSON values). The service finds
    what only its meaning makes equal (one address in two spellings) and says so itself."""

    def check(items: list[Any]) -> list[Any]:
        seen: dict[str, int] = {}
        for index, item in enumerate(items):
            found = item.model_dump_json() if isinstance(item, BaseModel) else repr(item)
            if found in seen:
                raise PydanticCustomError(
                    "duplicate",
                    "lists {item} twice (items {first} and {index}); give each once",
                    {"item": _shown(item), "first": seen[found], "index": index},
                )
            seen[found] = index
        return items

    return AfterValidator(check)


UNIQUE = Field(json_schema_extra={"uniqueItems": True})


def _shown(item: Any) -> str:
    return repr(item.model_dump(exclude_unset=True) if isinstance(item, BaseModel) else item)


def _date_time(value: str) -> str:
    """A date and time Python reads, with its zone; normalised to ``...Z``-free ISO 8601."""
    from datetime import datetime

    try:
        when = datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
        when.astimezone(when.tzinfo).timestamp()
    except (ValueError, OverflowError):
        raise PydanticCustomError(
            "date_time",
            "must be a date and time this service can hold; got {value}",
            {"value": repr(value)},
        ) from None
    return when.isoformat()


ZONES = frozenset(available_timezones())
Id = whole(1, MAX_ID, "an id")
Email = text(254, "an e-mail address", EMAIL)
Emails = Annotated[list[Email], Field(min_length=1, max_length=10), UNIQUE, unique()]
Addresses = Annotated[list[Email], Field(max_length=10), UNIQUE, unique()]
Name = not_blank(80, "a name")
Reason = not_blank(1000, "why: goes in the audit log")
Turn = whole(1, MAX_INTEGER, "the turn number the client saw")
DateTime = Annotated[
    str,
    Field(
        pattern=DATE_TIME,
        max_length=32,
        json_schema_extra={"format": "date-time"},
        description="ISO 8601 with a time zone",
    ),
    AfterValidator(_date_time),
]
Days = number(0, 3650, above=True, description="days")
TimeZone = Annotated[
    str,
    Field(
        description="an IANA time zone name such as Europe/Vienna",
        json_schema_extra={"enum": sorted(ZONES)},
    ),
    AfterValidator(lambda zone: _one_of(zone, ZONES, N_("time zone name like 'Europe/Vienna'"))),
]


def _rule(template: str, **values: Any) -> PydanticCustomError:
    """A rule of a body the model checks: its English (``%(name)s`` filled) as pydantic's
    message, and the catalog text and values for the gate to say it in the caller's
    language."""
    english = template % values if values else template
    return PydanticCustomError("rule", english, {"template": template, "values": values})


def _one_of(value: str, choices: Sequence[str], what: str) -> str:
    if value not in choices:
        raise PydanticCustomError(
            "unknown", "must be a known {what}; got {value}", {"value": repr(value), "what": what}
        )
    return value


# -- request bodies -------------------------------------------------------------------------


class Request(BaseModel):
    """A request body: strict types, no field the model does not name."""

    model_config = ConfigDict(strict=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _known_fields(cls, data: Any) -> Any:
        if isinstance(data, dict):
            names = {field.alias or name for name, field in cls.model_fields.items()}
            unknown = [key for key in data if key not in names]
            if unknown:
                raise PydanticCustomError(
                    "unknown_field",
                    "has no field {field}; fields are {fields}",
                    {"field": repr(unknown[0]), "fields": ", ".join(sorted(names))},
                )
        return data


class Bank(Request):
    initial_days: Days
    increment_days: number(0, 3650, description="days") = 0
    max_days: Days = Field(None, description="cap; default: initial_days")


class TimeControl(Request):
    """Sealed turns last ``days``; alternating games give ``days`` per move, or a bank."""

    days: Days = 3
    skip_weekends: bool = False
    forfeit_after: whole(0, 1000, "missed turns in a row that forfeit; 0: never") = 3
    bank: Bank | None = None


class PlayerIn(Request):
    name: Name
    emails: Emails
    roles: Annotated[list[Literal[ROLES]], Field(max_length=3)] = ["player"]
    time_zone: TimeZone = "UTC"
    notify: Literal[NOTIFY] = "each"
    own_copy: Literal[OWN_COPY] = "short"
    board_flip: bool = True
    board_text: Literal[BOARD_TEXT] = "grid"
    vacation_days_per_year: number(0, 366) = 28


class PreferencesIn(Request):
    name: Name = None
    emails: Emails = None
    time_zone: TimeZone = None
    notify: Literal[NOTIFY] = Field(None, description="each mail, a daily digest, or none")
    own_copy: Literal[OWN_COPY] = Field(
        None,
        description="the mail you get of your own move: all of it, a one-line receipt "
        "(default), or none",
    )
    board_flip: bool = Field(None, description="draw boards from your side (default true)")
    board_text: Literal[BOARD_TEXT] = Field(
        None,
        description="the board in a mail's text part: the position in words and the ASCII "
        "grid (default), or the words alone (for screen readers)",
    )
    language: Literal[LANGUAGES] = Field(
        None,
        description="the language we write to you in: en (English), de (Deutsch), fr "
        "(français), es (español), it (italiano), nl (Nederlands), pt (português), pl (polski), "
        "ru (русский). Until you choose, your first reply's language is taken",
    )
    send_delay_minutes: int = Field(
        None,
        ge=0,
        le=1440,
        description="hold each move you mail this many minutes before it is played; 'undo' "
        "by mail cancels it meanwhile (0, the default: played at once)",
    )
    forwarded_addresses: Addresses = Field(
        None,
        description="own addresses whose mail comes through a forwarder: replies from them "
        "are played without sender authentication (SPF, DKIM, DMARC)",
    )


class VacationIn(Request):
    days: number(0, 366, above=True, description="days of leave from now")


class MoveIn(Request):
    turn: Turn
    text: not_blank(2000, "the move, or the sealed orders")


class ConditionalIn(Request):
    turn: Turn
    text: not_blank(20000, "lines 'if <their move> then <yours>'")


class NoteIn(Request):
    text: text(2000, "the note, for its author alone; empty clears it")


class TurnIn(Request):
    turn: Turn


class WaitIn(Request):
    turn: Turn
    wait: bool = True


class PreviewIn(Request):
    text: not_blank(2000, "the move, or the sealed orders")


class DeadlineIn(Request):
    deadline: DateTime


class ReasonIn(Request):
    reason: Reason


class ExtendIn(Request):
    days: number(0, 365, above=True, description="days added to the deadline")
    reason: Reason


class ReplaceIn(Request):
    player: Id = Field(description="the player leaving the seat")
    by: Id = Field(description="the player taking the seat")
    reason: Reason


def _tagged(**tags: str) -> Callable[[Any], str | None]:
    """A discriminator by the JSON type of the value: its tag names the kind in errors."""
    kinds = {"integer": int, "text": str, "list": list, "object": dict, "flag": bool}

    def kind(value: Any) -> str | None:
        for tag, name in tags.items():
            if type(value) is kinds[name] or (name == "object" and isinstance(value, BaseModel)):
                return tag
        return None

    return kind


class ResultIn(Request):
    result: Annotated[
        Annotated[text(40, pattern=RESULT), Tag("<text>")]
        | Annotated[list[whole(1, 4)], Field(min_length=2, max_length=4), Tag("<places>")],
        Discriminator(
            _tagged(**{"<text>": "text", "<places>": "list"}),
            custom_error_type="kind",
            custom_error_message=N_(
                "must be a text such as 1-0 or a list of places such as [1, 3, 2]"
            ),
        ),
        Field(description="1-0, 0-1, 1/2-1/2, draw, or one place per seat such as 1-3-2"),
    ]
    forfeit: Literal["time", "missed_turns"] | None = None
    reason: Reason


class JoinIn(Request):
    code: text(200, "the league's join code")


class MessageIn(Request):
    subject: not_blank(120) = "a message from the director"
    text: not_blank(20000)


class WithdrawIn(Request):
    player: Id
    reason: Reason


class InviteEntry(Request):
    email: Email
    name: Name | None = None


_kind = _tagged(**{"<id>": "integer", "<address>": "text", "<entry>": "object"})


PlayerRef = Annotated[
    Annotated[Id, Tag("<id>")] | Annotated[Email, Tag("<address>")],
    Discriminator(
        _kind,
        custom_error_type="kind",
        custom_error_message=N_("must be a player id or an e-mail address"),
    ),
]
Invitee = Annotated[
    Annotated[Id, Tag("<id>")]
    | Annotated[Email, Tag("<address>")]
    | Annotated[InviteEntry, Tag("<entry>")],
    Discriminator(
        _kind,
        custom_error_type="kind",
        custom_error_message=N_("must be a player id, an e-mail address or {email, name}"),
    ),
]


class InviteIn(Request):
    players: Annotated[list[Invitee], Field(min_length=1, max_length=100), UNIQUE, unique()]


class DaysIn(Request):
    invitation_days: whole(1, 365, "days an invitation stays open (from its sending)") | None = None
    max_game_days: (
        whole(1, 365, "cap on a game's days; then decided by score, else a draw") | None
    ) = None
    reason: Reason


class DirectorIn(Request):
    player: PlayerRef = Field(description="a tournament director's player id or e-mail address")


class NextSeasonIn(Request):
    divisions: Annotated[
        list[Id],
        Field(min_length=1, max_length=20, description="finished leagues, top first"),
        UNIQUE,
        unique(),
    ]
    promote: whole(0, 99) = 1
    relegate: whole(0, 99) = 1
    names: Annotated[list[Name], Field(min_length=1, max_length=20)] | None = Field(
        None, description="one per division"
    )
    reason: text(1000, "why: goes in the audit log") | None = None


FORMATS = ("round_robin", "double_round_robin", "swiss", "knockout", "tables")
TIEBREAKS = ("head_to_head", "sonneborn_berger", "buchholz", "median_buchholz", "wins")


class Scoring(Request):
    win: number(-100, 100) = 1
    draw: number(-100, 100) = 0.5
    loss: number(-100, 100) = 0
    bye: number(-100, 100) = 1
    forfeit_loss: number(-100, 100) = 0


def _options_model(name: str) -> type[BaseModel]:
    cls = engine.game_class(name)
    fields: dict[str, Any] = {
        key: (
            Literal[tuple(spec.choices)],
            Field(None, description=f"{spec.help} (default {spec.default})".strip()),
        )
        for key, spec in cls.OPTIONS.items()
    }
    return create_model(f"{_title(name)}Options", __base__=Request, **fields)


def _title(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace("_", "-").split("-"))


def _game_model(name: str) -> type[BaseModel]:
    counts = engine.game_class(name).player_counts
    seats = Annotated[
        list[Id],
        Field(
            min_length=min(counts),
            max_length=max(counts),
            description=f"player ids in seat order: {', '.join(map(str, counts))} players",
        ),
        UNIQUE,
        unique(),
    ]
    return create_model(
        f"{_title(name)}GameIn",
        __base__=Request,
        game=(Literal[name], ...),
        options=(_options_model(name) | None, None),
        seats=(seats, ...),
        time_control=(TimeControl | None, None),
        position=(
            not_blank(10000) | None,
            Field(None, description="start from this position string (directors, admins)"),
        ),
    )


class LeagueBase(Request):
    """What one league body's fields say about each other, checked and in the document:
    swiss and tables need ``rounds``; only tables seat 3 or 4 (``players``) and break ties by
    wins alone. A game for two has no tables format at all."""

    TABLE_SIZES: ClassVar[tuple[int, ...]] = ()

    @model_validator(mode="after")
    def _fits_format(self) -> LeagueBase:
        fields: dict[str, Any] = dict(self)
        form = fields["format"]
        if form in ("swiss", "tables") and fields["rounds"] is None:
            raise _rule(
                N_("rounds must be a whole number from 1 to 99: the %(form)s format needs it"),
                form=form,
            )
        seats = fields["players"]
        if form != "tables" and seats not in (None, 2):
            raise _rule(
                N_("format %(form)s pairs two players a game; use 'tables' for 3 or 4"), form=form
            )
        if form == "tables" and seats not in (None, *self.TABLE_SIZES):
            sizes = [str(size) for size in self.TABLE_SIZES]
            if len(sizes) < 2:
                raise _rule(N_("tables seat %(last)s players here"), last="".join(sizes))
            raise _rule(
                N_("tables seat %(sizes)s or %(last)s players here"),
                sizes=", ".join(sizes[:-1]),
                last=sizes[-1],
            )
        if form == "tables" and set(fields["tiebreaks"] or ()) - {"wins"}:
            raise _rule(N_("multiplayer tables break ties by wins (first places) only"))
        return self

    @staticmethod
    def _document_rules(schema: dict[str, Any], model: type[Any]) -> None:
        def when(*forms: str) -> dict[str, Any]:
            return {"properties": {"format": {"enum": list(forms)}}, "required": ["format"]}

        rules: list[dict[str, Any]] = [
            {
                "if": when("swiss", "tables"),
                "then": {"required": ["rounds"], "properties": {"rounds": {"type": "integer"}}},
            }
        ]
        pairs = {"properties": {"players": {"enum": [2, None]}}}
        if model.TABLE_SIZES:
            tables = {
                "properties": {
                    "players": {"enum": [*model.TABLE_SIZES, None]},
                    "tiebreaks": {
                        "anyOf": [{"type": "array", "items": {"const": "wins"}}, {"type": "null"}]
                    },
                }
            }
            rules.append({"if": when("tables"), "then": tables, "else": pairs})
        else:
            rules.append(pairs)
        schema["allOf"] = rules

    model_config = ConfigDict(json_schema_extra=_document_rules)


def _league_model(name: str) -> type[BaseModel]:
    counts = engine.game_class(name).player_counts
    sizes = tuple(n for n in counts if n in (3, 4))
    formats = FORMATS if sizes else tuple(f for f in FORMATS if f != "tables")
    # Passed as one dict: type checkers read each (type, default) pair as a type form and
    # stumble on literal strings inside them (pydantic >= 2.14 types create_model so).
    fields: dict[str, Any] = {
        "name": (Name, ...),
        "game": (Literal[name], ...),
        "options": (_options_model(name) | None, None),
        "players": (
            whole(2, max(sizes or (2,))) | None,
            Field(None, description="players per game: 2, or 3-4 for the 'tables' format"),
        ),
        "time_control": (TimeControl | None, None),
        "format": (Literal[formats], "round_robin"),
        "rounds": (
            whole(1, 99) | None,
            Field(None, description="swiss and tables (required there)"),
        ),
        "draw_rule": (Literal["replay", "higher_seed", "second_seat"], "replay"),
        "scoring": (Scoring | None, None),
        "tiebreaks": (
            Annotated[list[Literal[TIEBREAKS]], Field(max_length=5)] | None,
            None,
        ),
        "starts_at": (DateTime | None, None),
        "round_days": (number(0, 365, above=True) | None, None),
        "invitation_days": (
            whole(1, 365),
            Field(14, description="days an invitation stays open before it lapses"),
        ),
        "max_game_days": (
            whole(1, 365) | None,
            Field(None, description="cap on a game's days: then decided by score, else a draw"),
        ),
        "withdrawal": (Literal["forfeit", "expunge"], "forfeit"),
        "join_code": (
            Annotated[
                Annotated[text(40, pattern=TRIMMED, min_length=4), Tag("<text>")]
                | Annotated[bool, Tag("<flag>")],
                Discriminator(
                    _tagged(**{"<text>": "text", "<flag>": "flag"}),
                    custom_error_type="kind",
                    custom_error_message=N_("must be true, false or a text of 4 to 40 characters"),
                ),
            ]
            | None,
            Field(None, description="true: make one up; a text of 4 to 40 characters"),
        ),
        "position": (not_blank(10000) | None, Field(None, description="every game starts here")),
        "min_reliability": (
            number(0, 100) | None,
            Field(None, description="to join: at least this percent of moves on time, 12 months"),
        ),
        "max_forfeits": (
            whole(0, 99) | None,
            Field(None, description="to join: at most this many games lost by forfeit, 12 months"),
        ),
    }
    model = create_model(f"{_title(name)}LeagueIn", __base__=LeagueBase, **fields)
    model.TABLE_SIZES = sizes
    return model


def _by_game(make: Callable[[str], type[BaseModel]]) -> Any:
    models = tuple(Annotated[make(name), Tag(name)] for name in engine.names())
    return Annotated[Union[models], Field(discriminator="game")]  # noqa: UP007  (made at run time)


@cache
def _adapters(names: tuple[str, ...]) -> dict[str, TypeAdapter[Any]]:
    return {
        "GameIn": TypeAdapter(_by_game(_game_model)),
        "LeagueIn": TypeAdapter(_by_game(_league_model)),
    }


def by_game(kind: str) -> TypeAdapter[Any]:
    """``GameIn`` or ``LeagueIn``: one model per registered game, chosen by ``"game"``."""
    return _adapters(game_names())[kind]


def game_names() -> tuple[str, ...]:
    return tuple(engine.names())


# -- response bodies ------------------------------------------------------------------------


class Response(BaseModel):
    model_config = ConfigDict(extra="allow")


class RuleLink(Response):
    id: str = Field(description="a rule id the message cites, e.g. EPA-5")
    url: str = Field(description="the rule on its game's page, e.g. .../rules/epaminondas#EPA-5")


class ErrorDetail(Response):
    code: str = Field(description="a short machine tag, e.g. bad_field, not_found")
    message: str = Field(description="what was wrong, for a person")
    rules: list[RuleLink] = Field(
        default=[], description="each rule the message cites, linked to its rules page"
    )
    reason: str | None = Field(
        default=None,
        description="when the game engine refused: its stable code for why, the same in every"
        " language, e.g. no_stone_on",
    )


class Error(Response):
    error: ErrorDetail


class Option(Response):
    default: str
    choices: list[str]
    help: str


class CatalogGame(Response):
    name: str
    title: str
    players: list[int]
    options: dict[str, Option]


class Catalog(Response):
    games: list[CatalogGame]


class Health(Response):
    status: Literal["ok"]


class Rating(Response):
    """A current rating under one key (game, or game:board) and system."""

    key: str = Field(examples=["epaminondas:8x8"])
    system: Literal["glicko2", "openskill"]
    rating: float = Field(description="Glicko-2: the rating; OpenSkill: mu - 3 sigma")
    deviation: float = Field(description="Glicko-2 RD, or OpenSkill sigma")
    volatility: float | None = Field(description="Glicko-2 only")
    mu: float | None = Field(description="OpenSkill only")
    sigma: float | None = Field(description="OpenSkill only")
    games: int
    updated_at: str = Field(json_schema_extra={"format": "date-time"})


class Vacation(Response):
    starts: str
    ends: str
    days: float


class Player(Response):
    """Private fields (addresses, preferences, vacations) only to the player and directors."""

    id: int
    name: str
    roles: list[str]
    emails: list[str] | None = None
    forwarded_addresses: list[str] | None = None
    time_zone: str | None = None
    notify: Literal[NOTIFY] | None = None
    own_copy: Literal[OWN_COPY] | None = None
    board_flip: bool | None = None
    board_text: Literal[BOARD_TEXT] | None = None
    language: Literal[LANGUAGES] | None = None
    send_delay_minutes: int | None = None
    vacation_days_per_year: float | None = None
    vacation_days_left: float | None = None
    vacations: list[Vacation] | None = None


class Reliability(Response):
    """The last twelve months (``service/reliability.py``; issue 25, point 3)."""

    since: str = Field(json_schema_extra={"format": "date-time"})
    games_finished: int
    moves_due: int = Field(description="turns the player's seat had to act in")
    moves_on_time: int = Field(description="of them, moves sent by the deadline")
    on_time_percent: float | None = Field(description="null: no move was due")
    timeouts: int = Field(description="deadlines passed: default orders, lost on time, forfeit")
    forfeits: int = Field(description="games lost on time, after missed turns or by withdrawal")


class RatedPlayer(Player):
    ratings: list[Rating]
    reliability: Reliability


class PlayerOut(Response):
    player: RatedPlayer


class PlayerChanged(Response):
    player: Player


class PlayerMade(Response):
    player: Player
    token: str = Field(description="the new player's API token: shown this once")


class Token(Response):
    token: str = Field(description="the caller's new API token; the old one stops working")


class ListedPlayer(Response):
    """One player of the directors' list."""

    id: int
    name: str
    roles: list[str]
    emails: list[str] = Field(description="the player's addresses (directors see them)")
    games: int = Field(description="games the player has a seat in, finished or not")
    active_games: int = Field(description="of them, games still being played")
    created_at: str = Field(json_schema_extra={"format": "date-time"})


class PlayerList(Response):
    players: list[ListedPlayer] = Field(description="in id order")
    total: int = Field(description="players matching the search, on every page")
    limit: int
    offset: int
    next_offset: int | None = Field(description="the offset of the next page; null on the last")


class RatingChange(Response):
    game: int
    key: str
    system: Literal["glicko2", "openskill"]
    before: float
    after: float
    deviation: float
    at: str


class Ratings(Response):
    player: int
    name: str
    ratings: list[Rating]
    history: list[RatingChange] = Field(description="one change per rated game, newest first")


class SeatPlayer(Response):
    id: int
    name: str


class Seat(Response):
    seat: int
    name: str = Field(description="the seat's name in the game, e.g. white")
    player: SeatPlayer
    missed: int
    bank_days: float | None


class Outcome(Response):
    places: list[int] = Field(description="a finishing place per seat; 1 is first")
    reason: str
    result: str
    termination: str = Field(
        description="how the game ended, as a kind: goal, capture, no_moves, trapped, repetition, "
        "no_progress, score, passes, no_contact, resignation, agreement, timeout, forfeit, "
        "adjudication, withdrawal, cap (a league's max_game_days), unknown"
    )


class View(Response):
    """What the caller (a seat, or a spectator) may see of the position."""

    game: str
    title: str
    options: dict[str, str]
    viewer: int | None
    seat_names: list[str]
    position: str
    status: str
    to_act: list[int]
    simultaneous: bool
    awaiting_chance: bool
    submitted: list[int]
    own_orders: str | None
    examples: list[str]
    info: list[str]
    ascii: str
    grid: dict[str, Any] = Field(description="the board for HTML: files, ranks, rows, legend")
    outcome: Outcome | None


class TimeControlOut(Response):
    days: float
    skip_weekends: bool
    forfeit_after: int
    bank: dict[str, float] | None


class GameSummary(Response):
    id: int
    game: str
    options: dict[str, str]
    status: str = Field(description="active, finished, ...")
    turn: int
    you: int | None = Field(description="the caller's seat, if they play")
    seats: list[Seat]
    to_act: list[int]
    submitted: list[int]
    waiting: list[int]
    deadline: str | None
    draw_offers: list[int]
    takeback_offer: int | None = Field(
        None, description="the seat offering to take its last move back, while the offer stands"
    )
    status_line: str
    result: dict[str, Any] | None
    commitment: str | None = Field(description="dice games: the hash of the secret seed")
    urgent: bool | None = Field(
        None, description="filter=waiting only: under 24 hours left to move (else absent)"
    )


class Game(GameSummary):
    view: View
    time_control: TimeControlOut
    receipt: str | None = Field(None, description="the caller's sealed orders' receipt")


class GameOut(Response):
    game: Game


class Games(Response):
    games: list[GameSummary]


class Event(Response):
    text: str
    kind: str
    seat: int | None


class Preview(Response):
    events: list[Event]
    view: View


class Conditional(Response):
    text: str
    lines: list[str]
    tree: list[dict[str, Any]]
    set_at_turn: int


class ConditionalOut(Response):
    conditional: Conditional | None = Field(description="none set: null")


class WebhookIn(Request):
    url: text(2000, "an http:// or https:// URL of a public server", NOT_BLANK, 1)
    format: Literal[WEBHOOK_FORMATS] = Field(
        None, description="json (signed; the default), discord or slack"
    )
    events: Annotated[list[Literal[WEBHOOK_EVENTS]], Field(max_length=5)] = Field(
        None, description="what it carries; all when left out (a league's: no your_turn)"
    )


class WebhookDelivery(Response):
    id: str = Field(description="the Pbem-Delivery header's value")
    event: str
    attempts: int
    status: int | None = Field(description="the receiver's last HTTP status, if any")
    sent_at: str | None
    failed: bool = Field(description="given up after the last retry")
    error: str | None


class Webhook(Response):
    id: int
    url: str
    format: Literal[WEBHOOK_FORMATS]
    events: list[Literal[WEBHOOK_EVENTS]]
    created_at: str
    last_delivery: WebhookDelivery | None
    secret: str = Field(
        None, description="signs the json format; in the answer that made the hook only"
    )


class WebhookOut(Response):
    webhook: Webhook


class Webhooks(Response):
    webhooks: list[Webhook]


class NoteOut(Response):
    game_id: int
    note: str | None = Field(description="the caller's private note; none: null")


class Record(Response):
    """Every move, order, roll and event the caller may see, and the game's chain."""

    id: int
    game: str
    game_id: str
    options: dict[str, str]
    players: int
    seat_names: list[str]
    seats: list[dict[str, Any]]
    status: str
    result: dict[str, Any] | None
    commitment: str | None
    seed: str | None = Field(description="the dice seed, once the game is over")
    steps: list[dict[str, Any]]
    time_control: TimeControlOut
    created_at: str
    finished_at: str | None
    start_position: str | None
    turns: list[dict[str, Any]]
    orders: list[dict[str, Any]]
    log: list[dict[str, Any]]
    position: str
    chain: list[dict[str, Any]]


class LeagueSummary(Response):
    id: int
    name: str
    game: str
    options: dict[str, str]
    players_per_game: int
    format: str
    status: str
    paused: bool
    round: int
    starts_at: str | None
    entries: int


class Entry(Response):
    entry: int
    id: int
    name: str
    status: str
    seed: int | None


class LeagueGame(Response):
    board: int
    game: int | None
    players: list[str]
    status: str
    places: list[int] | None
    forfeits: list[Any] | None


class Round(Response):
    round: int
    games: list[LeagueGame]


class League(LeagueSummary):
    time_control: TimeControlOut
    settings: dict[str, Any]
    scoring: dict[str, float]
    tiebreaks: list[str]
    join_code: str | None = Field(description="to its directors only")
    directors: list[SeatPlayer]
    open_to_join: bool
    players: list[Entry]
    rounds: list[Round]


class LeagueOut(Response):
    league: League


class Leagues(Response):
    leagues: list[LeagueSummary]


class NewSeason(Response):
    leagues: list[League]


class InvitedPlayer(Response):
    entry: int
    id: int
    name: str


class Invited(Response):
    invited: list[InvitedPlayer]
    league: League


class StandingsRow(Response):
    rank: int
    player: SeatPlayer
    entry: int
    points: float
    played: int
    wins: int
    draws: int
    losses: int
    withdrawn: bool
    rating: dict[str, Any] | None
    crosstable: list[str | None]


class Standings(Response):
    league: int
    name: str
    format: str
    round: int
    status: str
    scoring: dict[str, float]
    tiebreaks: list[str]
    rows: list[StandingsRow]


class StandingsOut(Response):
    standings: Standings


class AuditEntry(Response):
    at: str
    actor: str
    actor_id: int | None
    action: str
    league: int | None
    game: int | None
    reason: str | None
    detail: dict[str, Any]


class Audit(Response):
    audit: list[AuditEntry]


class Sent(Response):
    sent: int = Field(description="how many mails were queued")
