# Config checks, set discovery, wildcard constraints and target lists shared by every rule file.
import json
import os
import re
import sys

sys.path.insert(0, workflow.basedir)

from satdoku.pipeline.instances import num_shards, shard_name
from satdoku.solvers import registry

SHARD_SIZE = int(config.get("shard_size", 1000))
TIME_LIMIT = float(config.get("time_limit", 10))
ENCODINGS = list(config.get("encodings", ["extended"]))
SOLVERS = {name: dict(opts or {}) for name, opts in config["solvers"].items()}


# Rules call the `satdoku` command of the environment running Snakemake: put its bin/ first on
# PATH so that `.venv/bin/snakemake` works without activating the venv (cluster jobs re-run this).
envvars:
    "PATH",


os.environ["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), os.environ.get("PATH", "")]
)
CHECK_UNIQUE = bool(config.get("check_unique", False))  # count solutions (0, 1, 2+) per puzzle
PUZZLE_ENCODING = "direct"  # the "encoding" label of puzzle-level solvers (no CNF)


def _set_entry(name):
    entry = config["sets"][name]
    return {"path": entry} if isinstance(entry, str) else dict(entry)


SETS = {name: _set_entry(name) for name in config["sets"]}
for _name, _entry in SETS.items():
    if not os.path.exists(_entry["path"]):
        raise ValueError(
            f"config: set {_name!r}: file {_entry['path']!r} does not exist"
        )
for _name in SOLVERS:
    try:
        registry.make_solver(
            _name, SOLVERS
        )  # unknown names and options fail here, by name
    except (KeyError, ValueError) as exc:
        raise ValueError(f"config: solvers: {exc.args[0]}") from None

SAT_SOLVERS = [s for s in SOLVERS if registry.level(s, SOLVERS) == "cnf"]
PUZZLE_SOLVERS = [s for s in SOLVERS if registry.level(s, SOLVERS) == "puzzle"]
SHARDS = {
    name: [shard_name(k) for k in range(num_shards(e["path"], SHARD_SIZE))]
    for name, e in SETS.items()
}

# Solve jobs share a resource sized to the machine's real cores, whatever --cores says, so that
# solver timings never come from processes fighting over one core.
if "solver_slots" not in workflow.global_resources:
    workflow.register_resource("solver_slots", os.cpu_count() or 1)


def _alternatives(names):
    return "|".join(map(re.escape, names)) if names else "(?!)"


wildcard_constraints:
    set=_alternatives(SETS),
    shard=r"\d{5}",
    encoding=r"[a-z0-9_]+",


def runs():
    """(solver, encoding) pairs of every configured run; puzzle solvers use 'direct'."""
    pairs = [(s, e) for s in SAT_SOLVERS for e in ENCODINGS]
    return pairs + [(s, PUZZLE_ENCODING) for s in PUZZLE_SOLVERS]


def solver_variant(solver):
    """The JSON of one solver's config entry (passed to the stage command)."""
    return json.dumps({solver: SOLVERS[solver]}, sort_keys=True)


def solver_version(solver):
    """Code version + options of one solver: the param that reruns only its jobs."""
    return registry.solver_version(solver, SOLVERS)


def set_instances(wildcards):
    return expand(
        "results/Instances/{set}/{shard}.jsonl",
        set=wildcards.set,
        shard=SHARDS[wildcards.set],
    )


def all_targets():
    targets = []
    for name in SETS:
        targets += [
            f"results/Reports/{name}.txt",
            f"results/Reports/{name}_time.png",
            f"results/Reports/{name}.check",
        ]
        for solver, enc in runs():
            targets.append(f"results/SatSols/{solver}/{enc}/{name}.txt")
            targets.append(f"results/SatOutputTimes/{solver}/{enc}/{name}.tsv")
        targets += [f"results/Reports/{name}_table.{x}" for x in ("md", "csv", "html")]
    # cross-set report (workflow/rules/report.smk)
    targets += [
        "reports/summary.md",
        "reports/summary.csv",
        "reports/summary.html",
        "reports/problems.html",
        "reports/cactus",
        "reports/scatter",
        "reports/encodings.md",
        "reports/encodings.csv",
        "reports/encodings.png",
        "reports/explorer/index.html",
    ]
    return targets
