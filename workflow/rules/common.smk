# Config checks, set plans, path templates, input functions and target lists: every rule file
# takes its paths and settings from here (the path templates as `path.NAME`: satdoku/stagefiles/
# paths.py's templates, which the library's reports and `satdoku extract` use too).
import json
import os
import re
import sys

sys.path.insert(0, workflow.basedir)

from satdoku.config import (
    SOLVE_MEM_MB,
    ConfigError,
    check,
    check_file,
    propagation_on,
    run_limits,
    set_entry,
    set_time_limits,
    with_preset,
)
from satdoku.size_limits import SizeLimits, set_default_size_limits
from satdoku.set_plans import SetError, plan
from satdoku.solvers import registry
from satdoku.stagefiles import paths as stage
from satdoku.stagefiles.paths import shard_name

# --- configuration: checked before anything is planned (one line per problem, no traceback) ---
try:
    # a key given twice, an alias bomb: one line naming it
    for _configfile in workflow.configfiles:
        check_file(_configfile)
    config.update(
        check(
            config,
            os.path.join(workflow.basedir, "workflow/schemas/config.schema.yaml"),
            check_paths=False,
        )
    )
except ConfigError as exc:
    sys.exit(str(exc))

set_default_size_limits(
    SizeLimits(**config["size_limits"])
)  # the readers' size guard, for planning too
SOLVERS = {name: dict(opts or {}) for name, opts in config["solvers"].items()}
ENCODINGS = list(config["encodings"])
TIME_LIMIT = float(config["time_limit"])
# solves of each (solver, instance); the times files hold their median
REPEATS = int(config["repeats"])
CHECK_UNIQUE = bool(config["check_unique"])
SAT_SOLVERS = [s for s in SOLVERS if registry.level(s, SOLVERS) == registry.CNF]
PUZZLE_SOLVERS = [s for s in SOLVERS if registry.level(s, SOLVERS) == registry.PUZZLE]


SETS = {name: set_entry(config, name) for name in config["sets"]}
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


# --- path templates ---------------------------------------------------------------------------
# every stage-file template of satdoku/stagefiles/paths.py under its directory, by its name:
# path.SOLS = results/SatSols/{solver}/{encoding}/{set}.tsv, path.SUMMARY = reports/summary.{ext}
path = stage.rooted()


class _Keep(dict):
    def __missing__(self, key):
        return f"{{{key}}}"


def fill(template, **values):
    """A template with some wildcards filled in and the others kept as they are."""
    return template.format_map(_Keep(values))


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


def set_time_limit(wildcards):
    """A set's own time limit: its `time_limit`, else the global one (every rule and every
    report figure reads it through satdoku.config.set_time_limits)."""
    return set_time_limits(config, wildcards.set)[0]


def set_verify_time_limit(wildcards):
    """Budget of each UNSAT proof check of a set (satdoku.config.set_time_limits)."""
    return set_time_limits(config, wildcards.set)[1]


def set_time_limit_args(wildcards=None):
    """SET=SECONDS of every set's own time limit: the cross-set reports' --set-time-limit."""
    return [f"{name}={set_time_limits(config, name)[0]}" for name in SETS]


def all_runs():
    """Every (set, solver, encoding) of the configuration."""
    return [(name, s, e) for name in SETS for s, e in set_runs(name)]


# --- input functions, params and resources of the rules (named here: no lambdas in rules) ----
# Rules quote every value they hand to a shell (`{x:q}`: one word each, a list one word per
# element), so no path, name or option value is ever read by the shell.
def set_path(wildcards):
    """The configured path of a set (file or directory of DIMACS files)."""
    return SETS[wildcards.set]["path"]


def set_format(wildcards):
    return SETS[wildcards.set].get("format", "auto")


def set_shard_size(wildcards):
    return SHARD_SIZES[wildcards.set]


def set_sha256(wildcards):
    return PLANS[wildcards.set].sha256


def strict_flag(wildcards):
    return ["--strict"] if SETS[wildcards.set].get("strict", config["strict"]) else []


SIZE_LIMITS_JSON = json.dumps(config["size_limits"], sort_keys=True)


def config_json(wildcards=None):
    """The whole configuration as JSON (from a function, like :func:`variants_json`)."""
    return json.dumps(config, sort_keys=True, default=str)


def variants_json(wildcards=None):
    """The JSON of every configured solver, from a function: a string param would have its
    braces read as wildcards (an external solver's command holds {cnf})."""
    return json.dumps(SOLVERS, sort_keys=True)


def solve_runtime(wildcards):
    """Minutes a solve job may take on a cluster: every instance at the limit (each of its
    `repeats`), plus a minute."""
    limit = set_time_limit(wildcards) * REPEATS
    return 60 + int(limit * SHARD_SIZES[wildcards.set] / 60)


def sat_solve_runtime(wildcards):
    """Minutes a SAT solve job may take: every instance at the limit plus its proof-check
    budget (each of its `repeats`), plus a minute."""
    limit, check = set_time_limits(config, wildcards.set)
    return 60 + int((limit + check) * REPEATS * SHARD_SIZES[wildcards.set] / 60)


def unique_runtime(wildcards):
    return 60 + int(2 * set_time_limit(wildcards) * SHARD_SIZES[wildcards.set] / 60)


def solve_memory_limit(wildcards):
    """MB each run of a solver on a set may use (satdoku.config.run_limits)."""
    return run_limits(config, wildcards.set, wildcards.solver).memory_mb


def solve_limit_clock(wildcards):
    """The clock a set's time limit is read on: wall or cpu (satdoku.config.run_limits)."""
    return run_limits(config, wildcards.set, wildcards.solver).clock


def solve_measurement(wildcards):
    """How solver processes are limited and measured: auto, benchexec or basic
    (satdoku.config.run_limits)."""
    return run_limits(config, wildcards.set, wildcards.solver).measurement


def solve_mem_mb(wildcards):
    """A solve job's memory: the rule's default, or the run's limit plus the harness's own."""
    return max(SOLVE_MEM_MB, int(solve_memory_limit(wildcards)) + 500)


def solver_variant(wildcards):
    """The JSON of one solver's config entry (passed to the stage command)."""
    return json.dumps({wildcards.solver: SOLVERS[wildcards.solver]}, sort_keys=True)


def solver_version(wildcards):
    """Code version + options of one solver: the param that reruns only its jobs (computed
    from the registry and source hashes; no solver is built while the DAG is planned).
    """
    return registry.solver_version(wildcards.solver, SOLVERS)


def set_instances(wildcards):
    return expand(path.INSTANCES, set=wildcards.set, shard=SHARDS[wildcards.set])


def _shards(template, wildcards, **fixed):
    return expand(template, set=wildcards.set, shard=SHARDS[wildcards.set], **fixed)


def sols_shards(wildcards):
    return _shards(
        path.SOLS_SHARD, wildcards, solver=wildcards.solver, encoding=wildcards.encoding
    )


def times_shards(wildcards):
    return _shards(
        path.TIMES_SHARD,
        wildcards,
        solver=wildcards.solver,
        encoding=wildcards.encoding,
    )


def unique_shards(wildcards):
    return _shards(path.UNIQUE_SHARD, wildcards)


def bundles(wildcards):
    """Every SatInput bundle of a set in one encoding (CNF sizes)."""
    return _shards(path.SATINPUT, wildcards, encoding=wildcards.encoding)


def set_file(template, wildcards, **extra):
    """One per-set file of every run on the set, as {run: path} (run = solver/encoding)."""
    return {
        f"{s}/{e}": template.format(set=wildcards.set, solver=s, encoding=e, **extra)
        for s, e in set_runs(wildcards.set)
    }


def set_sols(wildcards):
    return list(set_file(path.SOLS, wildcards).values())


def set_times(wildcards):
    return list(set_file(path.TIMES, wildcards).values())


def set_unique(wildcards):
    """The set's uniqueness verdicts, when they are checked (puzzle sets only)."""
    if CHECK_UNIQUE and not is_cnf_set(wildcards.set):
        return [path.UNIQUE.format(set=wildcards.set)]
    return []


def run_args(paths):
    """RUN=PATH command-line arguments of a {run: path} mapping (one word each)."""
    return [f"{run}={file}" for run, file in paths.items()]


def sols_args(wildcards):
    return run_args(set_file(path.SOLS, wildcards))


def times_args(wildcards):
    return run_args(set_file(path.TIMES, wildcards))


def unique_arg(wildcards, input):
    return ["--unique", *input.unique] if input.unique else []


def skipped_args(wildcards):
    return skipped_solvers(wildcards.set)


def all_set_results(wildcards=None):
    """Every gathered stage file the cross-set reports read."""
    files = []
    for name in SETS:
        files += expand(path.INSTANCES, set=name, shard=SHARDS[name])
        for s, e in set_runs(name):
            files += [
                path.SOLS.format(set=name, solver=s, encoding=e),
                path.TIMES.format(set=name, solver=s, encoding=e),
            ]
    return files


def all_unique(wildcards=None):
    """The uniqueness verdicts of every puzzle set (when checked)."""
    return [
        path.UNIQUE.format(set=s) for s in SETS if CHECK_UNIQUE and not is_cnf_set(s)
    ]


def size_files():
    """{encoding/set: CNF sizes file} of every set and SatInput encoding (SAT solvers only)."""
    if not SAT_SOLVERS:
        return {}
    return {
        f"{e}/{name}": path.CNF_SIZES.format(encoding=e, set=name)
        for name in SETS
        for e in set_encodings(name)
    }


def all_sizes(wildcards=None):
    return list(size_files().values())


def analysed(name):
    """Whether a set gets the propagation analysis: its `propagation` setting, else puzzle
    sets of fewer input lines than `propagation_limit` (satdoku.config.propagation_on).
    """
    return propagation_on(config, name, PLANS[name].cnf, PLANS[name].units)


def propagation_encodings(wildcards):
    """The encodings a set's propagation analysis measures: its SatInput encodings."""
    return set_encodings(wildcards.set)


def propagation_dir(wildcards, output):
    return os.path.dirname(output.csv)


def all_propagation(wildcards=None):
    """The propagation instance files of every analysed set (the encodings table's UP / FL
    columns)."""
    return [path.PROPAGATION_INSTANCES.format(set=s) for s in SETS if analysed(s)]


def summary_outputs():
    """The cross-set reports (the summary rule's outputs, read from the rule so that they are
    listed once), the explorer's index and the run record."""
    return [
        *rules.summary.output,
        path.EXPLORER_INDEX,
        path.RUN_MANIFEST,
        path.INSTANCES_WIDE,
    ]


def run_results_dir(wildcards, output):
    """The results directory of the run record (where its runs/ store lies): its manifest's."""
    return os.path.dirname(output.manifest) or "."


def all_targets():
    targets = []
    for name in SETS:
        targets += [
            path.SET_REPORT.format(set=name),
            path.SET_TIME_PLOT.format(set=name),
            path.SET_CHECK.format(set=name),
        ]
        targets += [
            path.SET_TABLE.format(set=name, ext=x) for x in ("md", "csv", "html")
        ]
        if analysed(name):
            targets += [
                t.format(set=name)
                for t in (
                    path.PROPAGATION_SUMMARY,
                    path.PROPAGATION_TABLE,
                    path.PROPAGATION_CHART,
                )
            ]
        for s, e in set_runs(name):
            targets.append(path.SOLS_TEXT.format(set=name, solver=s, encoding=e))
            targets.append(path.TIMES.format(set=name, solver=s, encoding=e))
    return targets + summary_outputs()


def section(name):
    """A config section (ltn, csp_experiment) with its preset applied, or {} when absent."""
    try:
        return with_preset(config[name], config.get(f"{name.split('_')[0]}_preset"))
    except KeyError:
        return {}
    except ConfigError as exc:
        sys.exit(f"{exc} ({name})")


def hook_pages(wildcards=None):
    """Report pages the LTN and CSP branches write (results/Reports/ltn_*, csp_*): the summary
    waits for them and includes them."""
    return [
        t
        for t in ltn_targets() + csp_targets()
        if t.endswith((".md", ".png", ".csv", ".tsv"))
    ]


def ltn_metrics(wildcards=None):
    """The LTN branch's metrics (JSON) the explorer shows."""
    return [t for t in ltn_targets() if t.endswith(".json")]


def explorer_dir(wildcards, output):
    """The explorer's folder (of its index.html)."""
    return os.path.dirname(output.index)


# --- the LTN branch's and the CSP experiment's settings, params functions and targets --------
include: "ltn_helpers.smk"
include: "csp_helpers.smk"
