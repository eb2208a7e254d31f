# Config checks, set plans, path templates, input functions and target lists: every rule file
# takes its paths and settings from here (and the path templates from satdoku/stagefiles/paths.py,
# which the library's reports and `satdoku extract` use too).
import json
import os
import re
import sys

sys.path.insert(0, workflow.basedir)

from satdoku.config import ConfigError, check, with_preset
from satdoku.limits import Limits, set_default_limits
from satdoku.pipeline.sets import SetError, plan
from satdoku.solvers import registry
from satdoku.stagefiles import paths as stage
from satdoku.stagefiles.paths import shard_name

# --- configuration: checked before anything is planned (one line per problem, no traceback) ---
try:
    config.update(
        check(
            config,
            os.path.join(workflow.basedir, "workflow/schemas/config.schema.yaml"),
            check_paths=False,
        )
    )
except ConfigError as exc:
    sys.exit(str(exc))

set_default_limits(
    Limits(**config["limits"])
)  # the readers' size guard, for planning too
SOLVERS = {name: dict(opts or {}) for name, opts in config["solvers"].items()}
ENCODINGS = list(config["encodings"])
TIME_LIMIT = float(config["time_limit"])
CHECK_UNIQUE = bool(config["check_unique"])
SAT_SOLVERS = [s for s in SOLVERS if registry.level(s, SOLVERS) == registry.CNF]
PUZZLE_SOLVERS = [s for s in SOLVERS if registry.level(s, SOLVERS) == registry.PUZZLE]


def _set_entry(name):
    entry = config["sets"][name]
    return {"path": entry} if isinstance(entry, str) else dict(entry)


SETS = {name: _set_entry(name) for name in config["sets"]}
PLANS = {}
for _name, _entry in SETS.items():
    try:
        PLANS[_name] = plan(_entry["path"], _entry.get("format", "auto"))
    except SetError as exc:
        sys.exit(f"config: sets.{_name}: {exc}")


def _auto_cores():
    """Cores `shard_size: auto` balances over: the run's --cores (at most the machine's) for a
    local run; 1 on a cluster executor and inside its jobs, which re-plan the DAG with other
    --cores values and must arrive at the same shards."""
    if not (workflow.is_main_process and workflow.local_exec):
        return 1
    try:
        cores = int(workflow.cores)
    except Exception:  # no --cores (dry run, --lint): the machine's
        cores = os.cpu_count() or 1
    return max(1, min(cores, os.cpu_count() or 1))


SHARD_SIZES = {
    name: p.shard_size(config["shard_size"], _auto_cores()) for name, p in PLANS.items()
}
SHARDS = {
    name: [shard_name(k) for k in range(p.shards(SHARD_SIZES[name]))]
    for name, p in PLANS.items()
}


# Rules call the `satdoku` command of the environment running Snakemake: put its bin/ first on
# PATH so that `.venv/bin/snakemake` works without activating the venv (cluster jobs re-run this).
envvars:
    "PATH",


os.environ["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), os.environ.get("PATH", "")]
)

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


# --- path templates (results/ + the stage-file templates of satdoku/stagefiles/paths.py) ----
def results(template):
    return f"{stage.RESULTS}/{template}"


INSTANCES = results(stage.INSTANCES)
SATINPUT = results(stage.SATINPUT)
SATOUTPUT = results(stage.SATOUTPUT)
TIMES_SHARD = results(stage.TIMES_SHARD)
TIMES = results(stage.TIMES)
SOLS_SHARD = results(stage.SOLS_SHARD)
SOLS = results(stage.SOLS)
SOLS_TEXT = results(stage.SOLS_TEXT)
UNIQUE_SHARD = results(stage.UNIQUE_SHARD)
UNIQUE = results(stage.UNIQUE)
CNF_SIZES = results(stage.CNF_SIZES)
SET_REPORT = results(stage.SET_REPORT)
SET_TIME_PLOT = results(stage.SET_TIME_PLOT)
SET_CHECK = results(stage.SET_CHECK)
SET_TABLE = results(stage.SET_TABLE)
LOGS = results(stage.LOGS)
REPORTS = stage.REPORTS


# --- what runs on which set -------------------------------------------------------------------
def is_cnf_set(name):
    return PLANS[name].cnf


def set_encodings(name):
    """The SatInput encodings of a set: the configured ones, or `dimacs` for a CNF set."""
    return [stage.DIMACS] if is_cnf_set(name) else ENCODINGS


def set_runs(name):
    """(solver, encoding) of every run on a set: SAT solvers x its encodings, puzzle-level
    solvers with `direct` (not on CNF sets: they have no puzzles)."""
    runs = [(s, e) for s in SAT_SOLVERS for e in set_encodings(name)]
    if not is_cnf_set(name):
        runs += [(s, stage.DIRECT) for s in PUZZLE_SOLVERS]
    return runs


def skipped_solvers(name):
    """Configured solvers that do not run on a set (puzzle-level solvers on a CNF set)."""
    return PUZZLE_SOLVERS if is_cnf_set(name) else []


def set_time_limit(name):
    return float(SETS[name].get("time_limit", TIME_LIMIT))


def all_runs():
    """Every (set, solver, encoding) of the configuration."""
    return [(name, s, e) for name in SETS for s, e in set_runs(name)]


def solver_variant(solver):
    """The JSON of one solver's config entry (passed to the stage command)."""
    return json.dumps({solver: SOLVERS[solver]}, sort_keys=True)


def solver_version(solver):
    """Code version + options of one solver: the param that reruns only its jobs (computed
    from the registry and source hashes; no solver is built while the DAG is planned).
    """
    return registry.solver_version(solver, SOLVERS)


# --- input functions --------------------------------------------------------------------------
def set_instances(wildcards):
    return expand(INSTANCES, set=wildcards.set, shard=SHARDS[wildcards.set])


def set_file(template, wildcards, **extra):
    """One per-set file of every run on the set, as {run: path} (run = solver/encoding)."""
    return {
        f"{s}/{e}": template.format(set=wildcards.set, solver=s, encoding=e, **extra)
        for s, e in set_runs(wildcards.set)
    }


def run_args(paths):
    """RUN=PATH command-line arguments of a {run: path} mapping."""
    return " ".join(f"{run}={path}" for run, path in paths.items())


def all_set_results(wildcards=None):
    """Every gathered stage file the cross-set reports read."""
    files = []
    for name in SETS:
        files += expand(INSTANCES, set=name, shard=SHARDS[name])
        for s, e in set_runs(name):
            files += [
                SOLS.format(set=name, solver=s, encoding=e),
                TIMES.format(set=name, solver=s, encoding=e),
            ]
    return files


def size_files():
    """{encoding/set: CNF sizes file} of every set and SatInput encoding (SAT solvers only)."""
    if not SAT_SOLVERS:
        return {}
    return {
        f"{e}/{name}": CNF_SIZES.format(encoding=e, set=name)
        for name in SETS
        for e in set_encodings(name)
    }


def all_targets():
    targets = []
    for name in SETS:
        targets += [
            SET_REPORT.format(set=name),
            SET_TIME_PLOT.format(set=name),
            SET_CHECK.format(set=name),
        ]
        targets += [SET_TABLE.format(set=name, ext=x) for x in ("md", "csv", "html")]
        for s, e in set_runs(name):
            targets.append(SOLS_TEXT.format(set=name, solver=s, encoding=e))
            targets.append(TIMES.format(set=name, solver=s, encoding=e))
    targets += [
        f"{REPORTS}/summary.md",
        f"{REPORTS}/summary.csv",
        f"{REPORTS}/summary.html",
        f"{REPORTS}/problems.html",
        f"{REPORTS}/cactus",
        f"{REPORTS}/scatter",
        f"{REPORTS}/encodings.md",
        f"{REPORTS}/encodings.csv",
        f"{REPORTS}/encodings.png",
        f"{REPORTS}/explorer/index.html",
    ]
    return targets


def section(name):
    """A config section (ltn, csp_experiment) with its preset applied, or {} when absent."""
    try:
        return with_preset(config[name], config.get(f"{name.split('_')[0]}_preset"))
    except KeyError:
        return {}
    except ConfigError as exc:
        sys.exit(f"{exc} ({name})")


def hook_pages():
    """Report pages the LTN and CSP branches write (results/Reports/ltn_*, csp_*): the summary
    waits for them and includes them."""
    return [
        t
        for t in ltn_targets() + csp_targets()
        if t.endswith((".md", ".png", ".csv", ".tsv"))
    ]


# --- LTN branch (ltn.smk) and CSP experiment (csp.smk) settings and targets ----------------
LTN = section("ltn")
LTN_DIR = results("LTN")


def ltn_value(key, size):
    """A per-size setting: a plain value, or a mapping from size ("4", "9") to value."""
    value = LTN[key]
    if isinstance(value, dict):
        if str(size) not in value:
            sys.exit(f"config: ltn.{key}: no value for size {size}")
        value = value[str(size)]
    return value


def ltn_targets():
    """Every LTN output of the configured sizes; [] when the branch is off."""
    if not LTN or not LTN["enabled"]:
        return []
    out = []
    for size in LTN["sizes"]:
        out += [f"{LTN_DIR}/models/ltn_{size}.pt", f"{LTN_DIR}/models/ltn_{size}.tsv"]
        out += [results(f"Reports/ltn_{size}.{x}") for x in ("md", "json")]
        out += [
            results(f"Reports/ltn_{size}_{x}.png")
            for x in ("curves", "q1_confusion", "q2_decisions")
        ]
    return out


CSP = section("csp_experiment")


def csp_targets():
    """The experiment's outputs; [] when the config has no enabled csp_experiment section."""
    if not CSP or not CSP["enabled"]:
        return []
    return [results(f"Reports/csp_largest_n.{x}") for x in ("md", "tsv", "png")]
