"""satdoku.plain_schema: what it calls surely valid, jsonschema accepts; the workflow's usual
solver options take the plain path; everything else is left to jsonschema (and its error)."""

from __future__ import annotations

import math
import subprocess
import sys

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from satdoku.config import ConfigError, check_solvers
from satdoku.plain_schema import surely_valid
from satdoku.solvers.registry import SOLVERS

SCHEMAS = {name: spec.schema() for name, spec in SOLVERS.items()}
#: values around every type and bound the option schemas use
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 100), st.sampled_from([0, 1, 64, 65]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, 1.0, 0.5, -0.0]),
    st.text(max_size=3), st.sampled_from(["", "luby", "lrat", "drat", "minisat22", "x {cnf}"]),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(),
                                                         max_size=1))


def _keys(name: str) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(sorted(SCHEMAS[name]["properties"])), st.text(max_size=4))


@st.composite
def options(draw: st.DrawFn) -> tuple[str, dict]:
    name = draw(st.sampled_from(sorted(SCHEMAS)))
    return name, draw(st.dictionaries(_keys(name), VALUES, max_size=4))


@settings(max_examples=500)
@given(options())
def test_surely_valid_is_valid_for_jsonschema(case: tuple[str, dict]) -> None:
    name, data = case
    if surely_valid(data, SCHEMAS[name]):
        assert jsonschema.Draft202012Validator(SCHEMAS[name]).is_valid(data), (name, data)


@pytest.mark.parametrize(("name", "data"), [
    ("minisat22", {"solver": "minisat22", "incremental": True}),
    ("cdcl", {"solver": "cdcl", "incremental": True, "decay": 0.95, "max_conflicts": None,
              "restarts": "luby", "memory_limit": 4000}),
    ("cdcl", {}),
    ("cpsat", {"workers": 1, "seed": 0}),
    ("external", {"command": "cadical -q {cnf}", "proof": "drat"}),
])
def test_usual_options_take_the_plain_path(name: str, data: dict) -> None:
    assert surely_valid(data, SCHEMAS[name])


@pytest.mark.parametrize(("name", "data"), [
    ("minisat22", {"incremental": 1}),  # not a boolean
    ("minisat22", {"heuristic": "jw"}),  # unknown option
    ("cdcl", {"decay": 1}),  # exclusiveMaximum
    ("cdcl", {"decay": math.nan}),
    ("cdcl", {"max_conflicts": 1.0}),  # jsonschema's integer: left to it
    ("cdcl", {"restarts": True}),  # not in the enum
    ("cpsat", {"workers": 65}),
    ("dpll", {"seed": True}),  # a bool is no integer
    ("cdcl", {"decay": False}),  # nor a number
    ("external", {}),  # command required
    ("external", {"command": ""}),  # minLength
])
def test_anything_else_is_left_to_jsonschema(name: str, data: dict) -> None:
    assert not surely_valid(data, SCHEMAS[name])


def test_errors_still_come_from_jsonschema() -> None:
    with pytest.raises(ConfigError, match=r"solvers\.cdcl.*unknown key.*'heuristic'"):
        check_solvers({"cdcl": {"heuristic": "jw"}})
    with pytest.raises(ConfigError, match=r"solvers\.cpsat\.workers"):
        check_solvers({"cpsat": {"workers": 65}})


def test_schema_keywords_outside_the_subset_are_not_read() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}}
    assert not surely_valid({"a": "y"}, schema)
    assert not surely_valid({"a": 1}, {"type": "object", "properties": {"a": {"$ref": "#/x"}}})
    assert not surely_valid([], SCHEMAS["cdcl"])


def test_a_solve_command_line_does_not_import_jsonschema(tmp_path) -> None:
    """Checking a workflow job's --variants costs no jsonschema import."""
    code = ("import sys; from satdoku.commands.variants_arg import solver_variants; "
            "solver_variants('{\"minisat22-inc\": {\"solver\": \"minisat22\", "
            "\"incremental\": true}}'); print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_an_enum_of_lists_or_objects_is_left_to_jsonschema() -> None:
    """Python's == takes True for 1 inside a list or object, JSON's equality does not: such a
    value is never surely valid here, and jsonschema decides (it rejects these)."""
    for choices, value in (([[1]], [True]), ([{"x": 0}], {"x": False}), ([[1]], [1])):
        schema = {"type": "object", "properties": {"o": {"enum": choices}}}
        assert not surely_valid({"o": value}, schema)
    assert not jsonschema.Draft202012Validator({"enum": [[1]]}).is_valid([True])
