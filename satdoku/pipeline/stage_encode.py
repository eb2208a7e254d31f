"""Encode stage: an Instances shard -> a SatInput bundle (stage file).

Puzzles are encoded with the named encoding (the layout's rules written once per shard); the
instances of a CNF set are copied as they are (encoding label ``dimacs``), after checking that
each file still has the checksum it had when the set was read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from satdoku.cnf.encode import NO_RULES, check_encoding_size, formula, rules_key
from satdoku.cnf.encodings import Unencodable
from satdoku.formats import Record
from satdoku.formats.symbols import domain_symbols, value_table
from satdoku.size_limits import TooLarge
from satdoku.solve import formula_of
from satdoku.stagefiles.bundles import (
    write_instance,
    write_invalid,
    write_rules,
    write_unit_instance,
)
from satdoku.stagefiles.instances import (
    LayoutSignatures,
    StageFileError,
    iter_instance_dicts,
    record_from_dict,
)


def encode_shard(instances: str | Path, out: str | Path, set_name: str, encoding: str,
                 fast: bool = True) -> int:
    """Write the bundle of one shard; returns the number of instances written.

    ``fast``: a puzzle whose own clauses are its givens alone (no instance groups or
    inequalities) of a layout met before is written from its Instances object, no puzzle built
    (:class:`_Givens`, the bytes :func:`satdoku.cnf.encode.formula` gives); False builds every
    record (the plain way the fast one must equal)."""
    written_rules: dict[str, int] = {}
    givens = _Givens(encoding) if fast else None
    n = 0
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(f"c satdoku bundle set {set_name} encoding {encoding}\n")
        for d in iter_instance_dicts(instances):
            n += 1
            plain = givens(d) if givens is not None else None
            if plain is not None and plain[0].key in written_rules:
                form, literals = plain
                header = {"id": str(int(d["id"])), "set": set_name, "line": d["line"],
                          "kind": form.kind, "size": form.size, "encoding": encoding,
                          "rules": form.key}
                write_unit_instance(fh, header["id"], header, form.num_vars,
                                    written_rules[form.key], literals)
                continue
            rec = _record(instances, d, n)
            where = {"id": rec.id, "set": set_name, "line": rec.line}
            if not rec.valid:
                write_invalid(fh, rec.id, rec.error or "invalid", where)
                continue
            if rec.cnf is not None:  # a DIMACS instance: its formula, unchanged
                cnf = formula_of(rec, encoding).whole()
                header = {**where, "kind": "cnf", "size": cnf.num_vars, "encoding": encoding,
                          "rules": NO_RULES}
                write_instance(fh, rec.id, header, cnf.num_vars, 0, cnf.clauses)
                continue
            p = rec.puzzle
            assert p is not None
            try:  # the memory guard, from the sizes alone, before anything is built
                check_encoding_size(p.layout, encoding)
            except (TooLarge, Unencodable) as exc:  # (augmented without boxes: one line)
                write_invalid(fh, rec.id, str(exc), where)
                continue
            f = formula(p, encoding)
            key = rules_key(p, encoding)
            if key == NO_RULES:  # simplified formulas: every clause is the instance's own
                written_rules[key] = 0
            elif key not in written_rules:
                assert f.rules is not None
                write_rules(fh, key, f.rules)
                written_rules[key] = len(f.rules.clauses)
            header = {**where, "kind": p.kind, "size": p.size, "encoding": encoding,
                      "rules": key}
            write_instance(fh, rec.id, header, f.num_vars, written_rules[key], f.own)
    return n


def _record(path: str | Path, d: dict[str, Any], n: int) -> Record:
    """The record of an Instances object (StageFileError naming the file and instance, as
    :func:`read_instances` reports a bad one)."""
    try:
        return record_from_dict(d)
    except (ValueError, KeyError, TypeError) as exc:
        raise StageFileError(f"{path}: instance {d.get('id', n)}: bad instance record: "
                             f"{exc}") from exc


#: literal texts a layout's table may hold (9x9: 810; larger layouts take the record's way)
_LITERAL_TABLE = 1_000_000


@dataclass(frozen=True)
class _Form:
    """What every puzzle of one layout shares in its bundle block (under one encoding), and
    the decimal text of each given's literal: ``literal[c][v]`` for cell ``c`` holding ``v``."""

    key: str
    kind: str
    size: int
    num_vars: int
    ncells: int
    domain: int
    literal: tuple[tuple[str, ...], ...]
    symbols: str  # every character a board of this domain may hold (formats.symbols)
    values: bytes  # bytes.translate table: a symbol's byte -> its value (formats.symbols;
    # read only after every character is checked to be one of ``symbols``)


class _Givens:
    """The bundle block of a puzzle whose own clauses are its givens alone, from its Instances
    object: (the layout's :class:`_Form`, the givens' literals as text), or None for any other
    object (invalid, a CNF file, instance groups or inequalities, a board the reader would
    refuse, a layout too large or simplified away), which goes through its record. The layout
    is built once, from the first object of its signature, through the encoder itself."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self.forms: dict[tuple[Any, ...], _Form | None] = {}
        self.signature = LayoutSignatures()

    def __call__(self, d: dict[str, Any]) -> tuple[_Form, list[str]] | None:
        sig = self.signature(d)
        if sig is None:
            return None
        form = self.forms.get(sig, False)
        if form is False:
            form = self.forms[sig] = self._form(d)
        text = d.get("givens")
        if form is None or type(text) is not str or type(d.get("line")) is not int \
                or not str(d.get("id", "")).isdigit():
            return None
        # the board as parse_board_chars reads it, in two C passes: every character one of
        # the domain's symbols (deleting them leaves nothing), then each byte's value
        board = text.encode("ascii", "replace")
        if len(board) != form.ncells or board.translate(None, form.symbols.encode("ascii")):
            return None
        if "solution" in d:  # the record would check it: a bad one is the record's error
            solution = d["solution"]
            if type(solution) is not str or len(solution) != form.ncells \
                    or solution.strip(form.symbols):
                return None
        literal = form.literal
        return form, [literal[c][v] for c, v in enumerate(board.translate(form.values)) if v]

    def _form(self, d: dict[str, Any]) -> _Form | None:
        try:
            p = record_from_dict(d).puzzle
        except (ValueError, KeyError, TypeError):
            return None
        if p is None or p.extra_groups or p.less_than:
            return None
        try:
            check_encoding_size(p.layout, self.encoding)
        except (TooLarge, Unencodable):
            return None
        key = rules_key(p, self.encoding)
        if key == NO_RULES:
            return None
        f = formula(p, self.encoding)
        if f.own != [[c * p.domain + v] for c, v in enumerate(p.givens) if v]:
            return None  # own clauses beyond the givens: the record's way
        dom = p.domain
        if p.ncells * (dom + 1) > _LITERAL_TABLE:
            return None  # a table that large: the record's way
        literal = tuple(tuple(str(c * dom + v) for v in range(dom + 1)) for c in range(p.ncells))
        return _Form(key, p.kind, p.size, f.num_vars, p.ncells, dom, literal,
                     domain_symbols(dom), value_table())
