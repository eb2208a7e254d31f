# satdoku: puzzle files in, checked evidence out. See README.md and DESIGN.md.
#
# Which rule writes each stage directory (rules in workflow/rules/):
#   results/Instances/       normalize                       (sat.smk)
#   results/SatInput/        encode                          (sat.smk)
#   results/SatOutput/       solve_cnf                       (sat.smk)
#   results/SatOutputTimes/  solve_cnf, solve_puzzle (shards); gather_times (per set)
#   results/SatSols/         solve_cnf, solve_puzzle (shards); gather_sols (per set)
#   results/Reports/         report_set (text, time plot, solver table), check_set, cnf_sizes,
#                            propagation, unique + gather_unique (report.smk, sat.smk); csp_largest_n
#                            (csp.smk); ltn_evaluate (ltn.smk)
#   results/LTN/             ltn_dataset, ltn_train          (ltn.smk)
#   reports/                 summary (summary, cactus, scatter, encodings; report.smk)
#   results/run.json, results/runs/, reports/instances_wide.csv   run_record (runs.smk)
# Path templates and input functions: workflow/rules/common.smk.
from snakemake.utils import min_version

min_version("9.0")


# config.yaml is the default run; `--configfile my.yaml` replaces it (its sets, solvers and
# encodings, and nothing else, run). Missing settings take the schema's defaults.
if not workflow.overwrite_configfiles:

    configfile: "config.yaml"


# common.smk checks the configuration against workflow/schemas/config.schema.yaml and fills
# its defaults (satdoku.config.check: one line per problem); Snakemake's own validate() would
# read and check the same schema a second time at every start.
include: "workflow/rules/common.smk"


# landing page of `snakemake --report reports/report.html` (problems first, in red)
report: "workflow/report/workflow.rst"


include: "workflow/rules/runs.smk"
include: "workflow/rules/sat.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/ltn.smk"
include: "workflow/rules/csp.smk"
include: "workflow/rules/explorer.smk"


# On a cluster these cheap gathering and reporting rules run in the main Snakemake process: a
# SLURM job's fixed cost (sbatch, queue, Snakemake starting twice) exceeds their work. Locally
# this changes nothing. See profiles/slurm/config.yaml.
localrules:
    gather_sols,
    gather_times,
    gather_unique,
    report_set,
    check_set,
    summary,


rule all:
    default_target: True
    input:
        all_targets(),
        ltn_targets(),
        csp_targets(),
