# satdoku: puzzle files in, checked evidence out. See README.md and ../shared/DESIGN.md.
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


# landing page of `snakemake --report reports/report.html` (problems first, in red)
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/sat.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/ltn.smk"
include: "workflow/rules/csp.smk"


rule all:
    input:
        all_targets(),
        ltn_targets(),
        csp_targets(),
    default_target: True
