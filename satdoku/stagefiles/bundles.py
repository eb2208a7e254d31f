"""SatInput: the CNF bundle holding the formulas of one shard in one text file.

A bundle is DIMACS text in blocks. A rules block holds the clauses every puzzle of one layout
shares (written once per shard); an instance block holds the instance's header comments, a
``p cnf V C`` line counting its WHOLE formula (rules + own clauses), and only its own clauses::

    c rules sudoku-9.extended
    p cnf 729 11745
    ...shared clauses...
    c instance 1
    c id 1 set top95 line 1 kind sudoku size 9 box 3 encoding extended rules sudoku-9.extended
    p cnf 729 11769
    ...givens as unit clauses...
    c instance 7
    c invalid 80 cells is not a Sudoku size
    c id 7 set top95 line 9

``satdoku extract SET ID`` (or :func:`standalone`) joins rules and own clauses into the plain
DIMACS file any solver accepts. Factoring the rules out keeps a 9x9 instance to a few
hundred bytes instead of ~140 KB.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from satdoku.cnf.dimacs import DimacsError, open_text, parse_dimacs
from satdoku.cnf.formula import Cnf, Formula
from satdoku.stagefiles.families import family
from satdoku.stagefiles.tsv import SIZE_COLUMNS, write_tsv

RULES, INSTANCE = "c rules ", "c instance "


@dataclass
class BundleEntry:
    """One instance of a bundle: its own clauses and the shared rules they build on, or why it
    has none. ``cnf`` joins them into the whole formula on demand (the incremental solve path
    never needs the joined copy)."""

    id: str
    header: dict[str, str] = field(default_factory=dict)
    invalid: str | None = None
    rules: Cnf | None = None  # the shared rules block this formula builds on (same object for all)
    own: list[list[int]] = field(default_factory=list)  # the instance's own clauses
    num_vars: int = 0
    comments: list[str] = field(default_factory=list)

    @property
    def formula(self) -> Formula | None:
        """The formula as shared rules + own clauses, or None for an invalid instance."""
        if self.invalid is not None:
            return None
        return Formula(self.num_vars, self.own, self.rules, list(self.comments))

    @property
    def cnf(self) -> Cnf | None:
        """The whole formula (rules + own clauses), or None for an invalid instance."""
        f = self.formula
        return None if f is None else f.whole()


def header_line(fields: dict[str, object]) -> str:
    return " ".join([f"{k} {v}" for k, v in fields.items()])


def write_rules(fh: IO[str], key: str, cnf: Cnf) -> None:
    fh.write(f"{RULES}{key}\n")
    fh.write(f"p cnf {cnf.num_vars} {len(cnf.clauses)}\n")
    fh.writelines(" ".join(map(str, cl)) + " 0\n" for cl in cnf.clauses)


def write_instance(fh: IO[str], ident: str, header: dict[str, object], num_vars: int,
                   rules_count: int, own: list[list[int]]) -> None:
    fh.write(f"{INSTANCE}{ident}\n")
    fh.write(f"c {header_line(header)}\n")
    fh.write(f"p cnf {num_vars} {rules_count + len(own)}\n")
    if all(map((1).__eq__, map(len, own))):  # unit clauses (a puzzle's givens): one join
        if own:
            fh.write(" 0\n".join([str(cl[0]) for cl in own]) + " 0\n")
        return
    fh.writelines(" ".join(map(str, cl)) + " 0\n" for cl in own)


def write_unit_instance(fh: IO[str], ident: str, header: dict[str, object], num_vars: int,
                        rules_count: int, literals: list[str]) -> None:
    """:func:`write_instance` of an instance whose own clauses are the unit clauses of
    ``literals`` (their decimal texts, in order): the same block."""
    fh.write(f"{INSTANCE}{ident}\nc {header_line(header)}\np cnf {num_vars} "
             f"{rules_count + len(literals)}\n")
    if literals:
        fh.write(" 0\n".join(literals) + " 0\n")


def write_invalid(fh: IO[str], ident: str, reason: str,
                  header: dict[str, object] | None = None) -> None:
    fh.write(f"{INSTANCE}{ident}\nc invalid {reason}\n")
    if header:
        fh.write(f"c {header_line(header)}\n")


def _parse_header(comment: str) -> dict[str, str]:
    toks = comment.split()
    return {toks[i]: toks[i + 1] for i in range(0, len(toks) - 1, 2)}


def _line_batches(fh: IO[str], size: int = 1 << 20) -> Iterator[list[str]]:
    """The lines of a text stream, without their newline, in batches of about ``size``
    characters: a loop over lists costs far less per line than a generator step per line."""
    carry = ""
    while True:
        text = fh.read(size)
        if not text:
            break
        lines = (carry + text).split("\n")
        carry = lines.pop()
        yield lines
    if carry:
        yield [carry]


def _blocks(batches: Iterable[list[str]]) -> Iterator[tuple[str, str, int, list[str]]]:
    """(kind, key, first line number, body lines) for each block."""
    kind = key = ""
    start = n = 0
    body: list[str] = []
    marks = (RULES, INSTANCE)
    for lines in batches:
        for line in lines:
            n += 1
            if line.startswith(marks):
                if kind:
                    yield kind, key, start, body
                kind = "rules" if line.startswith(RULES) else "instance"
                key = line.split(maxsplit=2)[2].strip()
                start, body = n, []
            elif kind:
                body.append(line)
    if kind:
        yield kind, key, start, body


def read_bundle(path: str | Path) -> Iterator[BundleEntry]:
    """Every instance of a bundle in order, each with its whole formula."""
    rules: dict[str, Cnf] = {}
    with open_text(path) as fh:
        for kind, key, start, body in _blocks(_line_batches(fh)):
            where = f"{path} (block at line {start})"
            if kind == "rules":
                rules[key] = parse_dimacs(body, where)
                continue
            if body and body[0].startswith("c invalid"):
                header = _parse_header(body[1][1:]) if len(body) > 1 else {}
                yield BundleEntry(key, header, invalid=body[0][len("c invalid"):].strip())
                continue
            header = _parse_header(body[0][1:]) if body and body[0].startswith("c ") else {}
            rkey = header.get("rules", "-")
            base = rules.get(rkey) if rkey != "-" else Cnf(0, [])
            if base is None:
                raise DimacsError(str(path), start, f"instance {key} needs unknown rules {rkey}")
            quick = _unit_clauses(body)
            if quick is not None and len(quick[2]) + len(base.clauses) == quick[1]:
                num_vars, declared, own_clauses = quick
                comments = [f"instance {key}", body[0][2:].strip()]
            else:
                own = _own_clauses(body) or parse_dimacs(body, where,
                                                         clause_tolerance=len(base.clauses))
                num_vars, declared, own_clauses = own.num_vars, _declared(body), own.clauses
                comments = [f"instance {key}", *own.comments]
            if len(own_clauses) + len(base.clauses) != declared:
                raise DimacsError(str(path), start, f"instance {key}: clause count mismatch")
            yield BundleEntry(key, header, rules=base if rkey != "-" else None, own=own_clauses,
                              num_vars=num_vars, comments=comments)


#: Literal tables of :func:`_unit_clauses`, for formulas up to this many variables.
_TABLE_VARS = 1 << 17
_LITERALS: dict[int, dict[str, int]] = {}


def _literal_table(num_vars: int) -> dict[str, int]:
    """The decimal text of every literal of ``num_vars`` variables -> its value (a dict lookup
    costs a third of ``int()``; canonical text only, so '+5', '05' or '0' are not in it)."""
    table = _LITERALS.get(num_vars)
    if table is None:
        table = _LITERALS[num_vars] = {str(s * v): s * v for v in range(1, num_vars + 1)
                                       for s in (1, -1)}
    return table


def _unit_clauses(body: list[str]) -> tuple[int, int, list[list[int]]] | None:
    """(variables, declared clauses, own clauses) of an instance block whose own clauses are
    all unit clauses (the givens of a puzzle, as :func:`write_instance` writes them): a ``c``
    header line, ``p cnf V C``, then the tokens ``lit 0 lit 0 ...`` with every ``lit`` a
    canonical literal within 1..V. None for any other block, which :func:`_own_clauses` or the
    DIMACS parser reads. DIMACS is a sequence of tokens, so such a block has the same clauses
    however its lines are broken; tests/test_fast_paths.py compares both readers on random
    blocks."""
    if len(body) < 2 or not body[0].startswith("c ") or not body[1].startswith("p cnf "):
        return None
    words = body[1].split()
    if len(words) != 4 or not all(w.isascii() and w.isdigit() for w in words[2:]):
        return None
    num_vars = int(words[2])
    text = " ".join(body[2:])
    if not text.isascii():  # str.split() also splits at non-ASCII spaces (U+00A0, ...), which
        return None  # DIMACS does not: the general parser reads (and rejects) such a block
    tokens = text.split()
    half = len(tokens) // 2
    if len(tokens) % 2 or tokens[1::2].count("0") != half or num_vars > _TABLE_VARS:
        return None
    try:
        units = list(map(_literal_table(num_vars).__getitem__, tokens[::2]))
    except KeyError:
        return None
    return num_vars, int(words[3]), [[lit] for lit in units]


def _own_clauses(body: list[str]) -> Cnf | None:
    """The instance block as this module writes it (header comment, ``p`` line, one clause per
    line), read in one quick pass; None for anything else, which the general DIMACS parser
    then reads and, if malformed, rejects naming the line."""
    if len(body) < 2 or not body[0].startswith("c ") or not body[1].startswith("p cnf "):
        return None
    if not all(line.isascii() for line in body[1:]):  # int() and str.split() take non-ASCII
        return None  # digits and spaces that DIMACS does not: the general parser decides
    try:
        num_vars = int(body[1].split()[2])
        clauses = []
        for line in body[2:]:
            lits = [int(t) for t in line.split()]
            if not lits or lits.pop() != 0 or 0 in lits:
                return None
            clauses.append(lits)
    except ValueError:
        return None
    if clauses and max(abs(x) for c in clauses for x in c) > num_vars:
        return None
    return Cnf(num_vars, clauses, [body[0][2:].strip()])


def _declared(body: list[str]) -> int:
    for line in body:
        if line.startswith("p "):
            return int(line.split()[3])
    return -1


def standalone(path: str | Path, ident: str) -> Cnf:
    """The plain DIMACS formula of one instance of a bundle."""
    for entry in read_bundle(path):
        if entry.id == ident:
            cnf = entry.cnf
            if cnf is None:
                raise KeyError(f"instance {ident} of {path} is invalid: {entry.invalid}")
            return cnf
    raise KeyError(f"no instance {ident} in {path}")


# --- formula sizes (the CNF sizes stage file) ----------------------------------------------
def bundle_sizes(path: str | Path, encoding: str = "") -> Iterator[dict[str, object]]:
    """One CNF sizes row per valid instance of a bundle (invalid instances have no formula).

    Each instance block has a ``p cnf V C`` line counting its whole formula (shared rules plus
    its own clauses); the bytes are those of the standalone DIMACS file a solver would read
    (``p`` line + rules clauses + own clauses), from line lengths, without parsing a literal:
    each line with its newline (the last line of a file that does not end in one, without).

    A bundle written the usual way (every instance block its givens as unit clauses, or
    invalid) is measured from the compiled scan of satdoku/pipeline/_batch.c when it is built:
    the same rows (tests/test_fast_paths.py compares both)."""
    scanned = _scanned_sizes(path, encoding)
    if scanned is not None:
        yield from scanned
        return
    rules_bytes: dict[str, int] = {}
    for kind, key, header, p, nbytes in _block_sizes(path):
        if kind == "rules":
            rules_bytes[key] = nbytes
        elif p is not None:
            v, c, pline = p
            rkey = header.get("rules", "-")
            if rkey != "-" and rkey not in rules_bytes:
                raise ValueError(f"{path}: instance {key} needs unknown rules {rkey}")
            size = int(header["size"]) if header.get("size", "").isdigit() else None
            yield {"id": key, "family": family(header.get("kind"), size),
                   "encoding": header.get("encoding", encoding), "vars": v, "clauses": c,
                   "bytes": pline + rules_bytes.get(rkey, 0) + nbytes}


def _scanned_sizes(path: str | Path, encoding: str) -> list[dict[str, object]] | None:
    """:func:`bundle_sizes` of a bundle the compiled scan takes whole (ASCII, ``\\n`` line
    ends, a final newline, rules blocks of a ``p`` line and clauses, instance blocks of unit
    clauses or invalid), else None."""
    try:
        from satdoku.pipeline._batch import scan_bundle  # type: ignore[import-not-found]
    except ImportError:
        return None
    data = Path(path).read_bytes()
    if not data.endswith(b"\n"):
        return None
    scan = scan_bundle(data)
    if scan is None or b"o" in scan[2]:
        return None
    rules_blocks, ids, kinds, _, lines, declared, num_vars, _, _, heads, sizes = scan
    if not ids:  # a set with no instances (the scan has no arrays to hand then)
        return []
    rules = []  # (line of the block, key, bytes of its clauses)
    for key, line, start, end in rules_blocks:
        body = data[start:end].decode("ascii")
        first = body.split("\n", 1)[0]
        if not body.startswith("p ") or "\nc " in body or "\np " in body:
            return None
        _problem_line(first, line + 1, path)
        rules.append((line, key, len(body) - len(first) - 1))
    out: list[dict[str, object]] = []
    known: dict[str, int] = {}
    at = 0
    nv = memoryview(num_vars).cast("i")
    for i, ident in enumerate(ids):
        while at < len(rules) and rules[at][0] < lines[i]:
            known[rules[at][1]] = rules[at][2]
            at += 1
        if kinds[i] != _UNIT:
            continue
        head = heads[i]
        header = _parse_header(head[1:]) if " id " in f" {head[2:]}" else {}
        rkey = header.get("rules", "-")
        if rkey != "-" and rkey not in known:
            raise ValueError(f"{path}: instance {ident} needs unknown rules {rkey}")
        pline, clause_bytes = sizes[i]
        size = int(header["size"]) if header.get("size", "").isdigit() else None
        out.append({"id": ident, "family": family(header.get("kind"), size),
                    "encoding": header.get("encoding", encoding), "vars": nv[i],
                    "clauses": declared[i], "bytes": pline + known.get(rkey, 0) + clause_bytes})
    return out


_UNIT = ord("u")


_Sizes = tuple[str, str, dict[str, str], "tuple[int, int, int] | None", int]


def _block_sizes(path: str | Path) -> Iterator[_Sizes]:
    """(kind, key, header, (vars, clauses, p-line bytes) or None, clause bytes) per block; a
    block is measured line by line only when it is not the usual header comment, ``p`` line
    and clause lines."""
    with open(path, encoding="utf-8") as fh:
        last: _Sizes | None = None
        last_line = ""
        for kind, key, start, body in _blocks(_line_batches(fh)):
            if last is not None:
                yield last
            quick = _quick_sizes(kind, body, start, path)
            if quick is None:
                numbered = zip(range(start + 1, start + 1 + len(body)), body, strict=True)
                quick = _measure(kind, numbered, path)
            last, last_line = (kind, key, *quick), body[-1] if body else ""
    if last is not None:
        yield last if _ends_in_newline(path) else _without_final_newline(last, last_line)


def _without_final_newline(block: _Sizes, line: str) -> _Sizes:
    """The sizes of a file's last block when its last line has no newline: that line, a
    ``p`` line or clause text, is one byte shorter than counted."""
    kind, key, header, p, nbytes = block
    if line.startswith("p ") and p is not None:
        return kind, key, header, (p[0], p[1], p[2] - 1), nbytes
    if line and not line.startswith("c "):
        return kind, key, header, p, nbytes - 1
    return block


def _ends_in_newline(path: str | Path) -> bool:
    with open(path, "rb") as raw:
        if raw.seek(0, 2) == 0:
            return True
        raw.seek(-1, 2)
        return raw.read(1) in b"\r\n"


def _quick_sizes(kind: str, body: list[str], start: int, path: str | Path
                 ) -> tuple[dict[str, str], tuple[int, int, int], int] | None:
    """The sizes of a block written the usual way (header comment, ``p`` line, clause lines
    with no ``c``/``p`` line among them), without a loop per line; None for any other."""
    if len(body) < 2 or not body[0].startswith("c ") or not body[1].startswith("p "):
        return None
    rest = body[2:]
    text = "\n".join(rest)
    if text.startswith(("c ", "p ")) or "\nc " in text or "\np " in text:
        return None
    header = (_parse_header(body[0][1:]) if kind == "instance" and " id " in f" {body[0][2:]}"
              else {})
    p = _problem_line(body[1], start + 2, path)
    joined = len(text) if text.isascii() else len(text.encode())
    return header, p, joined + 1 if rest else 0  # the join has one newline less than lines


def _problem_line(line: str, n: int, path: str | Path) -> tuple[int, int, int]:
    """(vars, clauses, bytes with its newline) of a ``p`` line (line ``n`` of the file)."""
    parts = line.split()
    if len(parts) != 4 or not (parts[2].isdigit() and parts[3].isdigit()):
        raise ValueError(f"{path}:{n}: bad problem line {line.strip()!r}")
    return int(parts[2]), int(parts[3]), len(line.encode()) + 1


def _measure(kind: str, lines: Iterable[tuple[int, str]], path: str | Path
             ) -> tuple[dict[str, str], tuple[int, int, int] | None, int]:
    """The sizes of a block's (number, line) pairs, line by line, as the general path
    measures them: the last ``p`` line counts, the first comment naming an id is an
    instance's header, every other line is clause text."""
    header: dict[str, str] = {}
    p = None
    nbytes = 0
    for n, line in lines:
        if line.startswith("p "):
            p = _problem_line(line, n, path)
        elif line.startswith("c "):
            if kind == "instance" and not header and " id " in f" {line[2:]}":
                header = _parse_header(line[1:])
        else:
            nbytes += len(line.encode()) + 1
    return header, p, nbytes


def write_sizes(rows: Iterable[Mapping[str, object]], path: str | Path) -> int:
    """Write the CNF sizes stage file of one set and encoding; returns the number of rows."""
    return write_tsv(rows, path, SIZE_COLUMNS)


def write_sizes_of(bundles: Iterable[str | Path], encoding: str, out: str | Path) -> int:
    """The CNF sizes file of a set's bundles in one encoding (its directory made when missing):
    one size row (vars, clauses, bytes) per valid instance; returns the number of rows."""
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    return write_sizes((r for b in bundles for r in bundle_sizes(b, encoding)), out)
