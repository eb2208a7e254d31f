# Per-set reports (text + time plot + solver table: one job reads the set's stage files once),
# the cross-solver check that fails loudly on any wrong answer or disagreement (after the
# report, so the report always says why), and the cross-set reports (summary, cactus, scatter
# and encodings: one job, one read of every set's stage files). Every rule gets the real stage
# files as inputs and passes them on.


rule report_set:
    input:
        instances=set_instances,
        sols=set_sols,
        times=set_times,
        unique=set_unique,
    output:
        txt=report(
            path.SET_REPORT,
            caption="../report/set_report.rst",
            category="5 Per set",
            subcategory="{set}",
            labels={"set": "{set}", "figure": "text report"},
        ),
        png=report(
            path.SET_TIME_PLOT,
            caption="../report/set_time.rst",
            category="5 Per set",
            subcategory="{set}",
            labels={"set": "{set}", "figure": "time per instance"},
        ),
        md=fill(path.SET_TABLE, ext="md"),
        csv=fill(path.SET_TABLE, ext="csv"),
        html=report(
            fill(path.SET_TABLE, ext="html"),
            caption="../report/set_table.rst",
            category="5 Per set",
            subcategory="{set}",
            labels={"set": "{set}", "figure": "solver table"},
        ),
    log:
        f"{path.LOGS}/report/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sols=sols_args,
        times=times_args,
        time_limit=set_time_limit,
        time_column=config["report_time"],
        unique=unique_arg,
        skipped=skipped_args,
    shell:
        "satdoku pipeline report --set {wildcards.set:q} --instances {input.instances:q} "
        "--sols {params.sols:q} --times {params.times:q} "
        "--time-limit {params.time_limit:q} --time-column {params.time_column:q} "
        "--txt {output.txt:q} --png {output.png:q} "
        "{params.unique:q} --skipped {params.skipped:q} --table-md {output.md:q} "
        "--table-csv {output.csv:q} --table-html {output.html:q} > {log:q} 2>&1"


rule check_set:
    input:
        report=path.SET_REPORT,
        sols=set_sols,
    output:
        path.SET_CHECK,
    log:
        f"{path.LOGS}/check/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sols=sols_args,
    shell:
        "satdoku pipeline check --set {wildcards.set:q} --sols {params.sols:q} "
        "--out {output:q} > {log:q} 2>&1"


rule cnf_sizes:
    input:
        bundles,
    output:
        path.CNF_SIZES,
    log:
        f"{path.LOGS}/report/cnf_sizes/{{encoding}}/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku report sizes {input:q} --encoding {wildcards.encoding:q} "
        "--out {output:q} > {log:q} 2>&1"


# What propagation alone decides on a set, per encoding (satdoku analyze; config: a set's
# `propagation`, default on for puzzle sets under `propagation_limit` lines; on a seeded sample
# of `propagation_sample` instances of a larger set): the encodings
# table's UP / FL columns and the explorer's encodings view read it.
rule propagation:
    input:
        set_instances,
    output:
        csv=path.PROPAGATION_SUMMARY,
        tsv=path.PROPAGATION_INSTANCES,
        md=path.PROPAGATION_TABLE,
        png=path.PROPAGATION_CHART,
    log:
        f"{path.LOGS}/propagation/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    resources:
        mem_mb=2000,
        runtime=60,
    params:
        encodings=propagation_encodings,
        out=propagation_dir,
        sample=config["propagation_sample"],
    shell:
        "satdoku pipeline propagation --set {wildcards.set:q} --instances {input:q} "
        "--encodings {params.encodings:q} --out {params.out:q} "
        "--sample {params.sample:q} > {log:q} 2>&1"


rule summary:
    input:
        results=all_set_results,
        manifest=path.RUN_MANIFEST,  # shown in the summary's "Run" section
        sizes=all_sizes,
        propagation=all_propagation,
        pages=hook_pages,
    output:
        cactus=report(
            directory(path.CACTUS_DIR),
            patterns=["{family}.png"],
            caption="../report/cactus.rst",
            category="2 Cactus plots",
            subcategory="{family}",
            labels={"family": "{family}"},
        ),
        scatter=report(
            directory(path.SCATTER_DIR),
            patterns=["{pair}.png"],
            caption="../report/scatter.rst",
            category="3 Scatter plots",
            subcategory="{pair}",
            labels={"pair": "{pair}"},
        ),
        encodings_md=path.ENCODINGS_REPORT.format(ext="md"),
        encodings_csv=path.ENCODINGS_REPORT.format(ext="csv"),
        encodings_png=report(
            path.ENCODINGS_REPORT.format(ext="png"),
            caption="../report/encodings.rst",
            category="4 Encodings",
            labels={"figure": "encodings compared"},
        ),
        md=path.SUMMARY.format(ext="md"),
        csv=path.SUMMARY.format(ext="csv"),
        html=report(
            path.SUMMARY.format(ext="html"),
            caption="../report/summary.rst",
            category="1 Summary",
            labels={"figure": "summary table"},
        ),
        problems=path.PROBLEMS,
        pairs=path.PAIRS,
    log:
        f"{path.LOGS}/report/summary.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        time_limit=TIME_LIMIT,
        set_limits=set_time_limit_args,
        time_column=config["report_time"],
        variants=variants_json,
        pages_dir=path.PAGES,
    shell:
        "satdoku report summary {input.results:q} --time-limit {params.time_limit:q} "
        "--set-time-limit {params.set_limits:q} --time-column {params.time_column:q} "
        "--pairs {output.pairs:q} "
        "--variants {params.variants:q} --sizes {input.sizes:q} "
        "--propagation {input.propagation:q} "
        "--cactus-dir {output.cactus:q} --scatter-dir {output.scatter:q} "
        "--encodings-md {output.encodings_md:q} "
        "--encodings-csv {output.encodings_csv:q} "
        "--encodings-png {output.encodings_png:q} "
        "--md {output.md:q} --csv {output.csv:q} --html {output.html:q} "
        "--problems {output.problems:q} --pages-dir {params.pages_dir:q} > {log:q} 2>&1"
