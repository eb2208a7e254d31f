# The original CSP experiment (issue 4): the largest n each puzzle-level solver (CP-SAT, the
# csp-<inference>-<ordering> family) completes within a time limit, for Latin square completion
# and Futoshiki on instances generated from a fixed seed. One job: a table (TSV of every run +
# markdown summary) and a time-vs-n plot in results/Reports/. Settings: config `csp_experiment`
# (preset `full` = the original 60 s experiment: `--config csp_preset=full`).


include: "csp_common.smk"


rule csp_largest_n:
    output:
        md="results/Reports/csp_largest_n.md",
        tsv="results/Reports/csp_largest_n.tsv",
        png="results/Reports/csp_largest_n.png",
    log:
        "results/logs/csp_largest_n.log",
    conda:
        "../envs/satdoku.yaml"
    threads: 1
    resources:
        solver_slots=1,
        mem_mb=2000,
        runtime=lambda w: 10
        + int(float(CSP.get("time_limit", 60)) * 4 * len(CSP_SOLVERS) / 60),
    params:
        families=" ".join(CSP.get("families", ["latin", "futoshiki"])),
        solvers=" ".join(CSP_SOLVERS),
        versions=lambda w: [registry.solver_version(s, SOLVERS) for s in CSP_SOLVERS],
        variants=json.dumps(
            {s: SOLVERS[s] for s in CSP_SOLVERS if s in SOLVERS}, sort_keys=True
        ),
        time_limit=float(CSP.get("time_limit", 60)),
        n_min=int(CSP.get("n_min", 3)),
        n_max=int(CSP.get("n_max", 30)),
        seed=int(CSP.get("seed", 0)),
        holes=float(CSP.get("holes", 0.5)),
        givens=float(CSP.get("givens", 0.1)),
        relations=float(CSP.get("relations", 0.3)),
    shell:
        "satdoku largest-n --families {params.families} --solvers {params.solvers} "
        "--variants '{params.variants}' --time-limit {params.time_limit} "
        "--n-min {params.n_min} --n-max {params.n_max} --seed {params.seed} "
        "--holes {params.holes} --givens {params.givens} --relations {params.relations} "
        "--tsv {output.tsv} --md {output.md} --png {output.png} > {log} 2>&1"
