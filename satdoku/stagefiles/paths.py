"""Where each stage file lives: the path templates, relative to the results directory.

The workflow's rules (``workflow/rules/common.smk``) and the library (reports, ``satdoku
extract``, the explorer) build every path from these templates, so the layout is written once.
Wildcards: ``set``, ``shard`` (``00000``, ``00001``, ...), ``encoding`` (``direct`` for
puzzle-level solvers, ``dimacs`` for CNF sets), ``solver``.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

RESULTS = "results"  # default results directory (relative to the working directory)
REPORTS = "reports"  # cross-set reports

INSTANCES = "Instances/{set}/{shard}.jsonl"
SATINPUT = "SatInput/{encoding}/{set}/{shard}.cnfs"
SATOUTPUT = "SatOutput/{solver}/{encoding}/{set}/{shard}.out"
TIMES_SHARD = "SatOutputTimes/{solver}/{encoding}/{set}/shards/{shard}.tsv"
TIMES = "SatOutputTimes/{solver}/{encoding}/{set}.tsv"
SOLS_SHARD = "SatSols/{solver}/{encoding}/{set}/shards/{shard}.tsv"
SOLS = "SatSols/{solver}/{encoding}/{set}.tsv"
SOLS_TEXT = "SatSols/{solver}/{encoding}/{set}.txt"
UNIQUE_SHARD = "Reports/unique/{set}/shards/{shard}.tsv"
UNIQUE = "Reports/{set}_unique.tsv"
CNF_SIZES = "Reports/cnf_sizes/{encoding}/{set}.tsv"
#: a set's propagation analysis (stagefiles.propagation_files: the files of `satdoku analyze`)
PROPAGATION_DIR = "Reports/propagation/{set}"
PROPAGATION_SUMMARY = f"{PROPAGATION_DIR}/propagation.csv"
PROPAGATION_INSTANCES = f"{PROPAGATION_DIR}/propagation_instances.tsv"
PROPAGATION_TABLE = f"{PROPAGATION_DIR}/propagation.md"
PROPAGATION_CHART = f"{PROPAGATION_DIR}/propagation.png"
PAGES = "Reports"  # per-set reports, and the pages of the LTN and CSP branches
SET_REPORT = "Reports/{set}.txt"
SET_TIME_PLOT = "Reports/{set}_time.png"
SET_CHECK = "Reports/{set}.check"
SET_TABLE = "Reports/{set}_table.{ext}"
LOGS = "logs"
RUN_MANIFEST = "run.json"  # the last run's manifest (satdoku.stagefiles.manifest)
RUNS_STORE = "runs/{run}.parquet"  # each run's rows + manifest (satdoku.runs.store)
RUN_START = "runs/.started"  # when the workflow's current run started (its onstart)

# --- the LTN branch (results/LTN/ and its report pages in results/Reports/) ------------------
LTN_DATASETS = "LTN/datasets/{size}"  # train.tsv, val.tsv, test.tsv, manifest.json
LTN_TRAIN = "LTN/datasets/{size}/train.tsv"
LTN_VAL = "LTN/datasets/{size}/val.tsv"
LTN_TEST = "LTN/datasets/{size}/test.tsv"
LTN_MANIFEST = "LTN/datasets/{size}/manifest.json"
LTN_MODEL = "LTN/models/ltn_{size}.pt"
LTN_EPOCHS = "LTN/models/ltn_{size}.tsv"  # per-epoch training figures, beside the model
LTN_REPORT = "Reports/ltn_{size}.{ext}"  # md, json
LTN_MEMORY = "Reports/ltn_{size}_memory.json"
LTN_FIGURE = "Reports/ltn_{size}_{figure}.png"
LTN_FIGURES = ("curves", "q1_confusion", "q2_decisions")
LTN_BENCHMARK = "benchmarks/ltn/{step}_{size}.tsv"

# --- the CSP experiment (results/Reports/) ---------------------------------------------------
CSP_REPORT = "Reports/csp_largest_n.{ext}"  # md, tsv, png

# --- cross-set reports (relative to REPORTS) -------------------------------------------------
SUMMARY = "summary.{ext}"  # md, csv, html
PROBLEMS = "problems.html"
PAIRS = "pairs.csv"  # paired comparison of every two runs of a set
CACTUS_DIR = "cactus"  # {family}.png
SCATTER_DIR = "scatter"  # {pair}.png
ENCODINGS_REPORT = "encodings.{ext}"  # md, csv, png
EXPLORER_INDEX = "explorer/index.html"
INSTANCES_WIDE = "instances_wide.csv"  # one row per instance, status and time per run

#: Encoding label of puzzle-level solvers (no CNF) and of CNF sets (the formula is the input).
DIRECT, DIMACS = "direct", "dimacs"


#: The templates relative to REPORTS (the cross-set reports); every other one is relative to
#: RESULTS. RESULTS, REPORTS, DIRECT and DIMACS are no templates.
CROSS_SET = ("SUMMARY", "PROBLEMS", "PAIRS", "CACTUS_DIR", "SCATTER_DIR", "ENCODINGS_REPORT",
             "EXPLORER_INDEX", "INSTANCES_WIDE")
_NOT_TEMPLATES = ("RESULTS", "REPORTS", "DIRECT", "DIMACS")


def rooted(results: str = RESULTS, reports: str = REPORTS) -> SimpleNamespace:
    """Every path template of this module under its directory, by its name: what the
    workflow's rules name (``rooted().SOLS`` is ``results/SatSols/{solver}/{encoding}/{set}.tsv``,
    ``rooted().SUMMARY`` is ``reports/summary.{ext}``)."""
    return SimpleNamespace(**{
        name: f"{reports if name in CROSS_SET else results}/{template}"
        for name, template in globals().items()
        if name.isupper() and isinstance(template, str) and name not in _NOT_TEMPLATES})


def stage_path(template: str, results: str | Path = RESULTS, **wildcards: object) -> Path:
    """A stage file's path under ``results`` (e.g. ``stage_path(SOLS, set="s", ...)``)."""
    return Path(results) / template.format(**wildcards)


def file_name(template: str, **wildcards: object) -> str:
    """The file-name part of a template, filled in: ``file_name(CSP_REPORT, ext="tsv")`` ->
    ``csp_largest_n.tsv``; ``"*"`` values make a glob (``file_name(LTN_REPORT, size="*",
    ext="md")`` -> ``ltn_*.md``)."""
    return Path(template.format(**wildcards)).name


def shard_name(k: int) -> str:
    """The name of shard ``k`` (0-based): ``00000``, ``00001``, ..."""
    return f"{k:05d}"


def match(template: str, path: str | Path) -> dict[str, str] | None:
    """The wildcards of a stage file's path under any results directory, or None if the path
    does not follow ``template`` (``match(SOLS, "results/SatSols/cdcl/extended/s.tsv")`` ->
    ``{"solver": "cdcl", "encoding": "extended", "set": "s"}``)."""
    import re

    pattern = re.escape(template)
    for name in ("set", "shard", "encoding", "solver", "ext", "size", "figure", "part", "step",
                 "run"):
        pattern = pattern.replace(re.escape("{" + name + "}"), f"(?P<{name}>[^/]+)")
    m = re.search(f"(?:^|/){pattern}$", Path(path).as_posix())
    return m.groupdict() if m else None
