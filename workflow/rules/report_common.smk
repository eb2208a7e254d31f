# Helper functions of the report rules (workflow/rules/report.smk); functions only.


def _run_args(pattern):
    return lambda w: " ".join(
        f"{s}/{e}={pattern.format(solver=s, encoding=e, set=w.set)}" for s, e in runs()
    )


def _all_set_results(wildcards=None):
    files = []
    for name in SETS:
        files += expand(
            "results/Instances/{set}/{shard}.jsonl", set=name, shard=SHARDS[name]
        )
        for s, e in runs():
            files += [
                f"results/SatSols/{s}/{e}/{name}.tsv",
                f"results/SatOutputTimes/{s}/{e}/{name}.tsv",
            ]
    return files


def _size_files():
    return {
        f"{e}/{name}": f"results/Reports/cnf_sizes/{e}/{name}.tsv"
        for e in (ENCODINGS if SAT_SOLVERS else [])
        for name in SETS
    }


def _hook_pages(wildcards=None):
    """Report pages other rule files make (CSP variants table and "largest n" plot from
    csp_targets(), LTN metrics pages from ltn_targets(), or such pages in all_targets()): the
    summary waits for them and includes them."""
    targets = all_targets() + (ltn_targets() if "ltn_targets" in globals() else [])
    targets += csp_targets() if "csp_targets" in globals() else []
    return [
        t
        for t in targets
        if re.match(r"results/Reports/(csp|ltn_)", t)
        and t.endswith((".md", ".png", ".csv", ".tsv"))
    ]
