# The static results explorer (issue 13): reports/explorer/index.html plus its data files, opened
# from file:// in a browser (no server, no network). It reads every set's stage files (through
# satdoku/report/explorer/data.py), the uniqueness verdicts, CNF sizes and the LTN/CSP pages.
# Cheap per instance, so it runs in the main Snakemake process on a cluster. It computes the
# summary's figures itself (same function), so it runs beside the summary job, not after it.


rule explorer:
    input:
        results=all_set_results,
        manifest=path.RUN_MANIFEST,  # shown on the overview page
        unique=all_unique,
        sizes=all_sizes,
        propagation=all_propagation,  # the encodings view (read from the results directory)
        pages=hook_pages,
        ltn=ltn_metrics,
    output:
        index=path.EXPLORER_INDEX,
    log:
        f"{path.LOGS}/report/explorer.log",
    priority: 1  # the longest of the last jobs: started first, beside the summary and reports
    localrule: True
    conda:
        "../envs/satdoku.yaml"
    params:
        out=explorer_dir,
        time_limit=TIME_LIMIT,
        set_limits=set_time_limit_args,
        time_column=config["report_time"],
        variants=variants_json,
        pages_dir=path.PAGES,
    shell:
        "satdoku report explorer {input.results:q} --time-limit {params.time_limit:q} "
        "--set-time-limit {params.set_limits:q} --time-column {params.time_column:q} "
        "--variants {params.variants:q} --pages-dir {params.pages_dir:q} "
        "--out {params.out:q} > {log:q} 2>&1"
