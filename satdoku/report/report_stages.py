"""Report stages: read stage files, write tables / plots / pages. One function per rule.

Every function tolerates missing solvers and empty families: a configuration with only reference
solvers gets no scatter plots, a family without instances gets no cactus plot, and nothing
crashes for it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from satdoku.cnf.encodings import ENCODINGS
from satdoku.report.collect import (
    DEFAULT_TIME,
    TimeLimits,
    load_files,
    load_set,
    parse_runs,
    time_limits,
    time_word,
)
from satdoku.report.encodings_table import size_table
from satdoku.report.explorer.data import files_plan
from satdoku.report.pairs import VBS, pair_lines, pairs, with_vbs, write_pairs
from satdoku.report.plots import cactus, encodings, scatter
from satdoku.report.solver_tables import empty_sets, solver_table, write_csv
from satdoku.report.summary import (
    cactus_data,
    family_file,
    find_pages,
    problems,
    problems_html,
    scatter_pairs,
    set_page_html,
    set_page_markdown,
    summary_html,
    summary_markdown,
)
from satdoku.stagefiles.families import slug, sort_key
from satdoku.stagefiles.manifest import describe, read_manifest
from satdoku.stagefiles.paths import CNF_SIZES, PROPAGATION_INSTANCES, RUN_MANIFEST, match


def set_table(set_name: str, instances: Sequence[str], sols: Sequence[str],
              times: Sequence[str], time_limit: float | None, out_md: str, out_csv: str,
              out_html: str | None = None) -> int:
    """The per-set solver table (Markdown + CSV [+ HTML]); returns the number of problems."""
    return write_set_table(set_name, load_set(set_name, instances, parse_runs(sols),
                                              parse_runs(times)),
                           time_limit, out_md, out_csv, out_html)


def write_set_table(set_name: str, df, time_limit: float | None, out_md: str, out_csv: str,
                    out_html: str | None = None, time_column: str = DEFAULT_TIME) -> int:
    """The per-set solver table of a set's long frame (:mod:`satdoku.report.collect`);
    returns the number of problems."""
    _parents(out_md, out_csv, out_html)
    table = solver_table(df, time_limit, time_column=time_column)
    probs = problems(df)
    Path(out_md).write_text(set_page_markdown(set_name, table, probs, time_limit),
                            encoding="utf-8")
    write_csv(table, out_csv)
    if out_html:
        Path(out_html).write_text(set_page_html(set_name, table, probs, time_limit),
                                  encoding="utf-8")
    return len(probs)


def _parents(*paths: str | None) -> None:
    """Create the directories of output files (the rules get this from Snakemake; by hand not)."""
    for p in paths:
        if p:
            Path(p).parent.mkdir(parents=True, exist_ok=True)


def _clear_pngs(d: Path) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob("*.png"):
        old.unlink()


def cactus_plots(files: Sequence[str], time_limit: TimeLimits | float | None, out_dir: str,
                 df=None, variants: Mapping[str, Mapping] | None = None,
                 time_column: str = DEFAULT_TIME) -> list[str]:  # type: ignore[no-untyped-def]
    """One cactus plot per family with data, in ``out_dir``, with the virtual best solvers and
    the limit of each set of the family; returns the families plotted. ``df``: the long frame
    of ``files`` when the caller has it already (with its VBS rows, or they are added)."""
    d = Path(out_dir)
    _clear_pngs(d)
    done = []
    frame = load_files(files, time_column) if df is None else df
    if len(frame) and not (frame["solver"] == VBS).any():
        frame = with_vbs(frame, variants)
    for fam, (total, by_run) in cactus_data(frame).items():
        if total == 0 or not by_run:
            continue
        sets = frame.loc[frame["family"] == fam, "set"]
        cactus(f"{fam} ({total} instances)", by_run, d / family_file(fam), total,
               time_limits(time_limit).by_limit(sets), variants, time_column)
        done.append(fam)
    return done


def scatter_plots(files: Sequence[str], time_limit: TimeLimits | float | None, out_dir: str,
                  variants: Mapping[str, Mapping] | None = None,
                  df=None, time_column: str = DEFAULT_TIME) -> list[str]:  # type: ignore[no-untyped-def]
    """One scatter plot per (our solver, reference) pair present; returns the file names.
    ``df``: the long frame of ``files`` when the caller has it already."""
    d = Path(out_dir)
    _clear_pngs(d)
    names = []
    frame = load_files(files, time_column) if df is None else df
    for (ours, ref), pts in scatter_pairs(frame, variants).items():
        name = f"{ours}_vs_{ref}.png"
        sets = frame.loc[frame["solver"].isin([ours, ref]), "set"]
        scatter(ours, ref, pts, d / name, time_limits(time_limit).by_limit(sets), variants,
                time_column)
        names.append(name)
    return names


def _sizes_frame(sizes: Sequence[str]):
    """The CNF sizes stage files (paths in the results layout) as one frame with a set column."""
    import pandas as pd

    frames = []
    for p in sizes:
        m = match(CNF_SIZES, p)
        if m is None:
            raise ValueError(f"{p}: not a CNF sizes file ({CNF_SIZES})")
        frames.append(pd.read_csv(p, sep="\t", dtype={"id": str}).assign(set=m["set"]))
    frames = [f for f in frames if len(f)]
    cols = ["set", "id", "family", "encoding", "vars", "clauses", "bytes"]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


def _propagation_frame(files: Sequence[str]):  # type: ignore[no-untyped-def]
    """The propagation_instances files (results layout) of analysed sets as one frame with a
    set column."""
    import pandas as pd

    frames = []
    for p in files:
        m = match(PROPAGATION_INSTANCES, p)
        if m is None:
            raise ValueError(f"{p}: not a propagation instances file ({PROPAGATION_INSTANCES})")
        frames.append(pd.read_csv(p, sep="\t", dtype=str, keep_default_na=False)
                      .assign(set=m["set"]))
    return pd.concat(frames, ignore_index=True) if frames else None


def encoding_report(files: Sequence[str], sizes: Sequence[str], out_md: str, out_csv: str,
                    out_png: str, df=None, variants: Mapping[str, Mapping] | None = None,
                    time_column: str = DEFAULT_TIME, propagation: Sequence[str] = ()
                    ) -> int:  # type: ignore[no-untyped-def]
    """Encoding comparison table (Markdown + CSV) and plot from the CNF sizes files ``sizes``,
    the results ``files`` (``df``: their long frame, when the caller has it already) and the
    analysed sets' ``propagation`` instance files. Returns the number of (family, set,
    encoding) rows."""
    _parents(out_md, out_csv, out_png)
    table, times, by_family = size_table(
        _sizes_frame(sizes), load_files(files, time_column) if df is None else df,
        _propagation_frame(propagation), variants)
    enc_order = list(ENCODINGS)
    table["_order"] = [sort_key(f)[0] for f in table["family"]]
    table["_enc"] = [enc_order.index(e) if e in enc_order else len(enc_order)
                     for e in table["encoding"]]
    table = (table.sort_values(["_order", "family", "set", "_enc", "encoding"])
             .drop(columns=["_order", "_enc"]).reset_index(drop=True))
    table.to_csv(out_csv, index=False, float_format="%.6g")
    shown = table.copy()
    if len(shown):
        shown["bytes"] = shown["bytes"] / 1024
    shown = shown.rename(columns={"bytes": "KB", "vars": "variables", "up_solved": "UP solved",
                                  "fl_solved": "FL solved", **{
        c: f"median s {c[len('median_s_'):]}" for c in shown.columns if c.startswith("median_s_")},
        **{c: f"0 decisions {c[len('zero_decisions_'):]}" for c in shown.columns
           if c.startswith("zero_decisions_")}})
    png_link = os.path.relpath(out_png, Path(out_md).parent)
    Path(out_md).write_text(
        "Means per instance of each family and set; UP / FL solved: instances unit propagation "
        "(with failed-literal probing) solves with no search, from the set's propagation "
        "analysis (`-`: not analysed), counted over `analysed` instances (a seeded sample of a "
        "large set: `propagation_sample`); time columns: median "
        f"{time_word(time_column)} seconds of solved instances; 0 decisions: the share of "
        "instances a solver solved with zero decisions (MiniSat's and Glucose's counters "
        "read 2 then, CaDiCaL's inprocessing decides more than UP: docs/solvers.md).\n\n"
        + _plain_markdown(shown) + f"\n![encodings compared]({png_link})\n", encoding="utf-8")
    encodings(by_family.to_dict("records"), times, out_png, variants, time_column)
    return len(table)


def _plain_markdown(df) -> str:
    if df.empty:
        return "(no CNF inputs)\n"
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for row in df.itertuples(index=False):
        cells = [f"{v:,.4g}" if isinstance(v, float) and v < 1 else
                 f"{v:,.1f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(c.replace("nan", "-") for c in cells) + " |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class EncodingsFiles:
    """The encodings table the summary includes: its Markdown and CSV; with ``png``, the summary
    writes both (and the plot) first, from the same read of the stage files."""

    md: str | None = None
    csv: str | None = None
    png: str | None = None

    def __post_init__(self) -> None:
        if self.png is not None and not (self.md and self.csv):
            raise ValueError("the encodings plot needs its Markdown and CSV paths too")


@dataclass(frozen=True)
class SummaryRequest:
    """One cross-set summary: the stage files it reads and everything it writes.

    ``files``: Instances shards, SatSols and SatOutputTimes files (each one's set and run read
    from its path). ``time_limit``: :class:`TimeLimits`, or one number for every set.
    ``linked_plots``: {section: directory of PNGs made elsewhere}; ``cactus_dir`` /
    ``scatter_dir``: the summary draws those plots there, and links them too. ``sizes`` and
    ``propagation`` (the analysed sets' instance files) feed the encodings table when it is
    written here. ``pages_dir``: where the CSP and LTN pages are looked for."""

    files: Sequence[str]
    time_limit: TimeLimits | float | None
    md: str
    csv: str
    html: str
    problems: str
    pairs_csv: str | None = None
    cactus_dir: str | None = None
    scatter_dir: str | None = None
    linked_plots: Mapping[str, str] = field(default_factory=dict)
    encodings: EncodingsFiles = EncodingsFiles()
    sizes: Sequence[str] = ()
    propagation: Sequence[str] = ()
    pages_dir: str = "results/Reports"
    variants: Mapping[str, Mapping] = field(default_factory=dict)
    time_column: str = DEFAULT_TIME

    def plot_sections(self) -> dict[str, str]:
        """{section: directory} of every plot the pages link: the linked directories, then
        the cactus and scatter plots drawn here (a linked section of the same name wins)."""
        drawn = {"Cactus plots": self.cactus_dir, "Scatter plots": self.scatter_dir}
        return {**self.linked_plots,
                **{s: d for s, d in drawn.items() if d is not None and s not in self.linked_plots}}


def summary(request: SummaryRequest) -> int:
    """summary.md / .csv / .html and the problems fragment; returns the number of problems.

    The stage files are read once for everything the request makes: the plots it draws, the
    encodings table it writes, the paired comparison of every two runs of a set
    (:mod:`satdoku.report.pairs`) when it names ``pairs_csv``. Each set is measured against its
    own limit; the table has each set's virtual best solvers and a 0-instance row for an empty
    set."""
    r = request
    limits = time_limits(r.time_limit)
    _parents(r.md, r.csv, r.html, r.problems, r.pairs_csv)
    df = load_files(r.files, r.time_column)
    probs = problems(df)
    with_best = with_vbs(df, r.variants) if len(df) else df
    pair_table = pairs(df, limits, r.variants)  # no rows: the header alone
    draw_summary_plots(r, limits, df, with_best)
    write_encodings(r, df)
    table = solver_table(with_best, limits, sets=list(df.attrs.get("sets", [])),
                         time_column=r.time_column)
    if r.pairs_csv:
        write_pairs(pair_table, r.pairs_csv)
    lines = pair_lines(pair_table, r.variants, headlines=True)
    write_summary_pages(r, table, probs, limits, lines, plot_links(r, df))
    write_csv(table, r.csv)
    Path(r.problems).write_text(problems_html(probs), encoding="utf-8")
    return len(probs)


def draw_summary_plots(request: SummaryRequest, limits: TimeLimits, df, with_best
                       ) -> None:  # type: ignore[no-untyped-def]
    """The cactus plots (from the frame with the VBS rows) and the scatter plots the request
    asks for, in their directories."""
    r = request
    if r.cactus_dir is not None:
        cactus_plots(r.files, limits, r.cactus_dir, df=with_best, variants=r.variants,
                     time_column=r.time_column)
    if r.scatter_dir is not None:
        scatter_plots(r.files, limits, r.scatter_dir, r.variants, df=df,
                      time_column=r.time_column)


def write_encodings(request: SummaryRequest, df) -> None:  # type: ignore[no-untyped-def]
    """The encodings table and plot, when the request writes them (``encodings.png``)."""
    r, enc = request, request.encodings
    if enc.png is not None and enc.md and enc.csv:
        encoding_report(r.files, r.sizes, enc.md, enc.csv, enc.png, df=df, variants=r.variants,
                        time_column=r.time_column, propagation=r.propagation)


def plot_links(request: SummaryRequest, df) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    """{section: the PNGs of its directory}, relative to the Markdown page where they lie below
    it, families in their report order."""
    md_dir = Path(request.md).parent
    order = {slug(f): sort_key(f) for f in df["family"].unique()}
    return {section: [str(p.relative_to(md_dir)) if p.is_relative_to(md_dir) else str(p)
                      for p in sorted(Path(d).glob("*.png"),
                                      key=lambda p: (order.get(p.stem, (99, "")), p.stem))]
            for section, d in request.plot_sections().items()}


def empty_set_warnings(table) -> list[str]:  # type: ignore[no-untyped-def]
    """One warning per set without instances."""
    return [f"set {s}: no instances (empty or comment-only input)" for s in empty_sets(table)]


def write_summary_pages(request: SummaryRequest, table, probs: Sequence[str],
                        limits: TimeLimits, pair_text: Mapping[str, Sequence[str]],
                        plots: Mapping[str, Sequence[str]]) -> None:  # type: ignore[no-untyped-def]
    """summary.md and summary.html: the solver table, problems first, the pairs' lines, the
    plots, the encodings table, the CSP/LTN pages and the run that made them."""
    import pandas as pd

    r, enc = request, request.encodings
    warnings = empty_set_warnings(table)
    pages = find_pages(r.pages_dir)
    run = run_lines(r.files)
    enc_md = Path(enc.md).read_text(encoding="utf-8") if enc.md else ""
    enc_table = pd.read_csv(enc.csv) if enc.csv else None
    Path(r.md).write_text(summary_markdown(table, probs, limits, plots, pages, enc_md,
                                           Path(r.md).parent, pair_text, warnings, r.time_column,
                                           run=run), encoding="utf-8")
    Path(r.html).write_text(summary_html(table, probs, limits, pages, enc_table, pair_text,
                                         warnings, r.time_column, run=run), encoding="utf-8")


def run_lines(files: Sequence[str]) -> list[str]:
    """The summary's "Run" lines from the manifest beside the stage files (``results/run.json``,
    which the workflow writes before the summary); none without one."""
    try:
        manifest = read_manifest(files_plan(files)[0] / RUN_MANIFEST)
    except ValueError:  # files from several results directories: no one run
        return []
    return [] if manifest is None else list(describe(manifest))


def parse_variants(text: str | None) -> dict:
    return json.loads(text) if text else {}
