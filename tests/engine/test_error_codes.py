"""Issue 24: the engine's errors carry a stable code, parameters and the English template.

The service translates them; these tests keep the contract: ``render`` with the identity
gives today's English exactly, every code names one template, every template's placeholders
are given, and no raise in engine/ passes bare English.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine import EngineError, NotationError, new_game, state_from_json
from engine.dice import RecordError, verify
from engine.errors import N_, Forms, IllegalMoveError, Nn_, Reason

ENGINE = Path(__file__).resolve().parents[2] / "engine"
CODE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
ERRORS = {
    "EngineError",
    "GameOverError",
    "IllegalMoveError",
    "NotYourTurnError",
    "NotationError",
    "OptionError",
    "PositionError",
    "RecordError",
    "UnknownGameError",
}


def identity(msgid: str) -> str:
    return msgid


# -- every Reason in engine/, read from the source -------------------------------------------


def _calls(name: str) -> Iterator[tuple[Path, ast.Call, dict[str, ast.expr]]]:
    """Calls of ``name`` in engine/, each with the names its function assigned before it."""
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        scopes = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id == name:
                yield path, node, _assigned_before(scopes, node)


def _assigned_before(scopes: list[ast.FunctionDef], call: ast.Call) -> dict[str, ast.expr]:
    inner = [
        scope
        for scope in scopes
        if scope.lineno <= call.lineno <= (scope.end_lineno or scope.lineno)
    ]
    if not inner:
        return {}
    names: dict[str, ast.expr] = {}
    assigns = [node for node in ast.walk(inner[-1]) if isinstance(node, ast.Assign)]
    for assign in sorted(assigns, key=lambda node: node.lineno):
        if assign.lineno < call.lineno and isinstance(assign.targets[0], ast.Name):
            names[assign.targets[0].id] = assign.value
    return names


def _template(node: ast.expr, names: dict[str, ast.expr]) -> str | Forms:
    """The English of ``N_("...")``, ``Nn_("...", "...")`` or a bare constant."""
    if isinstance(node, ast.Name):
        node = names[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name), ast.unparse(node)
    texts = [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
    assert len(texts) == len(node.args), f"not plain text: {ast.unparse(node)}"
    return texts[0] if node.func.id == "N_" else Forms(*texts)


def _reasons() -> list[tuple[str, str, str | Forms, set[str]]]:
    found = []
    for path, call, names in _calls("Reason"):
        where = f"{path.relative_to(ENGINE.parent)}:{call.lineno}"
        if path.name == "errors.py" and not isinstance(call.args[0], ast.Constant):
            continue  # the class's own constructors (Reason.literal)
        assert isinstance(call.args[0], ast.Constant), f"{where}: write the code out"
        keywords = {keyword.arg for keyword in call.keywords if keyword.arg}
        assert len(keywords) == len(call.keywords), f"{where}: name every parameter"
        found.append((where, call.args[0].value, _template(call.args[1], names), keywords))
    return found


def _placeholders(template: str | Forms) -> set[str]:
    texts = template if isinstance(template, Forms) else (template,)
    return {name for text in texts for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_code_is_snake_case_and_names_one_template() -> None:
    reasons = _reasons()
    assert len(reasons) > 150
    templates: dict[str, tuple[str, str | Forms]] = {}
    for where, code, template, _ in reasons:
        assert CODE.fullmatch(code), f"{where}: code {code!r}"
        first = templates.setdefault(code, (where, template))
        assert first[1] == template, f"{where}: code {code!r} also names {first}"
    assert len({template for _, template in templates.values()}) == len(templates)


def test_every_template_gets_exactly_its_placeholders() -> None:
    for where, code, template, keywords in _reasons():
        counted = {"n"} if isinstance(template, Forms) else set()
        assert keywords == _placeholders(template) | counted, f"{where}: {code}"


def test_no_raise_in_the_engine_passes_bare_english() -> None:
    for name in ERRORS:
        for path, call, _ in _calls(name):
            reason = call.args[0] if name == "RecordError" else call.args[1]
            bare = isinstance(reason, ast.JoinedStr | ast.BinOp) or (
                isinstance(reason, ast.Constant) and isinstance(reason.value, str)
            )
            assert not bare, f"{path.name}:{call.lineno}: {ast.unparse(reason)}"


def test_markers_take_plain_text_babel_can_extract() -> None:
    for marker in ("N_", "Nn_"):
        for path, call, _ in _calls(marker):
            assert all(
                isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in call.args
            ), f"{path.name}:{call.lineno}"


# -- errors raised for real, in each game ------------------------------------------------------


def _caught(action: Callable[[], object]) -> EngineError:
    try:
        action()
    except EngineError as error:
        return error
    raise AssertionError("no error raised")


def _samples() -> Iterator[EngineError]:
    """A spread of errors from each of the five games and the core."""
    epa = new_game("epaminondas").initial_state()
    for text in ("zz", "a1-a1", "a1-b3", "c5-c6", "a2-a5", "a1-a2", "a2xa3", "a2-a4 b", "z9-a1"):
        yield _caught(lambda text=text: epa.play(0, text))
    yield _caught(lambda: epa.play(1, "a11-a10"))
    yield _caught(lambda: new_game("epaminondas").parse_position("junk"))
    yield _caught(lambda: new_game("epaminondas").parse_position("x/y q"))

    ant = new_game("anti-grid").initial_state()
    for text in ("", "zz", "c1-c1", "a1-b2", "c1-c8 c8-c9", "c3-c4", "b1-b3", "a1-a3"):
        yield _caught(lambda text=text: ant.play(0, text))
    yield _caught(lambda: new_game("anti-grid").parse_position("x"))
    yield _caught(lambda: new_game("anti-grid").parse_position("a/b r 0"))

    ela = new_game("elasta").initial_state()
    for text in ("", "0147265", "01472663", "01234567 extra", "a0 b1 c9", "a0 a1 b2", "x1", "9"):
        yield _caught(lambda text=text: ela.submit(0, text))
    yield _caught(lambda: new_game("elasta").parse_position("99999999 1 0"))
    yield _caught(lambda: new_game("elasta").parse_position("44444444 0 0"))

    nel = new_game("nelaxtam").initial_state()
    for text in ("", "1", "9:a1", "1:a1 1:a2", "1:a1 2:a2 3:a3 4:a4", "1:zz"):
        yield _caught(lambda text=text: nel.submit(0, text))
    yield _caught(lambda: new_game("nelaxtam").parse_position("a b c"))

    ele = new_game("elemento").initial_state()
    while ele.chance_outcomes():
        yield _caught(lambda ele=ele: ele.apply_chance("nonsense"))
        ele = ele.apply_chance(ele.chance_outcomes()[0]).state
    seat = ele.to_act[0]
    for text in ("", "Q@a1", "E@z9", "a1-a2", "E@a1 9:own", "xE@a1", "DE@a1"):
        yield _caught(lambda text=text: ele.play(seat, text))
    yield _caught(lambda: new_game("elemento").parse_position("a b c d e f g"))

    yield _caught(lambda: new_game("no such game"))
    yield _caught(lambda: new_game("elasta", {"colour": "red"}))
    yield _caught(lambda: new_game("elemento", {"dice": "loaded"}))
    yield _caught(lambda: new_game("epaminondas", players=5))
    yield _caught(lambda: state_from_json({"options": {}}))
    yield _caught(lambda: epa.submit(0, "a1-a2"))
    yield _caught(lambda: ela.play(0, "01234567"))
    yield _caught(lambda: epa.play(1, "a1-a2"))


SAMPLES = list(_samples())


def test_the_samples_cover_each_game_with_many_codes() -> None:
    codes = {error.code for error in SAMPLES}
    assert len(codes) >= 40
    assert "literal" not in codes


@pytest.mark.parametrize("error", SAMPLES, ids=lambda error: error.code)
def test_render_with_identity_is_the_english_message(error: EngineError) -> None:
    assert error.render(identity) == str(error) == error.message
    assert error.render(identity, lambda one, many, n: one if n == 1 else many) == str(error)
    assert error.reason == error.why.render()
    counted = {"n"} if isinstance(error.why.template, Forms) else set()
    assert error.why.placeholders() | counted == set(error.params)


@pytest.mark.parametrize("error", SAMPLES, ids=lambda error: error.code)
def test_render_translates_the_label_and_the_template(error: EngineError) -> None:
    asked: list[str] = []

    def translate(msgid: str) -> str:
        asked.append(msgid)
        return msgid

    error.render(translate)
    assert error.label in asked
    forms = error.why.forms
    assert forms.singular in asked or forms.plural in asked


def test_a_translation_changes_label_reason_and_nested_words() -> None:
    error = _caught(lambda: new_game("epaminondas").initial_state().play(0, "c5-c6"))
    german = {
        "illegal move": "unzulässiger Zug",
        "{label} {text!r}: {reason}": "{label} {text!r}: {reason}",
        "there is no stone on {square}": "auf {square} steht kein Stein",
        "{message} ({rule})": "{message} ({rule})",
    }
    assert error.render(lambda msgid: german.get(msgid, msgid)) == (
        "unzulässiger Zug 'c5-c6': auf c5 steht kein Stein (EPA-5)"
    )


def test_counted_reasons_go_through_ngettext() -> None:
    reason = Reason("phalanx", Nn_("{n} stone moves", "{n} stones move"), n=3)
    calls: list[tuple[str, str, int]] = []

    def ngettext(one: str, many: str, n: int) -> str:
        calls.append((one, many, n))
        return "{n} Steine ziehen"

    error = IllegalMoveError("a1-a4", reason)
    assert error.render(identity, ngettext) == "illegal move 'a1-a4': 3 Steine ziehen"
    assert calls == [("{n} stone moves", "{n} stones move", 3)]
    assert str(Reason("one", Nn_("{n} stone moves", "{n} stones move"), n=1)) == "1 stone moves"


def test_plain_text_reasons_still_work_for_callers_outside_the_engine() -> None:
    error = NotationError("zz", "a move is a1-a2")
    assert (error.code, str(error)) == ("literal", "cannot read 'zz': a move is a1-a2")
    shout = {"cannot read": "CANNOT READ"}
    assert (
        error.render(lambda msgid: shout.get(msgid, msgid)) == "CANNOT READ 'zz': a move is a1-a2"
    )


def test_long_lists_of_valid_moves_are_counted() -> None:
    error = NotationError("zz", Reason("x", N_("no")), valid=[str(i) for i in range(14)])
    assert (
        str(error)
        == "cannot read 'zz': no. Valid here: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 2 more"
    )
    assert error.render(identity, lambda one, many, n: one if n == 1 else many) == str(error)


def test_dice_record_errors_carry_codes() -> None:
    with pytest.raises(RecordError) as caught:
        verify({"game": "elemento"})
    error = caught.value
    assert error.code == "record_lacks"
    assert (
        error.render(identity) == str(error) == "the record lacks game_id, commitment, seed, steps"
    )
    record = {"game": "nope", "game_id": "g", "commitment": "", "seed": "00", "steps": []}
    with pytest.raises(RecordError) as caught:
        verify(record)
    assert caught.value.code == "record_game"
    assert caught.value.render(identity) == str(caught.value)
    assert str(caught.value).startswith("unknown game 'nope': no such game. Valid here: ")


def test_babel_extracts_every_template_with_the_engine_keywords() -> None:
    """The service's catalogs extract engine/ with keywords ``N_`` and ``Nn_:1,2``."""
    extract = pytest.importorskip("babel.messages.extract")
    keywords = {"N_": None, "Nn_": (1, 2)}
    found = {
        message if isinstance(message, str) else Forms(*message)
        for _, _, message, _, _ in extract.extract_from_dir(
            str(ENGINE), method_map=[("**.py", "python")], keywords=keywords
        )
    }
    unmarked = {"{item}", "{error}", "{name} {score}"}  # nothing to translate
    for where, _, template, _ in _reasons():
        assert template in found or template in unmarked, where
    assert EngineError.label in found and IllegalMoveError.label in found
