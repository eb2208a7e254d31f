# Settings and target list of the LTN branch (rules in ltn.smk); functions only.


def _ltn_config():
    """The ltn section with its preset (if any) applied over it."""
    section = dict(config.get("ltn") or {})
    preset = config.get("ltn_preset") or section.get("preset") or "default"
    presets = section.get("presets") or {}
    if preset != "default":
        if preset not in presets:
            raise ValueError(
                f"config: ltn preset {preset!r} unknown; known: {sorted(presets)}"
            )
        section.update(presets[preset])
    section["preset"] = preset
    return section


LTN = _ltn_config()
LTN_SIZES = [int(s) for s in LTN.get("sizes", [4, 9])]


def ltn_value(key, size, default=None):
    """A per-size setting: a plain value, or a mapping from size ("4", "9") to value."""
    value = LTN.get(key, default)
    if isinstance(value, dict):
        value = value.get(str(size), value.get(int(size), default))
    if value is None:
        raise ValueError(f"config: ltn.{key} has no value for size {size}")
    return value


def ltn_targets():
    """Every LTN output of the configured sizes (for rule all); [] when the config has no ltn
    section (e.g. a SAT-only configuration) or ltn.enabled is false."""
    if not config.get("ltn") or not LTN.get("enabled", True):
        return []
    out = []
    for size in LTN_SIZES:
        out += [
            f"results/LTN/models/ltn_{size}.pt",
            f"results/LTN/models/ltn_{size}.tsv",
        ]
        out += [f"results/Reports/ltn_{size}.{x}" for x in ("md", "json")]
        out += [
            f"results/Reports/ltn_{size}_{x}.png"
            for x in ("curves", "q1_confusion", "q2_decisions")
        ]
    return out
