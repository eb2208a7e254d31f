# Per-set reports (text + time plot) and the cross-solver check that fails loudly on any wrong
# answer or disagreement. The check runs after the report, so the report always says why.


def _run_args(pattern):
    return lambda w: " ".join(
        f"{s}/{e}=" + pattern.format(solver=s, encoding=e, set=w.set) for s, e in runs()
    )


rule report_set:
    input:
        instances=set_instances,
        sols=lambda w: [f"results/SatSols/{s}/{e}/{w.set}.tsv" for s, e in runs()],
        times=lambda w: [f"results/SatOutputTimes/{s}/{e}/{w.set}.tsv" for s, e in runs()],
    output:
        txt="results/Reports/{set}.txt",
        png="results/Reports/{set}_time.png",
    params:
        sols=_run_args("results/SatSols/{solver}/{encoding}/{set}.tsv"),
        times=_run_args("results/SatOutputTimes/{solver}/{encoding}/{set}.tsv"),
        time_limit=TIME_LIMIT,
    log:
        "results/logs/report/{set}.log",
    shell:
        "{SATDOKU} pipeline report --set {wildcards.set} --instances {input.instances} "
        "--sols {params.sols} --times {params.times} --time-limit {params.time_limit} "
        "--txt {output.txt} --png {output.png} > {log} 2>&1"


rule check_set:
    input:
        report="results/Reports/{set}.txt",
        sols=lambda w: [f"results/SatSols/{s}/{e}/{w.set}.tsv" for s, e in runs()],
    output:
        "results/Reports/{set}.check",
    params:
        sols=_run_args("results/SatSols/{solver}/{encoding}/{set}.tsv"),
    log:
        "results/logs/check/{set}.log",
    shell:
        "{SATDOKU} pipeline check --set {wildcards.set} --sols {params.sols} --out {output} "
        "> {log} 2>&1"
