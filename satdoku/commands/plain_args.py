"""A plain command line read without argparse, for the one-shot commands (``satdoku dpll``).

argparse costs a one-shot process about 18 million instructions (issue 29 goal 1): its import
with gettext's, and then, while the parsers are built, gettext's message-catalogue look-ups,
which import :mod:`locale`. That is a third of what ``satdoku dpll --mode cdcl FILE`` spends
besides the interpreter. A command that lists its arguments as a table (``ARGUMENTS``: names
and argparse settings, which its ``add_arguments`` hands to argparse) can have a plain command
line read here by the same table, with the same result as argparse's namespace.

Plain means: the command word first; every option spelled in full, as its own word, with its
value (if it takes one) as the next word, which does not start with ``-``; the positional
words in one run; each value accepted by the option's ``type`` and ``choices``. Anything else
(``--help``, ``--opt=value``, an abbreviated or unknown option, an option without its value, a
refused value, a positional word after the run, a setting this reader does not know) returns
None, and argparse parses the line instead: help, usage and error messages are argparse's,
word for word. ``tests/test_cli_edges.py`` compares the two on thousands of command lines.
"""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    from typing import Any

#: the argparse settings this reader knows; a table with any other falls back to argparse
KNOWN_SETTINGS = frozenset({"action", "choices", "default", "help", "metavar", "nargs", "type"})
#: the actions it knows: store a value, or True for a flag
ACTIONS = (None, "store", "store_true")
_REFUSED = object()  # a value its type or choices refuse


def plain_namespace(command: str, module: ModuleType, argv: list[str]) -> SimpleNamespace | None:
    """The namespace argparse gives for ``argv`` (``[command, ...]``) by ``module.ARGUMENTS``,
    with ``command`` and ``_module`` set as the CLI's subparser sets them; None when the line
    is not plain (see the module's docstring) or the table holds what this reader does not
    know: argparse then reads it."""
    table = getattr(module, "ARGUMENTS", None)
    if table is None or not argv or argv[0] != command:
        return None
    options: dict[str, tuple[str, dict[str, Any]]] = {}
    positional: tuple[str, dict[str, Any]] | None = None
    values: dict[str, Any] = {}
    for names, settings in table:
        if (not KNOWN_SETTINGS.issuperset(settings)
                or settings.get("action") not in ACTIONS):  # fmt: skip
            return None
        if names[0].startswith("-"):  # argparse's dest: the first long name's words
            long = next((name for name in names if name.startswith("--")), names[0])
            dest = long.lstrip("-").replace("-", "_")
            options.update((name, (dest, settings)) for name in names)
            flag = settings.get("action") == "store_true"
            values[dest] = settings.get("default", False if flag else None)
        elif positional is None and settings.get("nargs") == "+" and len(names) == 1:
            positional = (names[0], settings)
        else:  # a second positional, or one of another count: argparse's to match
            return None
    if positional is None or any(isinstance(values[dest], str) and "type" in settings
                                 for dest, settings in options.values()):  # fmt: skip
        return None  # (argparse converts a string default by its type: not done here)
    words, ended, rest = [], False, argv[1:]
    i = 0
    while i < len(rest):
        word = rest[i]
        if word.startswith("-") and word != "-":  # "-" alone is a file: stdin
            if word not in options:
                return None
            if words:
                ended = True
            dest, settings = options[word]
            if settings.get("action") == "store_true":
                values[dest] = True
                i += 1
                continue
            if i + 1 == len(rest) or rest[i + 1].startswith("-"):
                return None
            value = _converted(rest[i + 1], settings)
            if value is _REFUSED:
                return None
            values[dest] = value
            i += 2
            continue
        if ended:  # positional words after an option that followed the first run
            return None
        words.append(word)
        i += 1
    if not words:
        return None
    name, settings = positional
    converted = [_converted(word, settings) for word in words]
    if _REFUSED in converted:
        return None
    return SimpleNamespace(command=command, **{name: converted}, **values, _module=module)


def _converted(text: str, settings: dict[str, Any]) -> Any:
    """``text`` by the argument's ``type``, checked against its ``choices``; ``_REFUSED`` when
    refused (argparse then says why)."""
    kind = settings.get("type")
    try:
        value = kind(text) if kind is not None else text
    except Exception:  # argparse's error message, from argparse
        return _REFUSED
    choices = settings.get("choices")
    if choices is not None and value not in choices:
        return _REFUSED
    return value
