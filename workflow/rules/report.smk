# Per-set reports (text + time plot) and the cross-solver check that fails loudly on any wrong
# answer or disagreement. The check runs after the report, so the report always says why.


rule report_set:
    input:
        instances=set_instances,
        sols=lambda w: [f"results/SatSols/{s}/{e}/{w.set}.tsv" for s, e in runs()],
        times=lambda w: [
            f"results/SatOutputTimes/{s}/{e}/{w.set}.tsv" for s, e in runs()
        ],
        unique=lambda w: [f"results/Reports/{w.set}_unique.tsv"] if CHECK_UNIQUE else [],
    output:
        txt=report(
            "results/Reports/{set}.txt",
            caption="../report/set_report.rst",
            category="5 Per set",
            subcategory="{set}",
            labels={"set": "{set}", "figure": "text report"},
        ),
        png=report(
            "results/Reports/{set}_time.png",
            caption="../report/set_time.rst",
            category="5 Per set",
            subcategory="{set}",
            labels={"set": "{set}", "figure": "time per instance"},
        ),
    log:
        "results/logs/report/{set}.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sols=_run_args("results/SatSols/{solver}/{encoding}/{set}.tsv"),
        times=_run_args("results/SatOutputTimes/{solver}/{encoding}/{set}.tsv"),
        time_limit=TIME_LIMIT,
        unique=lambda w, input: f"--unique {input.unique}" if input.unique else "",
    shell:
        "satdoku pipeline report --set {wildcards.set} --instances {input.instances} "
        "--sols {params.sols} --times {params.times} --time-limit {params.time_limit} "
        "--txt {output.txt} --png {output.png} {params.unique} > {log} 2>&1"


rule check_set:
    input:
        report="results/Reports/{set}.txt",
        sols=lambda w: [f"results/SatSols/{s}/{e}/{w.set}.tsv" for s, e in runs()],
    output:
        "results/Reports/{set}.check",
    log:
        "results/logs/check/{set}.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sols=_run_args("results/SatSols/{solver}/{encoding}/{set}.tsv"),
    shell:
        "satdoku pipeline check --set {wildcards.set} --sols {params.sols} --out {output} "
        "> {log} 2>&1"


# ---- solver tables, cross-set summary, cactus / scatter / encoding plots (issue 7) ----
# Cross-set rules read every set's gathered stage files; `satdoku report` finds them by the
# documented layout under results/, the inputs below only order the DAG.

REPORT_RUNS = " ".join(f"{s}/{e}" for s, e in runs())
REPORT_SETS = " ".join(SETS)


rule table_set:
    input:
        instances=set_instances,
        sols=lambda w: [f"results/SatSols/{s}/{e}/{w.set}.tsv" for s, e in runs()],
        times=lambda w: [
            f"results/SatOutputTimes/{s}/{e}/{w.set}.tsv" for s, e in runs()
        ],
    output:
        md="results/Reports/{set}_table.md",
        csv="results/Reports/{set}_table.csv",
        html=report(
            "results/Reports/{set}_table.html",
            caption="../report/set_table.rst",
            category="5 Per set",
            subcategory="{set}",
            labels={"set": "{set}", "figure": "solver table"},
        ),
    log:
        "results/logs/report/{set}_table.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sols=_run_args("results/SatSols/{solver}/{encoding}/{set}.tsv"),
        times=_run_args("results/SatOutputTimes/{solver}/{encoding}/{set}.tsv"),
        time_limit=TIME_LIMIT,
    shell:
        "satdoku report table --set {wildcards.set} --instances {input.instances} "
        "--sols {params.sols} --times {params.times} --time-limit {params.time_limit} "
        "--md {output.md} --csv {output.csv} --html {output.html} > {log} 2>&1"


rule cnf_sizes:
    input:
        lambda w: expand(
            "results/SatInput/{encoding}/{set}/{shard}.cnfs",
            encoding=w.encoding,
            set=w.set,
            shard=SHARDS[w.set],
        ),
    output:
        "results/Reports/cnf_sizes/{encoding}/{set}.tsv",
    log:
        "results/logs/report/cnf_sizes/{encoding}/{set}.log",
    conda:
        "../envs/satdoku.yaml"
    shell:
        "satdoku report sizes {input} --encoding {wildcards.encoding} --out {output} "
        "> {log} 2>&1"


rule cactus:
    input:
        _all_set_results,
    output:
        report(
            directory("reports/cactus"),
            patterns=["{family}.png"],
            caption="../report/cactus.rst",
            category="2 Cactus plots",
            subcategory="{family}",
            labels={"family": "{family}"},
        ),
    log:
        "results/logs/report/cactus.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sets=REPORT_SETS,
        runs=REPORT_RUNS,
        time_limit=TIME_LIMIT,
    shell:
        "satdoku report cactus --sets {params.sets} --runs {params.runs} "
        "--time-limit {params.time_limit} --out-dir {output} > {log} 2>&1"


rule scatter:
    input:
        _all_set_results,
    output:
        report(
            directory("reports/scatter"),
            patterns=["{pair}.png"],
            caption="../report/scatter.rst",
            category="3 Scatter plots",
            subcategory="{pair}",
            labels={"pair": "{pair}"},
        ),
    log:
        "results/logs/report/scatter.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sets=REPORT_SETS,
        runs=REPORT_RUNS,
        time_limit=TIME_LIMIT,
        variants=json.dumps(SOLVERS, sort_keys=True),
    shell:
        "satdoku report scatter --sets {params.sets} --runs {params.runs} "
        "--time-limit {params.time_limit} --variants '{params.variants}' --out-dir {output} "
        "> {log} 2>&1"


rule encodings:
    input:
        results=_all_set_results,
        sizes=lambda w: list(_size_files().values()),
    output:
        md="reports/encodings.md",
        csv="reports/encodings.csv",
        png=report(
            "reports/encodings.png",
            caption="../report/encodings.rst",
            category="4 Encodings",
            labels={"figure": "encodings compared"},
        ),
    log:
        "results/logs/report/encodings.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sets=REPORT_SETS,
        runs=REPORT_RUNS,
        sizes=" ".join(f"{k}={v}" for k, v in _size_files().items()),
    shell:
        "satdoku report encodings --sets {params.sets} --runs {params.runs} "
        "--sizes {params.sizes} --md {output.md} --csv {output.csv} --png {output.png} "
        "> {log} 2>&1"


rule summary:
    input:
        results=_all_set_results,
        cactus="reports/cactus",
        scatter="reports/scatter",
        encodings_md="reports/encodings.md",
        encodings_csv="reports/encodings.csv",
        pages=_hook_pages,
    output:
        md="reports/summary.md",
        csv="reports/summary.csv",
        html=report(
            "reports/summary.html",
            caption="../report/summary.rst",
            category="1 Summary",
            labels={"figure": "summary table"},
        ),
        problems="reports/problems.html",
    log:
        "results/logs/report/summary.log",
    conda:
        "../envs/satdoku.yaml"
    params:
        sets=REPORT_SETS,
        runs=REPORT_RUNS,
        time_limit=TIME_LIMIT,
    shell:
        "satdoku report summary --sets {params.sets} --runs {params.runs} "
        "--time-limit {params.time_limit} --md {output.md} --csv {output.csv} "
        "--html {output.html} --problems {output.problems} "
        "--plots 'Cactus plots={input.cactus}' 'Scatter plots={input.scatter}' "
        "--encodings-md {input.encodings_md} --encodings-csv {input.encodings_csv} "
        "> {log} 2>&1"
