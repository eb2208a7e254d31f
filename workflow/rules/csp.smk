# The original CSP experiment: the largest n each puzzle-level solver (CP-SAT, the
# csp-<inference>-<ordering> family) completes within a time limit, for Latin square completion
# and Futoshiki on instances generated from a fixed seed. One job: a TSV of every run, a markdown
# summary and a time-vs-n plot in results/Reports/. Settings: the `csp_experiment:` section
# (defaults in the config schema; `--config csp_preset=full` = the original 60 s experiment).
# Settings and targets (CSP, csp_targets): workflow/rules/csp_helpers.smk.


rule csp_largest_n:
    output:
        md=path.CSP_REPORT.format(ext="md"),
        tsv=path.CSP_REPORT.format(ext="tsv"),
        png=path.CSP_REPORT.format(ext="png"),
    log:
        f"{path.LOGS}/csp_largest_n.log",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=2000,
        runtime=csp_runtime,
    params:
        families=CSP.get("families", []),
        solvers=CSP.get("solvers", []),
        versions=csp_versions,
        variants=csp_variants(),
        time_limit=CSP.get("time_limit"),
        n_min=CSP.get("n_min"),
        n_max=CSP.get("n_max"),
        seed=CSP.get("seed"),
        holes=CSP.get("holes"),
        givens=CSP.get("givens"),
        relations=CSP.get("relations"),
    shell:
        "satdoku largest-n --families {params.families:q} --solvers {params.solvers:q} "
        "--variants {params.variants:q} --time-limit {params.time_limit:q} "
        "--n-min {params.n_min:q} --n-max {params.n_max:q} --seed {params.seed:q} "
        "--holes {params.holes:q} --givens {params.givens:q} "
        "--relations {params.relations:q} --tsv {output.tsv:q} --md {output.md:q} "
        "--png {output.png:q} > {log:q} 2>&1"
