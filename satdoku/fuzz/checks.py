"""Targets beside the solvers: the DRAT checker, every encoding and decoder, the solution
counters, and every reader, each held to an oracle that shares no code with it.

- ``drat``: the compiled checker (backward and forward) against its readable Python twin, text
  and binary, on real proofs of our solvers and on mutated ones (a lemma dropped, moved or
  corrupted, a wrong deletion, the file cut, a random lemma added); their verdicts must agree,
  a proof must never "prove" a satisfiable formula (proofs of a stronger formula, random
  lemmas), and an untouched proof must pass. With drat-trim at hand, it must accept every
  untouched proof of our solvers;
- ``encodings``: on a small puzzle every registered encoding's models, enumerated with
  MiniSat and decoded, are exactly the puzzle's solutions (brute force, up to a limit);
- ``counts``: solution counts of the CSP engine under options drawn from its solvers' schema,
  of the SAT counter and of CP-SAT equal brute force's (up to a limit);
- ``readers``: every format with a writer reads back what it wrote, with itself and by
  detection, for every puzzle family it holds;
- ``plain_instances``: normalize's fast path for plain one-line Sudoku files
  (:mod:`satdoku.stagefiles.plain_instances`) writes, shard by shard, the Instances objects
  the general reader makes, on generated files of plain lines and mutated ones (bad symbols,
  names, quotes, spaces, comments, lines that are not UTF-8, CRLF);
- ``dimacs_files``: DIMACS files and solver answers read as streams against the whole-file
  readable forms (:mod:`satdoku.fuzz.files`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from satdoku import generate as gen
from satdoku.cnf import drat
from satdoku.cnf.codec import codec
from satdoku.cnf.decode import DecodeError
from satdoku.cnf.encode import encoding_applies, simplified_variables
from satdoku.cnf.encodings import ENCODINGS
from satdoku.formats import read_records
from satdoku.formats.format_registry import FORMATS
from satdoku.fuzz import cases as fc
from satdoku.fuzz.cases import Case, Failure
from satdoku.fuzz.files import dimacs_files_target
from satdoku.fuzz.formulas import generate
from satdoku.fuzz.oracles import answer, drat_trim
from satdoku.fuzz.puzzles import (
    brute_count,
    brute_solutions,
    puzzle_make,
    shrink_puzzle,
    small_puzzle,
    write_puzzle,
)
from satdoku.fuzz.shrink import Budget, ddmin, shrink_case
from satdoku.fuzz.targets import (
    Drawn,
    Target,
    draw_options,
    families,
    shrink_drawn,
    write_cnf_case,
    write_drawn,
)
from satdoku.puzzle import FUTOSHIKI, LATIN, Puzzle
from satdoku.solvers import csp
from satdoku.solvers.cdcl.driver import Cdcl
from satdoku.solvers.cpsat import build_model
from satdoku.solvers.dpll import Dpll
from satdoku.solvers.registry import SOLVERS
from satdoku.sources import snapshot_from_bytes
from satdoku.stagefiles.instances import record_to_dict
from satdoku.stagefiles.plain_instances import plain_shard

#: solutions enumerated per puzzle (brute force and every encoding) before comparing
SOLUTION_LIMIT = 24
#: solutions counted per puzzle by every counter
COUNT_LIMIT = 6


# --- the DRAT checker ----------------------------------------------------------------------------
MUTATIONS = ("none", "drop", "move", "flip", "rename", "delete", "delete-needed", "cut",
             "lemma", "repeat")


@dataclass(frozen=True)
class ProofCase:
    """A formula, a proof of it (text steps) and what was done: ``sat`` the formula is
    satisfiable, ``mutation`` how the proof was changed, ``binary`` checked in binary too."""

    case: Case
    proof: tuple[str, ...]
    sat: bool
    mutation: str
    binary: bool


def _our_proof(case: Case, rng: random.Random) -> list[str]:
    """A DRUP proof of an UNSAT formula by our CDCL (C kernel, sometimes the Python one, with
    small clause-database schedules so deletions appear) or DPLL."""
    cnf = case.cnf()
    if rng.random() < 0.2 and cnf.num_vars <= 30:
        import io

        out = io.StringIO()
        Dpll(cnf.num_vars, cnf.clauses, proof=out).solve()
        return out.getvalue().splitlines()
    solver = Cdcl(cnf.num_vars, cnf.clauses, proof=True, reduce_first=rng.choice((3, 2000)),
                  reduce_inc=2, backend="python" if rng.random() < 0.1 else "auto")
    solver.solve()
    return [line.rstrip("\n") for line in solver.proof_lines()]


def _stronger_proof(case: Case, rng: random.Random) -> list[str]:
    """For a satisfiable formula: a refutation of the formula plus random units (an UNSAT
    superset), or random lemmas; no correct checker accepts either for the formula itself."""
    if rng.random() < 0.3:
        n = max(1, case.num_vars)
        lines = [" ".join(str(rng.choice((1, -1)) * rng.randint(1, n))
                          for _ in range(rng.randint(0, 3))) + " 0" for _ in range(6)]
        return [*(ln.strip() for ln in lines), "0"]
    units: list[tuple[int, ...]] = []
    while answer([*case.clauses, *units]) and len(units) < 2 * case.num_vars + 2:
        v = rng.randint(1, max(1, case.num_vars))
        units.append((rng.choice((v, -v)),))
    return _our_proof(Case(case.num_vars, case.clauses + tuple(units)), rng)


def mutate(lines: list[str], how: str, rng: random.Random, clauses: fc.Clauses) -> list[str]:
    """One change to a proof (see :data:`MUTATIONS`)."""
    if how == "none" or not lines:
        return lines
    i = rng.randrange(len(lines))
    if how == "drop":
        return lines[:i] + lines[i + 1:]
    if how == "move":
        j = rng.randrange(len(lines))
        moved = lines[:i] + lines[i + 1:]
        return [*moved[:j], lines[i], *moved[j:]]
    words = lines[i].split()
    lits = [w for w in words if w not in ("d", "0")]
    if how in ("flip", "rename") and lits:
        k = rng.randrange(len(lits))
        x = int(lits[k])
        lits[k] = str(-x if how == "flip" else (abs(x) % 7 + 1) * (1 if x > 0 else -1))
        head = ["d"] if words[0] == "d" else []
        return [*lines[:i], " ".join([*head, *lits, "0"]), *lines[i + 1:]]
    if how == "delete":  # a deletion of a clause that may not be there
        return [*lines[:i], "d " + lines[i].removeprefix("d "), *lines[i:]]
    if how == "delete-needed" and clauses:  # an original clause deleted early
        clause = rng.choice(clauses)
        return [*lines[:i], "d " + " ".join(map(str, [*clause, 0])), *lines[i:]]
    if how == "cut":
        text = "\n".join(lines)
        return [text[: rng.randrange(len(text) + 1)]]
    if how == "lemma":
        top = max([1, *(abs(x) for c in clauses for x in c)])
        lemma = [rng.choice((1, -1)) * rng.randint(1, top) for _ in range(rng.randint(1, 3))]
        return [*lines[:i], " ".join(map(str, [*lemma, 0])), *lines[i:]]
    return [*lines[:i], lines[i], *lines[i:]]  # "repeat": a step twice


def drat_target(drat_trim: str | None = None, workdir: str | None = None) -> Target:
    def make(rng: random.Random, kind: str) -> ProofCase:
        case = generate(kind, rng)
        sat = answer(case.clauses)
        proof = _stronger_proof(case, rng) if sat else _our_proof(case, rng)
        how = "none" if rng.random() < 0.3 else rng.choice(MUTATIONS[1:])
        proof = [ln for ln in proof if ln.strip()]
        return ProofCase(case, tuple(mutate(proof, how, rng, case.clauses)), sat, how,
                         rng.random() < 0.5)

    def run(pc: ProofCase) -> Failure | None:
        cnf = pc.case.cnf()
        lines = list(pc.proof)
        verdicts = {}
        forms: list[tuple[str, Any]] = [("text", lines)]
        whole = all(ln.split()[-1:] == ["0"] for ln in lines if not ln.startswith("c"))
        if pc.binary and whole and "\n" not in "".join(lines):  # complete steps: a binary twin
            forms.append(("binary", drat.to_binary(lines)))
        for form, proof in forms:
            verdicts[f"python {form}"] = drat.check_proof(cnf, proof, engine="python").status
            if drat.has_c_checker():
                verdicts[f"c-forward {form}"] = drat.check_proof(cnf, proof, engine="c",
                                                                 mode="forward").status
                verdicts[f"c-backward {form}"] = drat.check_proof(cnf, proof, engine="c").status
        shown = ", ".join(f"{k} {v}" for k, v in verdicts.items())
        forward = {v for k, v in verdicts.items() if "backward" not in k}
        if len(forward) > 1:
            return Failure(fc.DISAGREEMENT, f"forward checkers differ: {shown}")
        if drat.VERIFIED in forward and drat.REJECTED in verdicts.values():
            return Failure(fc.DISAGREEMENT, f"the backward checker rejects what the forward "
                                            f"ones accept: {shown}")
        if pc.sat and drat.VERIFIED in verdicts.values():
            return Failure(fc.WRONG_ANSWER, f"a proof 'refutes' a satisfiable formula: {shown}")
        if not pc.sat and pc.mutation == "none" and forward != {drat.VERIFIED}:
            return Failure(fc.REJECTED_PROOF, f"our solver's own proof is rejected: {shown}")
        if drat_trim and workdir:
            return _against_drat_trim(drat_trim, workdir, pc)
        return None

    def shrink(pc: ProofCase, fails: Callable[[Any], bool], budget: Budget) -> ProofCase:
        steps = ddmin(pc.proof, lambda s: fails(replace(pc, proof=tuple(s))), budget)
        pc = replace(pc, proof=tuple(steps))
        # a smaller formula must keep the answer the verdicts are judged by (cut to an empty
        # clause, a satisfiable formula's case became an UNSAT one that any proof refutes)
        case = shrink_case(pc.case, lambda c: answer(c.clauses) == pc.sat
                           and fails(replace(pc, case=c)), budget)
        return replace(pc, case=case)

    def write(prefix: str, pc: ProofCase, comments: list[str]) -> list[str]:
        files = write_cnf_case(prefix, pc.case, [*comments, f"mutation {pc.mutation}"])
        with open(prefix + ".drat", "w", encoding="ascii") as fh:
            fh.write("".join(line + "\n" for line in pc.proof))
        return [*files, prefix + ".drat"]

    return Target("drat", "the DRAT checkers: compiled backward and forward against their "
                  "readable Python twin, text and binary, real and mutated proofs",
                  ("random", "layered", "edges"), make, run, shrink, write)


def _against_drat_trim(binary: str, workdir: str, pc: ProofCase) -> Failure | None:
    """drat-trim must accept our solvers' own proofs, untouched. On a mutated proof the two
    backward checkers may differ and both be sound: each checks only the lemmas of the core it
    finds, and when a proof holds a wrong lemma one may find a valid core around it while the
    other's core holds it (seen both ways; a verdict on a satisfiable formula is judged by
    the rules above, not here)."""
    import os

    if pc.sat or pc.mutation != "none":
        return None
    path = os.path.join(workdir, "fuzz.drat")
    with open(path, "w", encoding="ascii") as fh:
        fh.write("".join(line + "\n" for line in pc.proof))
    if drat_trim(binary, pc.case.cnf(), path, workdir) is False:
        return Failure(fc.REJECTED_PROOF, "drat-trim rejects our solver's own proof")
    return None


# --- encodings and decoders ----------------------------------------------------------------------
def encoding_boards(puzzle: Puzzle, encoding: str, limit: int) -> list[tuple[int, ...]] | str:
    """Up to ``limit`` boards decoded from distinct models of the encoding's formula (MiniSat,
    each found board blocked), or why a model did not decode to a solution."""
    from pysat.solvers import Minisat22

    enc = codec(encoding)
    cnf = enc.formula(puzzle).whole()
    dom = puzzle.domain
    new_of = ({v: i for i, v in enumerate(simplified_variables(puzzle), 1)}
              if enc.encoding.simplified else None)  # fmt: skip
    boards = []
    with Minisat22(bootstrap_with=cnf.clauses) as s:
        while len(boards) < limit and s.solve():
            try:
                board = enc.decode(s.get_model(), puzzle)
            except DecodeError as exc:
                return f"{encoding}: a model does not decode: {exc}"
            problems = puzzle.check_solution(board)
            if problems:
                return f"{encoding}: a model decodes to a non-solution: {problems[0]}"
            boards.append(board)
            direct = [c * dom + v for c, v in enumerate(board)]
            block = [-(new_of[x] if new_of is not None else x) for x in direct
                     if new_of is None or x in new_of]  # fmt: skip
            if not block:
                break
            s.add_clause(block)
    return boards


def encodings_target() -> Target:
    def run(puzzle: Puzzle) -> Failure | None:
        truth = set(brute_solutions(puzzle, SOLUTION_LIMIT + 1))
        for name in ENCODINGS:
            if not encoding_applies(puzzle.layout, name):
                continue  # (augmented needs boxes; its refusal is tested where it is made)
            boards = encoding_boards(puzzle, name, SOLUTION_LIMIT + 1)
            if isinstance(boards, str):
                return Failure(fc.BAD_MODEL, boards)
            if len(set(boards)) != len(boards):
                return Failure(fc.DISAGREEMENT, f"{name}: a board decoded twice")
            if len(truth) <= SOLUTION_LIMIT and set(boards) != truth:
                return Failure(fc.DISAGREEMENT, f"{name}: {len(boards)} solutions decoded, "
                                                f"brute force finds {len(truth)}")
            if len(truth) > SOLUTION_LIMIT and len(boards) <= SOLUTION_LIMIT:
                return Failure(fc.DISAGREEMENT, f"{name}: {len(boards)} solutions decoded, "
                                                f"brute force finds more than {SOLUTION_LIMIT}")
        return None

    return Target("encodings", "every encoding decodes to the puzzle's solution set",
                  ("puzzles",), puzzle_make, run, shrink_puzzle, write_puzzle)


# --- solution counters ---------------------------------------------------------------------------
def cpsat_count(puzzle: Puzzle, limit: int) -> int:
    """CP-SAT's solution count up to ``limit`` (every solution enumerated, one worker)."""
    from ortools.sat.python import cp_model

    model, _ = build_model(puzzle)

    class Counter(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.n = 0

        def on_solution_callback(self) -> None:
            self.n += 1
            if self.n >= limit:
                self.stop_search()

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    solver.parameters.catch_sigint_signal = False
    counter = Counter()
    solver.solve(model, counter)
    return counter.n


def counts_target() -> Target:
    csp_family = next(n for n in families() if SOLVERS[n].factory.endswith("make_csp"))
    schema = SOLVERS[csp_family].option_schema

    def make(rng: random.Random, kind: str) -> Drawn:
        return Drawn(small_puzzle(rng), draw_options(schema, rng))

    def run(drawn: Drawn) -> Failure | None:
        puzzle, options = drawn.case, drawn.options
        truth = brute_count(puzzle, COUNT_LIMIT)
        counts = {f"csp {dict(options)}": csp.count_solutions(puzzle, COUNT_LIMIT, **options),
                  "sat": gen.count_solutions(puzzle, COUNT_LIMIT, "sat"),
                  "cpsat": cpsat_count(puzzle, COUNT_LIMIT)}
        wrong = {k: v for k, v in counts.items() if v != truth}
        if wrong:
            shown = ", ".join(f"{k}: {v}" for k, v in wrong.items())
            return Failure(fc.DISAGREEMENT, f"brute force counts {truth} (limit {COUNT_LIMIT}); "
                                            f"{shown}")
        return None

    return Target("counts", "solution counts: the CSP engine (options of its schema), the SAT "
                  "counter and CP-SAT against brute force", ("puzzles",), make, run,
                  shrink_drawn, write_drawn)


# --- readers -------------------------------------------------------------------------------------
def _key(p: Puzzle) -> tuple[Any, ...]:
    """A puzzle up to the order of its relations (text grids list them row by row)."""
    return (p.kind, p.layout, p.givens, tuple(sorted(p.less_than)), p.extra_groups)


def read_text(text: str, fmt: str) -> list[Any]:
    """The records of a file's text, read with ``fmt`` (``auto``: detected)."""
    data = text.encode("utf-8")
    snapshot = snapshot_from_bytes(data, "fuzz.txt", len(data) + 1)
    return list(read_records("fuzz.txt", fmt, snapshot=snapshot))


_HOLDS: dict[tuple[str, Any], bool] = {}


def holds(fmt: str, puzzle: Puzzle) -> bool:
    """Whether a format holds puzzles of this layout and kind: its writer takes the empty
    puzzle of the layout (relations aside) and its reader gives it back."""
    key = (fmt, puzzle.layout, puzzle.kind, bool(puzzle.less_than))
    if key not in _HOLDS:
        empty = replace(puzzle, givens=(0,) * puzzle.ncells)
        try:
            back = read_text(FORMATS[fmt].write([empty]), fmt)  # type: ignore[misc]
            _HOLDS[key] = [r.puzzle and _key(r.puzzle) for r in back] == [_key(empty)]
        except ValueError:
            _HOLDS[key] = False
    return _HOLDS[key]


def _ambiguous(puzzle: Puzzle) -> bool:
    """A Latin-family board (Latin, or Futoshiki without relations) of square side: its grid
    is a Sudoku grid too, so reading it needs the format named (docs/formats.md)."""
    from math import isqrt

    latin_like = puzzle.kind == LATIN or (puzzle.kind == FUTOSHIKI and not puzzle.less_than)
    return latin_like and isqrt(puzzle.size) ** 2 == puzzle.size


def readers_target() -> Target:
    def run(puzzle: Puzzle) -> Failure | None:
        for fmt, spec in FORMATS.items():
            if spec.write is None or not holds(fmt, puzzle):
                continue
            text = spec.write([puzzle])
            back = read_text(text, fmt)
            if [r.puzzle and _key(r.puzzle) for r in back] != [_key(puzzle)]:
                why = back[0].error if back and back[0].error else "another puzzle"
                return Failure(fc.DISAGREEMENT, f"format {fmt} reads back {why}")
            if _ambiguous(puzzle):
                continue
            # detection may take a text for another family's, but never loses the givens or
            # the relations
            auto = read_text(text, "auto")
            same = [r.puzzle is not None and r.puzzle.givens == puzzle.givens
                    and sorted(r.puzzle.less_than) == sorted(puzzle.less_than) for r in auto]
            if same != [True]:
                why = next((r.error for r in auto if r.error), "another puzzle")
                return Failure(fc.DISAGREEMENT, f"format {fmt} detected and read back: {why}")
        return None

    return Target("readers", "every format with a writer reads back what it wrote",
                  ("puzzles",), puzzle_make, run, shrink_puzzle, write_puzzle)


# --- plain instances ------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlainFile:
    """A generated puzzle file (its lines, without line ends) and the shard size it is read
    in."""

    name: str
    lines: tuple[bytes, ...]
    shard_size: int

    @property
    def data(self) -> bytes:
        return b"\n".join(self.lines) + b"\n"


_CSV_HEADERS = (b"puzzle,solution", b"quizzes,solutions", b"id,puzzle,solution,note",
                b"Puzzle", b"solution,puzzle", b"puzzle,solution,")
#: what a mutation may put into a line: symbols of other sizes, case, empty symbols, spaces,
#: quotes, commas, a comment sign, a byte that is not UTF-8
_NOISE = (b"x", b" ", b"\t", b'"', b",", b"a", b"G", b"g", b"0", b"-", b".", b"#", b"\xff",
          "\u00e9".encode(), b"\r", b"10")


def _plain_board(rng: random.Random, box: int, empty: float) -> bytes:
    side = box * box
    symbols = "123456789ABCDEFGHIJKLMNOP"[:side]
    cells = [rng.choice(".0-") if rng.random() < empty else rng.choice(symbols)
             for _ in range(side * side)]
    if side > 9 and rng.random() < 0.3:
        cells = [c.lower() for c in cells]
    return "".join(cells).encode()


def _mutated(rng: random.Random, line: bytes) -> bytes:
    k = rng.randrange(max(1, len(line)))
    how = rng.randrange(6)
    if how == 0:
        return line[:k] + rng.choice(_NOISE) + line[k + 1:]
    if how == 1:
        return line[:k] + line[k + 1:]
    if how == 2:
        return line + rng.choice((b" name", b"\tname", b" ", b",", b",x"))
    if how == 3:
        return rng.choice((b"", b"# a comment", b"   ", b"title line"))
    if how == 4:
        return b'"' + line + b'"'
    return line[:k] + rng.choice(_NOISE) + line[k:]


def plain_file(rng: random.Random, kind: str = "csv") -> PlainFile:
    """A puzzle file of up to 30 lines in the ``line`` or CSV notation, most lines plain."""
    box = rng.choice((2, 3, 3, 4)) if rng.random() < 0.9 else rng.choice((2, 3, 4, 5))
    mutate = rng.choice((0.0, 0.1, 0.4))
    header = rng.choice(_CSV_HEADERS) if kind == "csv" else None
    lines: list[bytes] = [header] if header is not None else []
    for _ in range(rng.randint(1, 30)):
        size = box if rng.random() < 0.9 else rng.choice((2, 3, 4))
        board = _plain_board(rng, size, rng.random())
        if header is not None:
            sol = rng.choice((_plain_board(rng, size, 0.0), b"", _plain_board(rng, size, 0.1)))
            cols = {b"puzzle": board, b"quizzes": board, b"Puzzle": board, b"solution": sol,
                    b"solutions": sol, b"id": str(len(lines)).encode(), b"note": b"n"}
            board = b",".join(cols.get(c, b"") for c in header.split(b","))
        lines.append(_mutated(rng, board) if rng.random() < mutate else board)
    name = "fuzz.csv" if kind == "csv" and rng.random() < 0.8 else "fuzz.txt"
    return PlainFile(name, tuple(lines), rng.choice((1, 2, 3, 7, 100)))


def _instances_of(records: Any) -> list[str]:
    return [repr(r if isinstance(r, dict) else record_to_dict(r)) for r in records]


def plain_instances_target() -> Target:
    def run(case: PlainFile) -> Failure | None:
        snap = snapshot_from_bytes(case.data, case.name)
        for first in range(1, len(snap.lines) + 1, case.shard_size):
            stop = first + case.shard_size
            fast = plain_shard(snap, "auto", first, stop)
            if fast is None:
                return None  # not a notation the fast path knows: the general path reads it
            got = _instances_of(fast)
            want = _instances_of(read_records(case.name, "auto", False, first, stop,
                                              snapshot=snap))
            if got != want:
                where = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b),
                             min(len(got), len(want)))
                return Failure(fc.DISAGREEMENT, f"shard from line {first}: object {where + 1} "
                                                f"differs from the general reader's "
                                                f"({len(got)} objects, general {len(want)})")
        return None

    def shrink(case: PlainFile, fails: Callable[[Any], bool], budget: Budget) -> PlainFile:
        lines = ddmin(list(case.lines), lambda ls: fails(replace(case, lines=tuple(ls))), budget)
        return replace(case, lines=tuple(lines))

    def write(prefix: str, case: PlainFile, comments: list[str]) -> list[str]:
        path = f"{prefix}.{case.name.rpartition('.')[2]}"
        with open(path, "wb") as fh:
            fh.write(case.data)
        with open(prefix + ".txt", "w", encoding="utf-8") as fh:
            fh.write("\n".join([*comments, f"shard size {case.shard_size}"]) + "\n")
        return [path, prefix + ".txt"]

    return Target("plain_instances", "normalize's fast path for plain one-line Sudoku files "
                  "against the general reader, shard by shard", ("csv", "line"), plain_file,
                  run, shrink, write)


def check_targets(drat_trim: str | None = None, workdir: str | None = None) -> list[Target]:
    """The targets of this module."""
    return [drat_target(drat_trim, workdir), encodings_target(), counts_target(),
            readers_target(), plain_instances_target(), dimacs_files_target(workdir)]
