# The static results explorer (issue 13): reports/explorer/index.html plus its data files, opened
# from file:// in a browser (no server, no network). It reads every set's stage files (through
# satdoku/report/explorer/data.py), the uniqueness verdicts, CNF sizes and the LTN/CSP pages.
# Cheap per instance, so it runs in the main Snakemake process on a cluster.


rule explorer:
    input:
        results=_all_set_results,
        summary="reports/summary.csv",
        unique=lambda w: (
            [f"results/Reports/{s}_unique.tsv" for s in SETS] if CHECK_UNIQUE else []
        ),
        sizes=lambda w: list(_size_files().values()),
        pages=_hook_pages,
        ltn=lambda w: [t for t in ltn_targets() if t.endswith(".json")],
    output:
        index="reports/explorer/index.html",
    log:
        "results/logs/report/explorer.log",
    localrule: True
    conda:
        "../envs/satdoku.yaml"
    params:
        out=lambda w, output: os.path.dirname(output.index),
        sets=REPORT_SETS,
        runs=REPORT_RUNS,
        time_limit=TIME_LIMIT,
        variants=json.dumps(SOLVERS, sort_keys=True),
    shell:
        "satdoku report explorer --sets {params.sets} --runs {params.runs} "
        "--time-limit {params.time_limit} --variants '{params.variants}' "
        "--out {params.out} > {log} 2>&1"
