# Settings and targets of the CSP experiment (workflow/rules/csp.smk).


def _csp_config():
    """The csp_experiment section with its preset (if any) applied over it."""
    section = dict(config.get("csp_experiment") or {})
    preset = config.get("csp_preset") or section.get("preset") or "default"
    presets = section.pop("presets", None) or {}
    if preset != "default":
        if preset not in presets:
            raise ValueError(
                f"config: csp_experiment preset {preset!r} unknown; known: {sorted(presets)}"
            )
        section.update(presets[preset])
    section["preset"] = preset
    return section


CSP = _csp_config()
CSP_SOLVERS = list(CSP.get("solvers", ["cpsat", "csp-mac-mrv"]))
for _name in CSP_SOLVERS:
    if registry.level(_name, SOLVERS) != "puzzle":
        raise ValueError(
            f"config: csp_experiment: {_name!r} is not a puzzle-level solver"
        )


def csp_targets():
    """The experiment's outputs when the config has an enabled csp_experiment section (rule all
    and the summary pages ask for them)."""
    if not config.get("csp_experiment") or not CSP.get("enabled", True):
        return []
    return [f"results/Reports/csp_largest_n.{x}" for x in ("md", "tsv", "png")]
