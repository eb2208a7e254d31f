# The LTN branch's settings (the `ltn:` config section with its preset), params functions and
# targets, for the rules of ltn.smk, the summary's and the explorer's inputs (hook_pages,
# ltn_metrics in common.smk). Functions only: included by common.smk.


LTN = section("ltn")


def ltn_value(key, size):
    """A per-size setting: a plain value, or a mapping from size ("4", "9") to value."""
    value = LTN[key]
    if isinstance(value, dict):
        if str(size) not in value:
            sys.exit(f"config: ltn.{key}: no value for size {size}")
        value = value[str(size)]
    return value


def ltn_param(key):
    """The named params function of one per-size LTN setting (e.g. ltn_param("epochs"))."""

    def value(wildcards):
        return ltn_value(key, wildcards.size)

    value.__name__ = f"ltn_{key}"
    return value


def ltn_original(wildcards):
    """`--original DIR/NxN --limit-per-file K` when the config names the original data set."""
    if not LTN.get("original"):
        return []
    size = wildcards.size
    return [
        "--original",
        f"{LTN['original']}/{size}x{size}",
        "--limit-per-file",
        str(ltn_value("per_kind", size)),
    ]


def ltn_fractions():
    return [str(f) for f in LTN.get("fractions", [])]


def ltn_dir(template):
    """The params function giving the directory of an LTN file of the job's size."""

    def directory_of(wildcards):
        return os.path.dirname(template.format(size=wildcards.size))

    directory_of.__name__ = "ltn_dir"
    return directory_of


def report_prefix(wildcards, output):
    """The LTN report's path without `.md` (its other files are named after it)."""
    return output.md[: -len(".md")]


def ltn_clue17_file(wildcards):
    """The 17-clue puzzle file the 9x9 evaluation scores ([] for other sizes or when off)."""
    if wildcards.size != "9" or not LTN.get("clue17") or not LTN.get("clue17_limit"):
        return []
    return [LTN["clue17"]]


def ltn_clue17_args(wildcards):
    """--clue17 FILE --clue17-limit N for 9x9 when configured (a list: each item quoted)."""
    files = ltn_clue17_file(wildcards)
    if not files:
        return []
    return ["--clue17", files[0], "--clue17-limit", str(LTN["clue17_limit"])]


def ltn_targets():
    """Every LTN output of the configured sizes; [] when the branch is off."""
    if not LTN or not LTN["enabled"]:
        return []
    out = []
    for size in LTN["sizes"]:
        out += [path.LTN_MODEL.format(size=size), path.LTN_EPOCHS.format(size=size)]
        out += [path.LTN_REPORT.format(size=size, ext=x) for x in ("md", "json")]
        out += [path.LTN_FIGURE.format(size=size, figure=x) for x in stage.LTN_FIGURES]
    return out
