# The CSP experiment's settings (the `csp_experiment:` config section with its preset) and
# targets, used by csp.smk. Functions only; included by common.smk.


CSP = section("csp_experiment")


def csp_targets():
    """The experiment's outputs; [] when the config has no enabled csp_experiment section."""
    if not CSP or not CSP["enabled"]:
        return []
    return [path.CSP_REPORT.format(ext=x) for x in ("md", "tsv", "png")]


def csp_runtime(wildcards):
    return 10 + int(CSP["time_limit"] * 4 * len(CSP["solvers"]) / 60)


def csp_versions(wildcards):
    return [registry.solver_version(s, SOLVERS) for s in CSP["solvers"]]


def csp_variants():
    return json.dumps(
        {s: SOLVERS[s] for s in CSP.get("solvers", []) if s in SOLVERS}, sort_keys=True
    )
