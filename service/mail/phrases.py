"""What people write around a move, per language: data, not code.

The reader (``reading.py``) never needs these to find a move (the game decides what is one);
they name the lines it ignores ("a greeting", "a sign-off") and let the extractor cut a
sign-off block that has no ``--`` line. Each table is a language's phrases, lowercase, and
matched against a whole line (or its start, for labels) after punctuation is trimmed.
Languages: English, German, French, Spanish, Italian, Dutch, Portuguese, Polish, Russian.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

GREETINGS: Mapping[str, tuple[str, ...]] = {
    "en": ("hi", "hello", "hey", "hiya", "dear", "good morning", "good afternoon",
           "good evening", "good day", "morning", "evening", "yo"),
    "de": ("hallo", "hi", "moin", "servus", "guten morgen", "guten tag", "guten abend",
           "lieber", "liebe", "grüß dich", "grüezi", "hey"),
    "fr": ("bonjour", "bonsoir", "salut", "coucou", "cher", "chère"),
    "es": ("hola", "buenos días", "buenos dias", "buenas tardes", "buenas noches", "buenas",
           "querido", "querida", "estimado", "estimada"),
    "it": ("ciao", "buongiorno", "buonasera", "salve", "caro", "cara"),
    "nl": ("hoi", "hallo", "hey", "goedemorgen", "goedemiddag", "goedenavond", "beste",
           "dag"),
    "pt": ("olá", "ola", "oi", "bom dia", "boa tarde", "boa noite", "caro", "cara",
           "prezado", "prezada"),
    "pl": ("cześć", "czesc", "witam", "witaj", "dzień dobry", "dzien dobry", "hej", "drogi",
           "droga"),
    "ru": ("привет", "здравствуйте", "здравствуй", "добрый день", "доброе утро",
           "добрый вечер", "дорогой", "дорогая", "уважаемый"),
}  # fmt: skip
"""Openings; a greeting line may add a name ("Hi Bob", "Hallo zusammen")."""

CLOSINGS: Mapping[str, tuple[str, ...]] = {
    "en": ("thanks", "thank you", "many thanks", "thanks a lot", "thx", "ta", "cheers",
           "regards", "best regards", "kind regards", "warm regards", "best wishes", "best",
           "all the best", "yours", "sincerely", "yours sincerely", "yours truly", "bye",
           "see you", "take care", "good luck", "have fun", "your move", "over to you",
           "rgds", "br"),
    "de": ("danke", "vielen dank", "danke schön", "danke dir", "grüße", "gruß", "viele grüße",
           "liebe grüße", "beste grüße", "freundliche grüße", "mit freundlichen grüßen",
           "herzliche grüße", "lg", "vg", "mfg", "bis bald", "tschüss", "ciao", "viel glück",
           "gruss", "grüsse", "viele grüsse", "liebe grüsse"),
    "fr": ("merci", "merci beaucoup", "cordialement", "bien à vous", "amitiés", "à bientôt",
           "bonne journée", "bonne soirée", "salutations", "bises", "bonne chance", "a+",
           "bien cordialement"),
    "es": ("gracias", "muchas gracias", "saludos", "un saludo", "atentamente", "abrazos",
           "un abrazo", "hasta luego", "hasta pronto", "suerte", "cordialmente"),
    "it": ("grazie", "grazie mille", "saluti", "cordiali saluti", "distinti saluti",
           "a presto", "un saluto", "buona giornata", "ciao"),
    "nl": ("bedankt", "dank je", "dank je wel", "dank u", "groet", "groeten",
           "met vriendelijke groet", "vriendelijke groeten", "hartelijke groet", "mvg",
           "tot ziens", "doei", "succes"),
    "pt": ("obrigado", "obrigada", "muito obrigado", "abraços", "abraço", "um abraço",
           "cumprimentos", "atenciosamente", "saudações", "até logo", "até breve",
           "boa sorte"),
    "pl": ("dzięki", "dzieki", "dziękuję", "dziekuje", "pozdrawiam", "pozdrowienia",
           "serdecznie pozdrawiam", "z poważaniem", "do zobaczenia", "powodzenia"),
    "ru": ("спасибо", "большое спасибо", "с уважением", "всего доброго", "всего хорошего",
           "пока", "до встречи", "удачи"),
}  # fmt: skip
"""Thanks and sign-offs; one may end with a name on the same line ("Best, Dana")."""

LABELS: Mapping[str, tuple[str, ...]] = {
    "en": ("my move", "move", "my moves", "my orders", "orders", "here is my move",
           "here's my move", "i play", "i'll play", "playing", "my reply", "reply"),
    "de": ("mein zug", "zug", "meine züge", "meine befehle", "befehle", "ich spiele"),
    "fr": ("mon coup", "coup", "mes ordres", "ordres", "je joue", "mon mouvement"),
    "es": ("mi jugada", "jugada", "mi movimiento", "movimiento", "mis órdenes", "juego"),
    "it": ("la mia mossa", "mia mossa", "mossa", "i miei ordini", "ordini", "gioco"),
    "nl": ("mijn zet", "zet", "mijn zetten", "mijn orders", "ik speel"),
    "pt": ("minha jogada", "jogada", "meu lance", "lance", "minhas ordens", "jogo"),
    "pl": ("mój ruch", "moj ruch", "ruch", "moje rozkazy", "gram"),
    "ru": ("мой ход", "ход", "мои приказы", "хожу"),
}  # fmt: skip
"""Words before a move ("Mein Zug: d1-d4", "Mon coup :" on its own line)."""


def _phrases(table: Mapping[str, tuple[str, ...]]) -> str:
    every = {phrase for phrases in table.values() for phrase in phrases}
    return "|".join(re.escape(phrase) for phrase in sorted(every, key=len, reverse=True))


_TRIM = " \t.,;:!?¡¿-–—…()"
_NAME = r"(?:[,\s]+[^\W\d_][\w.'-]*){0,3}"
GREETING_RE = re.compile(rf"(?:{_phrases(GREETINGS)}){_NAME}", re.I)
CLOSING_RE = re.compile(rf"(?:{_phrases(CLOSINGS)})(?:\s+(?:and|und|et|y|e|en|i|и)\s+\w+)?", re.I)
SIGN_OFF_RE = re.compile(rf"(?:{_phrases(CLOSINGS)}){_NAME}", re.I)
LABEL_RE = re.compile(rf"(?:{_phrases(LABELS)})\s*[:\-–—=>]*", re.I)
_LABEL_START_RE = re.compile(rf"\s*(?:{_phrases(LABELS)})(?!\w)\s*[:\-–—=>]*\s*(?=\S)", re.I)
# A name or initials alone: "Carol", "– J.", "JD", "Anne-Marie K."
NAME_RE = re.compile(r"[-–—~]*\s*(?:[^\W\d_][\w'-]*\.?\s*){1,3}", re.I)


def trimmed(line: str) -> str:
    return " ".join(line.split()).strip(_TRIM)


def kind_of(line: str) -> str:
    """ "greeting", "sign-off", "label", "name" or "" for a line of prose."""
    text = trimmed(line)
    if not text:
        return ""
    if GREETING_RE.fullmatch(text):
        return "greeting"
    if SIGN_OFF_RE.fullmatch(text):
        return "sign-off"
    if LABEL_RE.fullmatch(text):
        return "label"
    if len(text) <= 24 and NAME_RE.fullmatch(text) and len(text.split()) <= 2:
        return "name"
    return ""


def is_sign_off(line: str) -> bool:
    """A closing, alone or with a name: where a signature without a ``--`` line starts."""
    return bool(SIGN_OFF_RE.fullmatch(trimmed(line)))


def without_label(line: str) -> str:
    """The line after a leading label ("Mein Zug: d1-d4" gives "d1-d4"); else the line."""
    found = _LABEL_START_RE.match(line)
    return line[found.end() :] if found else line
