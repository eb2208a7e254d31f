# satdoku: puzzle files in, checked evidence out. See README.md and DESIGN.md.
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


# landing page of `snakemake --report reports/report.html` (problems first, in red)
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/report_common.smk"
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
    table_set,
    cactus,
    scatter,
    encodings,
    summary,


rule all:
    default_target: True
    input:
        all_targets(),
        ltn_targets(),
        csp_targets(),
