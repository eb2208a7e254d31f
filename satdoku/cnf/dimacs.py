"""DIMACS CNF reading/writing and SAT-competition solver output lines.

Reading accepts the quirks of real files (SATLIB's double spaces in ``p cnf`` and ``%`` trailer,
clauses spanning lines, comments anywhere, gzip / xz / bz2 recognised by magic bytes, stdin) and
rejects malformed input with a :class:`DimacsError` naming the file and line. Files are opened
through :mod:`satdoku.sources`; the reader itself (its C pass and its Python form) lives in
:mod:`satdoku.cnf.dimacs_fast`; this module gives its results as clause lists.
"""

from __future__ import annotations

import io
from array import array
from collections.abc import Iterable, Iterator, Sequence

from satdoku.cnf.dimacs_fast import (
    DimacsArrays,
    DimacsError,
    buffer_to_clauses,
    parse_dimacs_buffer,
    read_dimacs_arrays,
    read_dimacs_buffer,
)
from satdoku.cnf.formula import Cnf
from satdoku.cnf.native import dimacs_passes
from satdoku.size_limits import SizeLimits
from satdoku.sources import open_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:  # annotations only (pathlib costs a one-shot command ~15 M instructions)
    from pathlib import Path
    from typing import IO

__all__ = [
    "DimacsArrays", "DimacsError", "buffer_to_clauses", "format_dimacs", "format_solver_output",
    "iter_blocks", "open_text", "parse_dimacs", "parse_solver_output", "read_dimacs",
    "read_dimacs_arrays", "write_dimacs",
]


def read_dimacs(path: str | Path, clause_tolerance: int = 0,
                limits: SizeLimits | None = None) -> Cnf:
    """Read a DIMACS CNF file (``-`` is stdin; gzip/xz/bz2 by magic bytes) into clause lists:
    the rules and errors of :mod:`satdoku.cnf.dimacs_fast`."""
    buf = read_dimacs_buffer(path, clause_tolerance, limits)
    return Cnf(buf.num_vars, buffer_to_clauses(buf.lits), buf.comments)


def parse_dimacs(lines: Iterable[str], source: str = "<cnf>", clause_tolerance: int = 0,
                 limits: SizeLimits | None = None, engine: str = "auto") -> Cnf:
    """Parse DIMACS text lines (with or without their newlines; line numbers in errors count
    from the first). ``clause_tolerance`` is how far the clause count may differ from the
    header before the text is rejected (0: exact, as the format asks)."""
    text = "\n".join(line.removesuffix("\n") for line in lines)
    buf = parse_dimacs_buffer(text.encode("utf-8", "surrogateescape"), source, clause_tolerance,
                              limits, engine)  # fmt: skip
    return Cnf(buf.num_vars, buffer_to_clauses(buf.lits), buf.comments)


def format_dimacs(cnf: Cnf) -> str:
    """The formula as DIMACS text (comment lines, header, one clause per line)."""
    out = io.StringIO()
    write_dimacs(cnf, out)
    return out.getvalue()


def write_dimacs(cnf: Cnf, fh: IO[str]) -> None:
    """Write the formula as DIMACS: ``c`` lines, ``p cnf V C``, one clause per line."""
    for c in cnf.comments:
        fh.write(f"c {c}\n")
    fh.write(f"p cnf {cnf.num_vars} {len(cnf.clauses)}\n")
    fh.writelines(" ".join(map(str, cl)) + " 0\n" for cl in cnf.clauses)


# --- solver output (SAT competition format) -------------------------------------------------
STATUS_LINE = {"SAT": "s SATISFIABLE", "UNSAT": "s UNSATISFIABLE"}


def format_solver_output(status: str, model: list[int] | None, width: int = 20) -> list[str]:
    """``s`` line plus ``v`` lines (``width`` literals each, last line ends in 0)."""
    lines = [STATUS_LINE.get(status, "s UNKNOWN")]
    if status == "SAT" and model is not None:
        text = _literal_strings(max((abs(v) for v in model), default=0))
        lits = [*map(text.__getitem__, model), "0"]
        for i in range(0, len(lits), width):
            lines.append("v " + " ".join(lits[i : i + width]))
    return lines


_LITERAL_TEXT: dict[int, str] = {0: "0"}


def _literal_strings(n: int) -> dict[int, str]:
    """Decimal text of every literal -n..n, built once (model output is a hot loop)."""
    if len(_LITERAL_TEXT) < 2 * n + 1:
        _LITERAL_TEXT.update({v: str(v) for v in range(-n, n + 1)})
    return _LITERAL_TEXT


def parse_solver_output(lines: Iterable[str],
                        positives_only: bool = False) -> tuple[str, list[int] | None]:
    """Read back ``s``/``v`` lines: (SAT|UNSAT|UNKNOWN, model or None).

    ``positives_only`` keeps only the true variables (all a decoder needs, several times faster
    on the long ``v`` lines of a Sudoku model)."""
    status = "UNKNOWN"
    values: list[str] = []
    for line in lines:
        if line.startswith("v "):
            values.append(line[2:])
        elif line.startswith("s "):
            word = line[2:].strip()
            status = {"SATISFIABLE": "SAT", "UNSATISFIABLE": "UNSAT"}.get(word, "UNKNOWN")
    if status != "SAT":
        return status, None
    tokens = " ".join(values).split()
    if positives_only:  # negative literals are skipped before any int conversion
        return status, [int(t) for t in tokens if t[0] != "-" and t != "0"]
    return status, [v for v in map(int, tokens) if v]


def iter_blocks(
    lines: Iterable[str], marker: str = "c instance "
) -> Iterator[tuple[str, list[str]]]:
    """Split a bundle of concatenated blocks, each opened by ``c instance <id>``."""
    key: str | None = None
    block: list[str] = []
    for raw in lines:
        line = raw.rstrip("\n")
        if line.startswith(marker):
            if key is not None:
                yield key, block
            key, block = line[len(marker) :].strip(), []
        elif key is not None:
            block.append(line)
    if key is not None:
        yield key, block


#: Literals per ``v`` line.
V_WIDTH = 20


def v_lines(model: Sequence[int]) -> str:
    """The ``v`` lines of a model (every literal in the model's order, ``V_WIDTH`` per line,
    the last line ending in 0), written by the compiled pass in ``satdoku/cnf/_dimacs.c`` when
    it is built (a 729-literal 9x9 model in 9 us instead of 60: SatOutput is most of the solve
    stage's bytes), else by :func:`v_lines_python`, the same text."""
    lits = model if type(model) is list or _is_int32_array(model) else [int(x) for x in model]
    native = dimacs_passes()
    if native is None:
        return v_lines_python(lits)
    return str(native.v_lines(lits, V_WIDTH))


def _is_int32_array(model: object) -> bool:
    return isinstance(model, array) and model.typecode == "i" and model.itemsize == 4


def v_lines_python(model: Sequence[int]) -> str:
    """:func:`v_lines` in plain Python (without the compiled pass; the tests' reference)."""
    lits = [str(int(lit)) for lit in model] + ["0"]
    return "".join(["v " + " ".join(lits[i : i + V_WIDTH]) + "\n"
                    for i in range(0, len(lits), V_WIDTH)])
