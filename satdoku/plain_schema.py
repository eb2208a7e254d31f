"""A JSON-schema check for the plain cases, without jsonschema: an object of scalar options.

:func:`surely_valid` answers True only for data it can show valid under a small subset of
JSON Schema (draft 2020-12): objects with ``properties``, ``additionalProperties: false`` and
``required``; scalars with ``type``, ``enum``, ``minimum``, ``maximum``, ``exclusiveMinimum``,
``exclusiveMaximum`` and ``minLength``; ``description`` and ``default`` ignored, as
jsonschema ignores them. Anything else (another keyword, a value it would have to read more
loosely than jsonschema does, such as ``1.0`` for an integer) is False: "not shown", never
"invalid", and the caller asks jsonschema, which also words the error.

Why: every solve job checks its ``--variants`` against the solvers' option schemas, and
importing jsonschema alone costs a job ~0.1-0.2 s of CPU, more than the check of a few options.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any

#: keywords that never change whether data is valid
_ANNOTATIONS = frozenset({"description", "default"})
#: scalar keywords this check reads
_SCALAR = frozenset({"type", "enum", "minimum", "maximum", "exclusiveMinimum",
                     "exclusiveMaximum", "minLength"}) | _ANNOTATIONS
#: object keywords this check reads
_OBJECT = frozenset({"type", "properties", "additionalProperties", "required"}) | _ANNOTATIONS
#: JSON type -> the Python types whose values are surely of it (bool is no integer or number)
_TYPES: dict[str, tuple[type, ...]] = {"boolean": (bool,), "integer": (int,),
                                       "number": (int, float), "string": (str,),
                                       "null": (type(None),)}
#: the value types an enum is matched for here (JSON's equality of lists and objects is not
#: Python's: [True] == [1] in Python, not in JSON)
_ENUM_SCALARS = (str, int, float, bool, type(None))
#: bound keyword -> whether a number is within it
_BOUNDS = {"minimum": operator.ge, "maximum": operator.le, "exclusiveMinimum": operator.gt,
           "exclusiveMaximum": operator.lt}


def surely_valid(data: Any, schema: Mapping[str, Any]) -> bool:
    """True when ``data`` is certainly valid under ``schema`` (an object of scalar options);
    False when it is not shown, whether or not jsonschema would accept it."""
    if not isinstance(schema, Mapping) or set(schema) - _OBJECT or \
            schema.get("type") != "object" or type(data) is not dict:
        return False
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    if not isinstance(props, Mapping) or extra not in (True, False):
        return False
    if any(key not in data for key in schema.get("required", ())):
        return False
    for key, value in data.items():
        if key in props:
            if not _scalar_valid(value, props[key]):
                return False
        elif extra is not True:
            return False
    return True


def _scalar_valid(value: Any, schema: Any) -> bool:
    if not isinstance(schema, Mapping) or set(schema) - _SCALAR:
        return False
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(name in _TYPES and _of_type(value, name) for name in names):
            return False
    if "enum" in schema and not (type(value) in _ENUM_SCALARS and any(
            type(choice) is type(value) and choice == value for choice in schema["enum"])):
        return False  # a list or object: Python's == takes True for 1 inside it, JSON not
    if _of_type(value, "number"):
        for word, holds in _BOUNDS.items():
            if word in schema and not (_of_type(schema[word], "number") and
                                       holds(value, schema[word])):
                return False  # NaN too: every comparison with it is False
    return "minLength" not in schema or type(value) is not str or \
        (type(schema["minLength"]) is int and len(value) >= schema["minLength"])


def _of_type(value: Any, name: str) -> bool:
    """Whether ``value`` is surely of JSON type ``name`` (exact Python types: a bool is no
    integer, a subclass of int is left to jsonschema)."""
    return type(value) in _TYPES[name]
