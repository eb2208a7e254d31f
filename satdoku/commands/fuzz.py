"""`satdoku fuzz`: fuzz a solver (yours or ours) through the solve path it is measured with.

    satdoku fuzz (--solver NAME | --command "BIN ... {cnf} [{proof}] [{result}]" | --target T)
                 [--against minisat22] [--seconds N] [--seed S] [--kinds random,layered,puzzles]
                 [--incremental] --out DIR

Seeded formulas (and small puzzles) go through :func:`satdoku.solve.solve` with the solver's
limits, output parsing, model verification and proof checking; answers are held against
brute force and a python-sat reference. Each failure (wrong answer, bad model, rejected proof,
crash or signal, malformed output, an exit code against the answer, a time-out where the
reference took milliseconds) is shrunk and written as ``DIR/<kind>-<n>.cnf`` with
``DIR/<kind>-<n>.txt`` beside it: what went wrong and the command that reproduces it.
``--replay FILE`` runs one written case again. ``--target`` runs the library's own targets
(docs/fuzzing.md). Exit status: 1 when anything failed, 0 otherwise, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from satdoku.commands.common import int_in, positive_seconds
from satdoku.config import solvers_of_file
from satdoku.formats import read_records
from satdoku.fuzz.campaign import Campaign, print_findings, safe_run, summary
from satdoku.fuzz.cases import quoted, read_case
from satdoku.fuzz.checks import check_targets
from satdoku.fuzz.formulas import KINDS
from satdoku.fuzz.oracles import Reference, drat_trim_path
from satdoku.fuzz.targets import own_targets, solver_target
from satdoku.progress import DEFAULT_INTERVAL, resolve_mode
from satdoku.solvers.external import check_options
from satdoku.solvers.registry import SOLVERS, resolve


def add_arguments(p: argparse.ArgumentParser) -> None:
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--solver", help="a registered solver or a variant of --configfile")
    which.add_argument("--command", help="a solver binary: \"BIN ... {cnf} [{proof}] "
                       "[{result}]\" (split like a shell word list, never run by a shell; "
                       "{proof}: it writes DRAT proofs, which are checked)")
    which.add_argument("--target", help="the library's own targets, comma-separated, or 'all' "
                       "(list them with --target list)")
    p.add_argument("--configfile", help="a configuration whose solvers --solver may name")
    p.add_argument("--against", default="minisat22", help="python-sat reference solver "
                   "(default minisat22; brute force also decides formulas of up to 14 "
                   "variables)")
    p.add_argument("--seconds", type=positive_seconds, default=60.0,
                   help="how long to fuzz (default 60)")
    p.add_argument("--cases", type=int_in(1), default=None,
                   help="stop after this many cases per target (deterministic; instead of "
                   "--seconds)")
    p.add_argument("--seed", type=int_in(0), default=0, help="campaign seed (default 0)")
    p.add_argument("--kinds", default=",".join(KINDS),
                   help=f"formula kinds, comma-separated: {', '.join(KINDS)} (default all)")
    p.add_argument("--incremental", action="store_true", help="API sequences through the "
                   "solver's incremental use (rules once, assumptions per call)")
    p.add_argument("--out", help="where failures are written (nothing is written while "
                   "nothing fails)")
    p.add_argument("--time-limit", type=positive_seconds, default=10.0,
                   help="seconds per formula (default 10); a TIMEOUT counts as a failure when "
                   "the reference decided the formula in under 0.1 s")
    p.add_argument("--max-failures", type=int_in(1), default=10,
                   help="stop after this many failures (each is shrunk; default 10)")
    p.add_argument("--shrink-seconds", type=positive_seconds, default=60.0,
                   help="longest shrink of one failure (default 60)")
    p.add_argument("--drat-trim", help="a drat-trim binary: every UNSAT proof is checked by it "
                   "too (default: $SATDOKU_DRAT_TRIM if set)")
    p.add_argument("--replay", metavar="FILE", help="run one written case again and say "
                   "whether it still fails")
    p.add_argument("--case", metavar="KIND/INDEX", help="run only case INDEX of KIND of this "
                   "seed (as named in a failure's line)")


def run(args: argparse.Namespace) -> int:
    def fail(message: str) -> int:
        print(f"satdoku fuzz: {message}", file=sys.stderr)
        return 2

    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        return fail(f"--kinds: unknown kind {(unknown or [''])[0]!r}; known: {', '.join(KINDS)}")
    if args.out is None and args.replay is None and args.target != "list":
        return fail("--out DIR is needed (where failures are written)")
    try:
        Reference((), args.against).close()
    except Exception as exc:  # python-sat's own error for a name it does not know
        return fail(f"--against {args.against!r}: not a python-sat solver ({exc})")
    with tempfile.TemporaryDirectory(prefix="satdoku-fuzz-") as workdir:
        try:
            targets = _targets(args, workdir, drat_trim_path(args.drat_trim))
        except (KeyError, ValueError) as exc:
            return fail(str(exc.args[0]))
        if args.target == "list":
            for t in targets:
                print(f"{t.name}\t{t.description}")
            return 0
        if args.replay is not None:
            return _replay(args, targets)
        if not any(set(t.kinds) & set(kinds) for t in targets):
            return fail(f"--kinds {args.kinds}: no target takes these (puzzle-level solvers "
                        "take puzzles)")
        mode = resolve_mode(None, sys.stderr)
        campaign = Campaign(targets, args.seed, kinds, Path(args.out), args.shrink_seconds,
                            progress=None if mode == "off" else sys.stderr,
                            progress_every=1.0 if mode == "bar" else DEFAULT_INTERVAL,
                            replay_hint=_hint(args), max_failures=args.max_failures)
        if args.case is not None:
            kind, _, index = args.case.partition("/")
            if kind not in KINDS or not index.isdigit():
                return fail(f"--case {args.case!r}: expected KIND/INDEX, e.g. random/12")
            runs = campaign.run_case(kind, int(index))
        else:
            runs = campaign.run(None if args.cases else args.seconds, args.cases)
    for line in summary(runs):
        print(line, file=sys.stderr)
    print_findings(runs, sys.stdout)
    return 1 if any(r.findings for r in runs) else 0


def _variants(args: argparse.Namespace) -> tuple[str, dict]:  # type: ignore[type-arg]
    """(solver name, variants): ``--solver`` (with ``--configfile``'s solvers) or
    ``--command`` as the solver ``command``."""
    variants = solvers_of_file(args.configfile) if args.configfile else {}
    if args.command is None:
        return args.solver, variants
    entry = {"solver": "external", "command": args.command}
    if "{proof}" in args.command:
        entry["proof"] = "drat"
    check_options(entry)
    variants["command"] = entry
    return "command", variants


def _targets(args: argparse.Namespace, workdir: str, drat_trim: str | None) -> list:  # type: ignore[type-arg]
    if args.target is not None:
        every = own_targets(workdir, args.against, drat_trim) + check_targets(drat_trim,
                                                                              workdir)
        if args.target in ("all", "list"):
            return every
        names = [n.strip() for n in args.target.split(",") if n.strip()]
        known = {t.name: t for t in every}
        missing = [n for n in names if n not in known]
        if missing:
            raise ValueError(f"--target: unknown target {missing[0]!r}; known: "
                             f"{', '.join(known)}")
        return [known[n] for n in names]
    name, variants = _variants(args)
    base, _ = resolve(name, variants)  # KeyError for an unknown solver
    if args.incremental and not SOLVERS[base].incremental:
        raise ValueError(f"--incremental: {name} has no incremental use")
    replay = ["satdoku", "fuzz", *_solver_words(args), "--against", args.against,
              "--time-limit", f"{args.time_limit:g}", "--replay", "{file}"]
    if args.incremental:
        replay.insert(-2, "--incremental")
    return [solver_target(name, variants, workdir, incremental=args.incremental,
                          against=args.against, time_limit=args.time_limit,
                          drat_trim=drat_trim, replay=tuple(replay))]


def _solver_words(args: argparse.Namespace) -> list[str]:
    if args.command is not None:
        return ["--command", args.command]
    return ["--solver", args.solver, *(["--configfile", args.configfile] if args.configfile
                                       else [])]  # fmt: skip


def _hint(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The command that makes one case of an own target again (targets without reproducer
    files of their own)."""
    def hint(target, kind: str, index: int) -> str:  # type: ignore[no-untyped-def]
        return quoted(["satdoku", "fuzz", "--target", target.name, "--seed", str(args.seed),
                       "--case", f"{kind}/{index}", "--out", args.out or "DIR"])

    return hint


def _replay(args: argparse.Namespace, targets: list) -> int:  # type: ignore[type-arg]
    """Run the case of ``--replay FILE`` on the one solver target; exit 1 if it fails."""
    if args.target is not None:
        print("satdoku fuzz: --replay takes --solver or --command (own targets: --case)",
              file=sys.stderr)
        return 2
    target = targets[0]
    path = Path(args.replay)
    try:
        if path.suffix == ".json":
            records = [r for r in read_records(path, "json") if r.puzzle is not None]
            if not records:
                raise ValueError(f"{path}: no puzzle in it")
            case = records[0].puzzle
        else:
            case = read_case(path)
    except (ValueError, OSError) as exc:
        print(f"satdoku fuzz: {exc}", file=sys.stderr)
        return 2
    failure = safe_run(target, case)
    print(f"{path}: {failure.line() if failure else 'ok'}")
    return 1 if failure else 0
