"""The per-set text report, in the shape users know from the original systems.

Problems (:mod:`satdoku.report.agreement`: failed verifications, solver disagreements, errors,
runs stopped by their limit on every instance, given solutions that differ) come first; then a
table per run; then for each instance its number, the input board, and per run the answer
(board or the timeout/unsat text) with its time in ms.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from satdoku.display import render_board
from satdoku.formats import Record, parse_board
from satdoku.report.agreement import find_problems, problem_headline, unsat_support

STATUS_ORDER = ("SAT", "UNSAT", "TIMEOUT", "MEMOUT", "INVALID", "ERROR")

#: Sets larger than this get per-instance details only for the first DETAIL_HEAD instances and
#: for every instance that is not solved and verified by every run (a 1M-puzzle report stays
#: readable; the stage files keep everything).
DETAIL_LIMIT, DETAIL_HEAD = 2000, 200


def _ms(row: Mapping[str, str] | None) -> str:
    if not row or not row.get("total_seconds"):
        return "-"
    return f"{float(row['total_seconds']) * 1000:.1f} ms"


def _ms_cell(ms: float) -> str:
    """A milliseconds cell of the run table ('-' when nothing was solved)."""
    return f"{'-':>10}" if ms != ms else f"{ms:>8.1f}ms"  # NaN: no solved instance


def run_summary(sols: Sequence[Mapping[str, str]], times: Sequence[Mapping[str, str]]) -> dict:
    """Counts per status, verified answers, and time figures (ms) of one run over one set."""
    counts = {s: sum(1 for r in sols if r["status"] == s) for s in STATUS_ORDER}
    solved = [float(t["total_seconds"]) * 1000 for t in times if t["status"] in ("SAT", "UNSAT")]
    return {
        **counts,
        "verified": sum(1 for r in sols if r["verified"] in ("yes", "proof")),
        "failed": sum(1 for r in sols if r["verified"] == "FAILED"),
        "median_ms": statistics.median(solved) if solved else float("nan"),
        "max_ms": max(solved) if solved else float("nan"),
        "total_s": sum(float(t["total_seconds"]) for t in times),
    }


def uniqueness_line(rows: Sequence[Mapping[str, str]]) -> str:
    """One line summarising the uniqueness check, naming puzzles with several solutions."""
    counts = {v: sum(1 for r in rows if r["verdict"] == v)
              for v in ("unique", "several", "none", "unknown")}
    line = ("Solutions per puzzle (MiniSat, found solution blocked): "
            + ", ".join(f"{n} {v}" for v, n in counts.items()))
    several = [r["id"] for r in rows if r["verdict"] == "several"]
    if several:  # every one is named (wrapped), however many
        import textwrap

        text = textwrap.fill(", ".join(several), width=96, initial_indent="!!! ",
                             subsequent_indent="    ")
        line += f"\n!!! puzzles with more than one solution ({len(several)}):\n{text}"
    return line


def build_report(set_name: str, records: Sequence[Record],
                 sols: Mapping[str, list[dict[str, str]]],
                 times: Mapping[str, list[dict[str, str]]],
                 unique: Sequence[Mapping[str, str]] | None = None,
                 notes: Sequence[str] = (),
                 flags: Sequence[tuple[str, bool, bool]] | None = None,
                 problems: Sequence[str] | None = None) -> str:
    """The whole text report of a set; ``sols``/``times`` map run names to their rows;
    ``unique`` holds the uniqueness rows when that check ran; ``notes`` are shown on top
    (e.g. solvers that do not run on this set). ``flags`` gives (id, valid, has a puzzle) of
    every record, so that only the records shown are looked at (``records`` may then build
    them on demand: :class:`satdoku.stagefiles.instances.InstanceShards`). ``problems``: what
    :func:`find_problems` finds in ``sols``, when the caller has it already."""
    out: list[str] = []
    if flags is None:
        flags = [(r.id, r.valid, r.puzzle is not None) for r in records]
    invalid = sum(1 for _, valid, _ in flags if not valid)
    out.append(f"satdoku report: set {set_name}: {len(records)} instances, {invalid} invalid")
    out.append(f"runs (solver/encoding): {', '.join(sols) or '(none)'}")
    out.extend(f"note: {n}" for n in notes)
    if problems is None:
        problems = find_problems(set_name, sols)
    out.append("")
    if problems:
        out.append(f"!!! {problem_headline(len(problems))}")
        out.extend(f"!!! {p}" for p in problems)
    else:
        out.append("All answers verified; no disagreement between solvers.")
    support = unsat_support(sols)
    if support:
        kinds = {k: sum(1 for v in support.values() if v == k)
                 for k in ("proof", "agreement", "single solver")}
        out.append("UNSAT answers backed by: " + ", ".join(f"{v} {k}" for k, v in kinds.items()))
    if unique is not None:
        out.append(uniqueness_line(unique))
    out.append("")
    header = f"{'run':28} {'SAT':>5} {'UNSAT':>5} {'TIME':>5} {'MEM':>5} {'INV':>5} {'ERR':>5} " \
             f"{'verif':>5} {'median':>10} {'max':>10} {'total':>9}"
    out.append(header)
    out.append("-" * len(header))
    for run in sols:
        s = run_summary(sols[run], times.get(run, []))
        out.append(f"{run:28} {s['SAT']:>5} {s['UNSAT']:>5} {s['TIMEOUT']:>5} {s['MEMOUT']:>5} "
                   f"{s['INVALID']:>5} "
                   f"{s['ERROR']:>5} {s['verified']:>5} {_ms_cell(s['median_ms'])} "
                   f"{_ms_cell(s['max_ms'])} {s['total_s']:>8.2f}s")
    out.append("")
    by_run = {run: {r["id"]: r for r in rows} for run, rows in sols.items()}
    times_by_run = {run: {r["id"]: r for r in rows} for run, rows in times.items()}
    detailed: Sequence[int] = range(len(records))
    if len(records) > DETAIL_LIMIT:
        def notable(ident: str, has_puzzle: bool) -> bool:
            rows = [rows.get(ident) for rows in by_run.values()]
            return not has_puzzle or any(
                r is None or r["status"] != "SAT" or r["verified"] != "yes" for r in rows)

        detailed = [i for i, (ident, _, has_puzzle) in enumerate(flags)
                    if i < DETAIL_HEAD or notable(ident, has_puzzle)]
        out.append(f"Per-instance details: the first {DETAIL_HEAD} of {len(records)} instances and "
                   f"every instance not solved and verified by every run "
                   f"({len(detailed)} in all); the SatSols and times files have them all.")
        out.append("")
    for rec in map(records.__getitem__, detailed):
        title = f"Instance {rec.id} (line {rec.line})" + (f": {rec.name}" if rec.name else "")
        out.append("=" * 60)
        out.append(title)
        if not rec.valid:
            out.append(f"  Instance Invalid: {rec.error}")
            continue
        if rec.cnf is not None:
            out.append(f"  DIMACS {rec.cnf.path}: {rec.cnf.num_vars} variables, "
                       f"{rec.cnf.num_clauses} clauses")
        else:
            assert rec.puzzle is not None
            out.append(f"  input ({rec.puzzle.num_givens} givens):")
            out.append(render_board(rec.puzzle, indent="    "))
        shown: dict[str, str] = {}
        for run, rows in by_run.items():
            row = rows.get(rec.id)
            t = _ms(times_by_run.get(run, {}).get(rec.id))
            if row is None:
                out.append(f"  {run}: no answer")
                continue
            label = f"  {run}: {row['status']}"
            if row["verified"] != "-":
                label += f" (verified: {row['verified']})"
            out.append(f"{label}, {t}")
            if rec.cnf is not None:  # the model is in SatOutput / SatSols
                if row["status"] != "SAT" or row["verified"] != "yes":
                    out.append(f"    {row['solution']}")
            elif row["status"] == "SAT" and row["verified"] == "yes":
                if row["solution"] in shown:
                    out.append(f"    same board as {shown[row['solution']]}")
                else:
                    shown[row["solution"]] = run
                    board = board_of(rec, row["solution"])
                    out.append(render_board(rec.puzzle, board, indent="    "))
            else:
                out.append(f"    {row['solution']}")
    return "\n".join(out) + "\n"


def board_of(rec: Record, text: str) -> tuple[int, ...]:
    """Read back a SatSols board line written in the record's notation."""
    assert rec.puzzle is not None
    board = parse_board(text, rec.notation, rec.puzzle.size)
    return board if board is not None and len(board) == rec.puzzle.ncells else rec.puzzle.givens
