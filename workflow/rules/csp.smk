# The original CSP experiment: the largest n each puzzle-level solver (CP-SAT, the
# csp-<inference>-<ordering> family) completes within a time limit, for Latin square completion
# and Futoshiki on instances generated from a fixed seed. One job: a TSV of every run, a markdown
# summary and a time-vs-n plot in results/Reports/. Settings: the `csp_experiment:` section
# (defaults in the config schema; `--config csp_preset=full` = the original 60 s experiment).
# Settings and targets (CSP, csp_targets): workflow/rules/common.smk.


rule csp_largest_n:
    output:
        md=results("Reports/csp_largest_n.md"),
        tsv=results("Reports/csp_largest_n.tsv"),
        png=results("Reports/csp_largest_n.png"),
    log:
        f"{LOGS}/csp_largest_n.log",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=2000,
        runtime=lambda w: 10 + int(CSP["time_limit"] * 4 * len(CSP["solvers"]) / 60),
    params:
        families=" ".join(CSP.get("families", [])),
        solvers=" ".join(CSP.get("solvers", [])),
        versions=lambda w: [solver_version(s) for s in CSP["solvers"]],
        variants=json.dumps(
            {s: SOLVERS[s] for s in CSP.get("solvers", []) if s in SOLVERS},
            sort_keys=True,
        ),
        time_limit=CSP.get("time_limit"),
        n_min=CSP.get("n_min"),
        n_max=CSP.get("n_max"),
        seed=CSP.get("seed"),
        holes=CSP.get("holes"),
        givens=CSP.get("givens"),
        relations=CSP.get("relations"),
    shell:
        "satdoku largest-n --families {params.families} --solvers {params.solvers} "
        "--variants '{params.variants}' --time-limit {params.time_limit} "
        "--n-min {params.n_min} --n-max {params.n_max} --seed {params.seed} "
        "--holes {params.holes} --givens {params.givens} --relations {params.relations} "
        "--tsv {output.tsv} --md {output.md} --png {output.png} > {log} 2>&1"
