"""What people write around a move, per language: data, not code.

The reader (``reading.py``) never needs these to find a move (the game decides what is one);
they name the lines it ignores ("a greeting", "a sign-off") and let the extractor cut a
sign-off block that has no ``--`` line. Each table is a language's phrases, lowercase, and
matched against a whole line (or its start, for labels) after punctuation is trimmed.
Languages: English, German, French, Spanish, Italian, Dutch, Portuguese, Polish, Russian;
greetings and closings also in Chinese, Japanese, Korean, Hebrew and Arabic. Labels in any
language are found by their shape (a few words and a colon before the move).
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
    "zh": ("你好", "您好", "嗨"),
    "ja": ("こんにちは", "お疲れ様です", "こんばんは"),
    "ko": ("안녕하세요", "안녕"),
    "he": ("שלום", "היי"),
    "ar": ("مرحبا", "السلام عليكم", "أهلا"),
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
    "zh": ("谢谢", "多谢", "祝好", "此致", "敬礼", "此致敬礼"),
    "ja": ("よろしくお願いします", "よろしくお願いいたします", "よろしく", "ありがとう",
           "ありがとうございます"),
    "ko": ("감사합니다", "고맙습니다"),
    "he": ("תודה", "תודה רבה", "בברכה"),
    "ar": ("شكرا", "مع التحية", "تحياتي"),
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


_TRIM = " \t.,;:!?¡¿-–—…()。、，！？"
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


def has_label(line: str) -> bool:
    """The line starts with a label of the tables ("Mein Zug:", "my move -")."""
    return bool(_LABEL_START_RE.match(line))


def without_label(line: str) -> str:
    """The line after a leading label ("Mein Zug: d1-d4" gives "d1-d4"; in any language, a
    few words ending in a colon: "我的命令: 1:ne"); else the line."""
    found = _LABEL_START_RE.match(line)
    if found:
        return line[found.end() :]
    return line[_any_label(line) :]


# -- a structural label, for the languages above and all the others --------------------------

# "我的命令: 1:ne", "Befehl:01472653", "הצעד שלי: a1-a3": a few words with no digit before a
# colon. One or two ASCII letters before a colon are notation (Elemento's "d:keep", Nelaxtam's
# "a:ne"), never a label.
_ANY_LABEL_RE = re.compile(r"\s*(?P<label>[^\W\d_][^\d:@<>]{0,38}?)\s*:\s*(?=\S)")


def _any_label(line: str) -> int:
    """Where the text after a label that no table knows starts, or 0."""
    found = _ANY_LABEL_RE.match(line)
    if not found:
        return 0
    label = found["label"]
    return found.end() if len(label) >= 3 or not label.isascii() else 0


# -- self-corrections -------------------------------------------------------------------------

CORRECTIONS: Mapping[str, tuple[str, ...]] = {
    "en": ("sorry", "i mean", "i meant", "meant", "typo", "correction", "corrected", "oops",
           "no wait", "wait", "make that", "or rather", "rather", "scratch that", "actually",
           "instead", "my bad", "mistake", "no"),
    "de": ("sorry", "pardon", "ich meine", "ich meinte", "gemeint", "tippfehler", "vertippt",
           "korrektur", "korrigiert", "hoppla", "nein", "besser", "stattdessen", "ich mein"),
    "fr": ("pardon", "désolé", "désolée", "je veux dire", "je voulais dire", "faute de frappe",
           "correction", "plutôt", "oups", "non"),
    "es": ("perdón", "perdon", "lo siento", "quiero decir", "quise decir", "errata",
           "corrección", "mejor dicho", "digo", "sino", "no"),
    "it": ("scusa", "scusate", "scusami", "volevo dire", "intendevo", "errore di battitura",
           "correzione", "anzi", "no"),
    "nl": ("sorry", "ik bedoel", "bedoelde", "typfout", "tikfout", "correctie", "oeps",
           "liever", "nee"),
    "pt": ("desculpa", "desculpe", "quero dizer", "quis dizer", "erro de digitação",
           "correção", "aliás", "não"),
    "pl": ("przepraszam", "sorry", "chodziło mi o", "miałem na myśli", "miałam na myśli",
           "literówka", "poprawka", "korekta", "nie"),
    "ru": ("извините", "простите", "то есть", "точнее", "опечатка", "поправка",
           "я имел в виду", "я имела в виду", "нет"),
}  # fmt: skip
"""Words between two moves that take the first back ("d1-d4... sorry, d1-d5")."""

NEGATIONS: Mapping[str, tuple[str, ...]] = {
    "en": ("not", "never", "ignore", "scratch", "cancel", "forget", "instead of",
           "rather than"),
    "de": ("nicht", "kein", "keinen", "ignoriere", "statt", "anstatt", "anstelle von"),
    "fr": ("pas", "non pas", "au lieu de", "plutôt que", "ignore"),
    "es": ("no", "en vez de", "en lugar de", "ignora"),
    "it": ("non", "invece di", "anziché", "ignora"),
    "nl": ("niet", "geen", "in plaats van", "negeer"),
    "pt": ("não", "nao", "em vez de", "ao invés de", "ignora"),
    "pl": ("nie", "zamiast", "zignoruj"),
    "ru": ("не", "вместо", "игнорируй"),
}  # fmt: skip
"""Words right before a move (no punctuation between) that withdraw it ("not d1-d4")."""

ALTERNATIVES = ("or", "oder", "ou", "o", "of", "oppure", "lub", "albo", "или", "либо")
"""Words between two moves that offer both ("d1-d4 or d1-d5"): no correction then."""

_FILLERS = (
    r"(?:\s+(?:the|my|a|move|der|den|die|das|mein|meinen|le|la|mon|el|mi|il|la mia|de|o)){0,2}"
)
CORRECTION_RE = re.compile(rf"(?<!\w)(?:{_phrases(CORRECTIONS)})(?!\w)")
NEGATION_RE = re.compile(rf"(?:^|\s)(?:{_phrases(NEGATIONS)}){_FILLERS}$")
ALTERNATIVE_RE = re.compile(rf"(?<!\w)(?:{'|'.join(ALTERNATIVES)})(?!\w)(?!\s+rather)")


# -- the mail commands in each language (issue 24) ---------------------------------------------

COMMAND_PHRASES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "de": {
        "resign": ("aufgeben", "ich gebe auf", "gebe auf", "ich gebe die partie auf",
                   "aufgegeben"),
        "draw": ("remis", "remis anbieten", "ich biete remis an", "remisangebot"),
        "draw off": ("remis zurück", "remisangebot zurückziehen",
                     "ich ziehe mein remisangebot zurück"),
        "accept": ("annehmen", "ich nehme an", "akzeptieren", "ich akzeptiere",
                   "remis annehmen", "remis angenommen", "ich nehme das remis an"),
        "decline": ("ablehnen", "ich lehne ab", "kein remis", "remis ablehnen",
                    "remis abgelehnt"),
        "board": ("brett", "spielstand", "stand", "zeig das brett"),
        "help": ("hilfe",),
        "wait": ("warten", "warten an"),
        "wait off": ("warten aus", "nicht warten"),
        "vacation on": ("urlaub an", "urlaub ein"),
        "vacation off": ("urlaub aus",),
        "preview": ("vorschau",),
        "note": ("notiz",),
        "takeback": ("zurücknehmen", "zug zurücknehmen", "ich nehme meinen zug zurück"),
        "takeback accept": ("zurücknahme annehmen", "zurücknahme angenommen"),
        "takeback decline": ("zurücknahme ablehnen", "zurücknahme abgelehnt"),
        "undo": ("rückgängig", "zug rückgängig"),
    },
    "fr": {
        "resign": ("abandonner", "j'abandonne", "abandon", "j'abandonne la partie"),
        "draw": ("nulle", "partie nulle", "je propose nulle", "je propose la nulle",
                 "proposition de nulle"),
        "draw off": ("retirer la nulle", "je retire ma proposition de nulle", "nulle off"),
        "accept": ("accepter", "j'accepte", "j'accepte la nulle", "nulle acceptée"),
        "decline": ("refuser", "je refuse", "je refuse la nulle", "pas de nulle",
                    "nulle refusée"),
        "board": ("plateau", "position", "état", "statut", "montre le plateau"),
        "help": ("aide",),
        "wait": ("attendre", "attendre on"),
        "wait off": ("attendre off", "ne pas attendre"),
        "vacation on": ("vacances on", "vacances oui", "en vacances"),
        "vacation off": ("vacances off", "vacances non", "fin des vacances",
                         "retour de vacances"),
        "preview": ("aperçu",),
        "note": ("note",),
        "takeback": ("reprendre", "reprendre le coup", "je reprends mon coup"),
        "takeback accept": ("accepter la reprise", "reprise acceptée"),
        "takeback decline": ("refuser la reprise", "reprise refusée"),
        "undo": ("annuler", "annuler le coup"),
    },
    "es": {
        "resign": ("abandono", "me rindo", "abandonar", "abandono la partida"),
        "draw": ("tablas", "empate", "ofrezco tablas", "propongo tablas", "ofrezco empate"),
        "draw off": ("retiro las tablas", "retiro mi oferta de tablas", "tablas off"),
        "accept": ("acepto", "aceptar", "acepto tablas", "acepto las tablas",
                   "tablas aceptadas"),
        "decline": ("rechazo", "rechazar", "rechazo las tablas", "no acepto tablas",
                    "tablas rechazadas"),
        "board": ("tablero", "estado", "posición", "muestra el tablero"),
        "help": ("ayuda",),
        "wait": ("esperar", "esperar on"),
        "wait off": ("esperar off", "no esperar"),
        "vacation on": ("vacaciones on", "vacaciones sí", "de vacaciones"),
        "vacation off": ("vacaciones off", "vacaciones no", "fin de vacaciones"),
        "preview": ("vista previa", "previsualizar"),
        "note": ("nota",),
        "takeback": ("retroceder", "retroceder jugada", "devolver la jugada"),
        "takeback accept": ("acepto retroceder", "retroceso aceptado"),
        "takeback decline": ("rechazo retroceder", "retroceso rechazado"),
        "undo": ("deshacer", "deshacer jugada"),
    },
    "it": {
        "resign": ("abbandono", "mi arrendo", "abbandonare", "abbandono la partita"),
        "draw": ("patta", "propongo patta", "offro patta", "propongo la patta", "pareggio"),
        "draw off": ("ritiro la patta", "ritiro la proposta di patta", "patta off"),
        "accept": ("accetto", "accettare", "accetto la patta", "patta accettata"),
        "decline": ("rifiuto", "rifiutare", "rifiuto la patta", "niente patta",
                    "patta rifiutata"),
        "board": ("scacchiera", "tabellone", "stato", "posizione", "mostra la scacchiera"),
        "help": ("aiuto",),
        "wait": ("aspetta", "aspettare", "aspetta on"),
        "wait off": ("aspetta off", "non aspettare"),
        "vacation on": ("vacanza on", "vacanze on", "in vacanza"),
        "vacation off": ("vacanza off", "vacanze off", "fine vacanza", "fine vacanze"),
        "preview": ("anteprima",),
        "note": ("nota",),
        "takeback": ("ripresa", "riprendo la mossa", "ritiro la mossa"),
        "takeback accept": ("accetto la ripresa", "ripresa accettata"),
        "takeback decline": ("rifiuto la ripresa", "ripresa rifiutata"),
        "undo": ("annulla", "annulla la mossa"),
    },
    "nl": {
        "resign": ("opgeven", "ik geef op", "ik geef het op", "geef op"),
        "draw": ("remise", "remise aanbieden", "ik bied remise aan", "gelijkspel"),
        "draw off": ("remise intrekken", "ik trek mijn remiseaanbod in", "remise off"),
        "accept": ("accepteren", "ik accepteer", "aanvaarden", "ik neem remise aan",
                   "remise aangenomen"),
        "decline": ("weigeren", "ik weiger", "afwijzen", "geen remise", "remise geweigerd"),
        "board": ("bord", "stand", "status", "toon het bord"),
        "help": ("help", "hulp"),
        "wait": ("wachten", "wachten aan"),
        "wait off": ("wachten uit", "niet wachten"),
        "vacation on": ("vakantie aan", "op vakantie"),
        "vacation off": ("vakantie uit", "terug van vakantie"),
        "preview": ("voorbeeld",),
        "note": ("notitie",),
        "takeback": ("terugnemen", "zet terugnemen", "ik neem mijn zet terug"),
        "takeback accept": ("terugnemen accepteren", "terugnemen aanvaard"),
        "takeback decline": ("terugnemen weigeren", "terugnemen geweigerd"),
        "undo": ("ongedaan maken", "zet ongedaan maken"),
    },
    "pt": {
        "resign": ("desisto", "eu desisto", "desistir", "abandono", "desisto da partida"),
        "draw": ("empate", "proponho empate", "ofereço empate", "proponho o empate"),
        "draw off": ("retiro o empate", "retiro a proposta de empate", "empate off"),
        "accept": ("aceito", "aceitar", "aceito o empate", "empate aceito"),
        "decline": ("recuso", "recusar", "recuso o empate", "sem empate", "empate recusado"),
        "board": ("tabuleiro", "estado", "posição", "mostra o tabuleiro"),
        "help": ("ajuda",),
        "wait": ("esperar", "aguardar", "esperar on"),
        "wait off": ("esperar off", "não esperar"),
        "vacation on": ("férias on", "férias sim", "de férias"),
        "vacation off": ("férias off", "férias não", "fim das férias"),
        "preview": ("prévia", "pré-visualizar"),
        "note": ("nota",),
        "takeback": ("voltar o lance", "voltar lance", "quero voltar o lance"),
        "takeback accept": ("aceito voltar o lance", "voltar lance aceito"),
        "takeback decline": ("recuso voltar o lance", "voltar lance recusado"),
        "undo": ("desfazer", "desfazer lance"),
    },
    "pl": {
        "resign": ("poddaję się", "poddaje sie", "poddaję partię", "poddaję", "poddać"),
        "draw": ("remis", "proponuję remis", "proponuje remis", "propozycja remisu"),
        "draw off": ("wycofuję remis", "wycofuję propozycję remisu", "remis off"),
        "accept": ("akceptuję", "akceptuje", "przyjmuję", "przyjmuje", "przyjmuję remis",
                   "remis przyjęty"),
        "decline": ("odrzucam", "odrzucam remis", "nie przyjmuję remisu", "bez remisu"),
        "board": ("plansza", "stan", "pozycja", "pokaż planszę"),
        "help": ("pomoc",),
        "wait": ("czekaj", "czekaj on"),
        "wait off": ("czekaj off", "nie czekaj"),
        "vacation on": ("urlop włącz", "urlop on", "na urlopie"),
        "vacation off": ("urlop wyłącz", "urlop off", "koniec urlopu"),
        "preview": ("podgląd",),
        "note": ("notatka",),
        "takeback": ("cofnij ruch", "cofnięcie ruchu", "proszę o cofnięcie ruchu"),
        "takeback accept": ("akceptuję cofnięcie", "cofnięcie przyjęte"),
        "takeback decline": ("odrzucam cofnięcie", "cofnięcie odrzucone"),
        "undo": ("anuluj", "anuluj ruch"),
    },
    "ru": {
        "resign": ("сдаюсь", "я сдаюсь", "сдаться", "сдаю партию"),
        "draw": ("ничья", "ничью", "предлагаю ничью", "предложение ничьей"),
        "draw off": ("отзываю ничью", "отзываю предложение ничьей", "ничья off"),
        "accept": ("принимаю", "принять", "согласен", "согласна", "принимаю ничью",
                   "ничья принята"),
        "decline": ("отклоняю", "отклонить", "отклоняю ничью", "без ничьей",
                    "ничья отклонена"),
        "board": ("доска", "позиция", "статус", "покажи доску"),
        "help": ("помощь", "справка"),
        "wait": ("ждать", "жди", "ждать вкл"),
        "wait off": ("ждать выкл", "не ждать"),
        "vacation on": ("отпуск вкл", "отпуск on", "в отпуске"),
        "vacation off": ("отпуск выкл", "отпуск off", "конец отпуска"),
        "preview": ("предпросмотр", "просмотр"),
        "note": ("заметка",),
        "takeback": ("вернуть ход", "возврат хода", "прошу вернуть ход"),
        "takeback accept": ("принимаю возврат хода", "возврат хода принят"),
        "takeback decline": ("отклоняю возврат хода", "возврат хода отклонён"),
        "undo": ("отменить", "отменить ход"),
    },
}  # fmt: skip
"""The mail commands in each language but English (whose phrases are ``commands.py``'s),
by the English command they mean: whole lines, lowercase, as a native speaker types them
("Ich gebe auf.", "Je propose la nulle", "Сдаюсь!"). The first phrase of each is the one
``help`` lists. None holds a digit, an ``@`` or a ``-`` between letters and digits, so none
is any game's notation (``tests/mail/test_commands_in_languages.py`` asks every game)."""

# -- resigning, deliberately ------------------------------------------------------------------

RESIGN_WORD_RE = re.compile(
    r"\bresign\w*|\baufgeb(?:en|e)\b|\baufgegeben\b|\bgebe\b(?:\s+\w+){0,3}\s+auf\b"
    r"|\babandon\w*|\brindo\b|\brendirme\b|\barrend(?:o|ersi|ermi|erò)\b|\babbandon\w*"
    r"|\bopgeven\b|\bopgegeven\b|\bgeef\b(?:\s+\w+){0,3}\s+op\b|\bdesist\w*"
    r"|\bpodda(?:ję|je|ć|c|m|łem|łam)\b|\bсда(?:юсь|ться|ю|м|ёшься)\b",
    re.I,
)
"""A word of resigning in any of the nine languages ("resign", "aufgeben", "gebe ... auf",
"abandonne", "me rindo", "mi arrendo", "opgeven", "desisto", "poddaję się", "сдаюсь"):
a line that has one is asked whether it means it (``commands.resignation_doubt``)."""
DOUBTS: Mapping[str, tuple[str, ...]] = {
    "en": ("maybe", "perhaps", "might", "may", "should", "shall", "could", "would", "if",
           "unless", "whether", "thinking", "think", "consider", "considering", "tempted",
           "probably", "kidding", "joking", "jk", "not sure", "unsure", "almost", "nearly",
           "about to", "soon", "later", "tomorrow", "wondering", "wonder"),
    "de": ("vielleicht", "sollte", "soll", "sollen", "überlege", "wahrscheinlich", "fast",
           "bald", "wenn", "ob", "eventuell", "vermutlich", "später", "morgen", "scherz",
           "spaß", "spass", "demnächst", "würde", "könnte", "müsste"),
    "fr": ("peut-être", "peut être", "devrais", "dois-je", "si", "bientôt", "presque",
           "plus tard", "demain", "blague", "rigole", "je pense", "pourrais", "faudrait"),
    "es": ("quizás", "quizá", "tal vez", "debería", "si", "pronto", "casi", "mañana",
           "broma", "bromeo", "más tarde", "creo que", "podría", "a lo mejor"),
    "it": ("forse", "dovrei", "se", "quasi", "presto", "domani", "scherzo", "scherzavo",
           "più tardi", "penso", "potrei", "magari"),
    "nl": ("misschien", "zou", "moet ik", "als", "bijna", "morgen", "later", "grapje",
           "denk", "overweeg", "straks"),
    "pt": ("talvez", "deveria", "se", "quase", "amanhã", "brincadeira", "brincando",
           "mais tarde", "acho", "poderia", "devo"),
    "pl": ("może", "chyba", "powinienem", "powinnam", "czy", "jutro", "żart", "żartuję",
           "później", "zastanawiam", "prawie", "wkrótce"),
    "ru": ("может", "наверное", "стоит ли", "если", "почти", "завтра", "шучу", "шутка",
           "позже", "думаю", "подумываю", "скоро", "возможно"),
}  # fmt: skip
"""Words that make a resignation unsure ("I might resign", "should I resign?")."""
REFUSALS = ("not", "n't", "never", "no", "won't", "nicht", "kein", "nie", "niemals", "pas",
            "jamais", "non", "mai", "nunca", "niet", "geen", "nooit", "não", "nao", "nigdy",
            "не", "никогда")  # fmt: skip
"""Words that say no resignation is meant ("not resigning", "I won't resign")."""

DOUBT_RE = re.compile(rf"\?|(?<!\w)(?:{_phrases(DOUBTS)})(?!\w)", re.I)
REFUSAL_RE = re.compile(rf"(?<!\w)(?:{'|'.join(map(re.escape, REFUSALS))})(?!\w)|n't\b", re.I)


# -- footers: registration numbers, addresses, phones, disclaimers ------------------------------

FOOTER_WORDS: Mapping[str, tuple[str, ...]] = {
    "en": ("registered in", "registered office", "registered address", "registered number",
           "registration no", "registration number", "reg. no", "reg no", "company no",
           "company number", "company reg", "vat", "vat no", "tax id", "abn", "acn", "gst",
           "incorporated in", "confidential", "intended recipient", "privileged",
           "disclaimer", "iban", "bic", "swift", "sort code"),
    "de": ("handelsregister", "registergericht", "amtsgericht", "hrb", "hra",
           "sitz der gesellschaft", "geschäftsführer", "geschäftsführung", "ust-id",
           "ust-idnr", "ust.-id", "steuernummer", "steuer-nr", "vorstand", "aufsichtsrat",
           "vertraulich", "vertrauliche", "vertrauliches", "firmenbuch", "uid"),
    "fr": ("siret", "siren", "rcs", "tva", "capital social", "confidentiel",
           "confidentielle", "confidentiels", "destinataire"),
    "es": ("cif", "nif", "registro mercantil", "confidencial", "confidenciales"),
    "it": ("p.iva", "p. iva", "partita iva", "codice fiscale", "rea", "riservata",
           "riservato", "riservate"),
    "nl": ("kvk", "btw", "vertrouwelijk", "vertrouwelijke"),
    "pt": ("cnpj", "cpf", "nipc", "confidencial", "confidenciais"),
    "pl": ("nip", "regon", "krs", "poufne", "poufna"),
    "ru": ("инн", "огрн", "кпп", "бик", "р/с", "конфиденциально", "конфиденциальная",
           "конфиденциальную"),
    "zh": ("统一社会信用代码", "注册号", "营业执照", "保密", "机密"),
    "ja": ("登録番号", "法人番号", "機密"),
}  # fmt: skip
"""Words of company footers (registration lines, tax numbers, bank lines, disclaimers)."""

_PHONE = (
    r"(?:\b(?:tel|tél|phone|mobile|mob|cell|fax|телефон|тел)\b\.?|电话|手机|電話|携帯"
    r"|(?:^|\|)\s*[tmf]\b)\s*:?\s*\+?[\d(]"
)
_TOWN = r"[A-ZÄÖÜÉ][^\W\d_][\w-]*(?:\s+[A-ZÄÖÜÉ][\w-]*)?"
_POSTCODE = (
    rf"(?:^|,)\s*(?:[A-Z]{{1,2}}-)?\d{{4,5}}(?:\s+[A-Z]{{2}})?\s+{_TOWN}\s*(?:,|$)"  # 80331 München
    r"|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d[A-Z]{2}\b"  # EH6 6QW
    r"|,\s*[A-Z]{2}\s+\d{5}(?:-\d{4})?\b"  # Springfield, IL 62704
)
FOOTER_RE = re.compile(
    rf"(?<!\w)(?:{_phrases(FOOTER_WORDS)})(?!\w)|{_PHONE}|\+\d[\d ()./-]{{6,}}\d", re.I
)
POSTCODE_RE = re.compile(_POSTCODE)


def is_footer(line: str) -> bool:
    """A line of a company footer: a registration, tax or bank number, a phone, a postal
    address (each with its digits), or a disclaimer (a long line). No game's notation has
    these words, so such a line is never a move, in particular not in the games whose
    orders are digits."""
    if not any(char.isdigit() for char in line) and len(line) <= 60:
        return False
    return bool(FOOTER_RE.search(line) or POSTCODE_RE.search(line))


# -- which language a reply is written in (issue 24) --------------------------------------------

LANGUAGE_WORDS: Mapping[str, tuple[str, ...]] = {
    "en": ("language",),
    "de": ("sprache",),
    "fr": ("langue",),
    "es": ("idioma",),
    "it": ("lingua",),
    "nl": ("taal",),
    "pt": ("idioma", "língua"),
    "pl": ("język", "jezyk"),
    "ru": ("язык",),
}
"""The word of the ``language de`` command in each language (``commands.py``)."""

READ_LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "pl", "ru")
"""The languages of these tables that the service also writes in (``service.i18n``)."""


def _language_patterns() -> dict[str, re.Pattern[str]]:
    patterns = {}
    for code in READ_LANGUAGES:
        whole = {"greetings": GREETINGS[code], "closings": CLOSINGS[code]}
        lines = "|".join(re.escape(p) for table in whole.values() for p in table)
        starts = "|".join(re.escape(p) for p in (*LABELS[code], *LANGUAGE_WORDS[code]))
        patterns[code] = re.compile(rf"(?:(?:{lines}){_NAME}|(?:{starts})(?!\w).*)", re.I | re.S)
    return patterns


_LANGUAGE_LINE_RE = _language_patterns()


def language_of(text: str) -> str | None:
    """The language a reply is written in, from the lines these tables know (greetings,
    sign-offs, labels, the ``language`` command's word), or None when none shows or two
    languages show equally ("Hallo" alone is German or Dutch; "Hallo ... Groeten" is Dutch).
    A move alone shows no language."""
    votes = dict.fromkeys(READ_LANGUAGES, 0)
    for line in text.splitlines():
        words = trimmed(line)
        if not words:
            continue
        for code, pattern in _LANGUAGE_LINE_RE.items():
            if pattern.fullmatch(words):
                votes[code] += 1
    best = max(votes.values())
    leaders = [code for code, count in votes.items() if count == best]
    return leaders[0] if best and len(leaders) == 1 else None
