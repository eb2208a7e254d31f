# The static results explorer (issue 13): reports/explorer/index.html plus its data files, opened
# from file:// in a browser (no server, no network). It reads every set's stage files (through
# satdoku/report/explorer/data.py), the uniqueness verdicts, CNF sizes and the LTN/CSP pages.
# Cheap per instance, so it runs in the main Snakemake process on a cluster. It computes the
# summary's figures itself (same function), so it runs beside the summary job, not after it.


rule explorer:
    input:
        results=all_set_results,
        unique=lambda w: [
            UNIQUE.format(set=s) for s in SETS if CHECK_UNIQUE and not is_cnf_set(s)
        ],
        sizes=lambda w: list(size_files().values()),
        pages=lambda w: hook_pages(),
        ltn=lambda w: [t for t in ltn_targets() if t.endswith(".json")],
    output:
        index=f"{REPORTS}/explorer/index.html",
    log:
        f"{LOGS}/report/explorer.log",
    priority: 1  # the longest of the last jobs: started first, beside the summary and reports
    localrule: True
    conda:
        "../envs/satdoku.yaml"
    params:
        out=lambda w, output: os.path.dirname(output.index),
        time_limit=TIME_LIMIT,
        variants=json.dumps(SOLVERS, sort_keys=True),
        pages_dir=results("Reports"),
    shell:
        "satdoku report explorer {input.results} --time-limit {params.time_limit} "
        "--variants '{params.variants}' --pages-dir {params.pages_dir} --out {params.out} "
        "> {log} 2>&1"
