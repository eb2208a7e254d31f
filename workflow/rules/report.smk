# Per-set reports (text + time plot + solver table: one job reads the set's stage files once),
# the cross-solver check that fails loudly on any wrong answer or disagreement (after the
# report, so the report always says why), and the cross-set reports (summary, cactus, scatter
# and encodings: one job, one read of every set's stage files). Every rule gets the real stage
# files as inputs and passes them on.


rule report_set:
    input:
        instances=set_instances,
        sols=lambda w: set_file(SOLS, w).values(),
        times=lambda w: set_file(TIMES, w).values(),
        unique=lambda w: (
            [UNIQUE.format(set=w.set)]
            if CHECK_UNIQUE and not is_cnf_set(w.set)
            else []
        ),
    output:
        txt=report(
            SET_REPORT,
            caption="../report/set_report.rst",
            category="5 Per set",
            subcategory="{set}",
            labels={"set": "{set}", "figure": "text report"},
        ),
        png=report(
            SET_TIME_PLOT,
            caption="../report/set_time.rst",
            category="5 Per set",
            subcategory="{set}",
            labels={"set": "{set}", "figure": "time per instance"},
        ),
        md=SET_TABLE.replace("{ext}", "md"),
        csv=SET_TABLE.replace("{ext}", "csv"),
        html=report(
            SET_TABLE.replace("{ext}", "html"),
            caption="../report/set_table.rst",
            category="5 Per set",
            subcategory="{set}",
            labels={"set": "{set}", "figure": "solver table"},
        ),
    log:
        f"{LOGS}/report/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sols=lambda w: run_args(set_file(SOLS, w)),
        times=lambda w: run_args(set_file(TIMES, w)),
        time_limit=lambda w: set_time_limit(w.set),
        unique=lambda w, input: f"--unique {input.unique}" if input.unique else "",
        skipped=lambda w: " ".join(skipped_solvers(w.set)),
    shell:
        "satdoku pipeline report --set {wildcards.set} --instances {input.instances} "
        "--sols {params.sols} --times {params.times} --time-limit {params.time_limit} "
        "--txt {output.txt} --png {output.png} {params.unique} --skipped {params.skipped} "
        "--table-md {output.md} --table-csv {output.csv} --table-html {output.html} "
        "> {log} 2>&1"


rule check_set:
    input:
        report=SET_REPORT,
        sols=lambda w: set_file(SOLS, w).values(),
    output:
        SET_CHECK,
    log:
        f"{LOGS}/check/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sols=lambda w: run_args(set_file(SOLS, w)),
    shell:
        "satdoku pipeline check --set {wildcards.set} --sols {params.sols} --out {output} "
        "> {log} 2>&1"


rule cnf_sizes:
    input:
        lambda w: expand(SATINPUT, encoding=w.encoding, set=w.set, shard=SHARDS[w.set]),
    output:
        CNF_SIZES,
    log:
        f"{LOGS}/report/cnf_sizes/{{encoding}}/{{set}}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku report sizes {input} --encoding {wildcards.encoding} --out {output} "
        "> {log} 2>&1"


rule summary:
    input:
        results=all_set_results,
        sizes=lambda w: list(size_files().values()),
        pages=lambda w: hook_pages(),
    output:
        cactus=report(
            directory(f"{REPORTS}/cactus"),
            patterns=["{family}.png"],
            caption="../report/cactus.rst",
            category="2 Cactus plots",
            subcategory="{family}",
            labels={"family": "{family}"},
        ),
        scatter=report(
            directory(f"{REPORTS}/scatter"),
            patterns=["{pair}.png"],
            caption="../report/scatter.rst",
            category="3 Scatter plots",
            subcategory="{pair}",
            labels={"pair": "{pair}"},
        ),
        encodings_md=f"{REPORTS}/encodings.md",
        encodings_csv=f"{REPORTS}/encodings.csv",
        encodings_png=report(
            f"{REPORTS}/encodings.png",
            caption="../report/encodings.rst",
            category="4 Encodings",
            labels={"figure": "encodings compared"},
        ),
        md=f"{REPORTS}/summary.md",
        csv=f"{REPORTS}/summary.csv",
        html=report(
            f"{REPORTS}/summary.html",
            caption="../report/summary.rst",
            category="1 Summary",
            labels={"figure": "summary table"},
        ),
        problems=f"{REPORTS}/problems.html",
    log:
        f"{LOGS}/report/summary.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        time_limit=TIME_LIMIT,
        variants=json.dumps(SOLVERS, sort_keys=True),
        pages_dir=results("Reports"),
    shell:
        "satdoku report summary {input.results} --time-limit {params.time_limit} "
        "--variants '{params.variants}' --sizes {input.sizes} "
        "--cactus-dir {output.cactus} --scatter-dir {output.scatter} "
        "--encodings-md {output.encodings_md} --encodings-csv {output.encodings_csv} "
        "--encodings-png {output.encodings_png} "
        "--md {output.md} --csv {output.csv} --html {output.html} "
        "--problems {output.problems} --pages-dir {params.pages_dir} > {log} 2>&1"
