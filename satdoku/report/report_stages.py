"""Report stages: read stage files, write tables / plots / pages. One function per rule.

Every function tolerates missing solvers and empty families: a configuration with only reference
solvers gets no scatter plots, a family without instances gets no cactus plot, and nothing
crashes for it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
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
from satdoku.stagefiles.bundles import bundle_sizes, write_sizes
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


def cnf_sizes(bundles: Sequence[str], encoding: str, out: str) -> int:
    """Size rows (vars, clauses, bytes) of every instance of a set's bundles for one encoding."""
    _parents(out)
    return write_sizes((r for b in bundles for r in bundle_sizes(b, encoding)), out)


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


def summary(files: Sequence[str], time_limit: TimeLimits | float | None, out_md: str,
            out_csv: str, out_html: str, out_problems: str,
            plot_dirs: Mapping[str, str] | None = None,
            encodings_md: str | None = None, encodings_csv: str | None = None,
            pages_dir: str = "results/Reports", *, cactus_dir: str | None = None,
            scatter_dir: str | None = None, variants: Mapping[str, Mapping] | None = None,
            sizes: Sequence[str] | None = None, encodings_png: str | None = None,
            pairs_csv: str | None = None, time_column: str = DEFAULT_TIME,
            propagation: Sequence[str] = ()) -> int:
    """summary.md / .csv / .html and the problems fragment; returns the number of problems.

    The stage files are read once for everything this call makes: with ``cactus_dir`` /
    ``scatter_dir`` it also draws those plots there (and links them), with ``encodings_png``
    (and ``sizes``, and the analysed sets' ``propagation`` instance files) it also writes the
    encodings table to ``encodings_md`` / ``encodings_csv`` and its plot, before the summary
    includes them; with ``pairs_csv`` the paired comparison
    of every two runs of a set (:mod:`satdoku.report.pairs`). Each set is measured against
    its own limit (``time_limit``: :class:`TimeLimits`, or one number for every set); the
    table has each set's virtual best solvers and a 0-instance row for an empty set."""
    import pandas as pd

    limits = time_limits(time_limit)
    _parents(out_md, out_csv, out_html, out_problems, pairs_csv)
    df = load_files(files, time_column)
    sets = list(df.attrs.get("sets", []))
    probs = problems(df)
    dfv = with_vbs(df, variants) if len(df) else df
    plot_dirs = dict(plot_dirs or {})
    pair_table = pairs(df, limits, variants)  # no rows: the header alone
    if cactus_dir is not None:
        cactus_plots(files, limits, cactus_dir, df=dfv, variants=variants,
                     time_column=time_column)
        plot_dirs.setdefault("Cactus plots", cactus_dir)
    if scatter_dir is not None:
        scatter_plots(files, limits, scatter_dir, variants, df=df, time_column=time_column)
        plot_dirs.setdefault("Scatter plots", scatter_dir)
    if encodings_png is not None:
        if not (encodings_md and encodings_csv):
            raise ValueError("the encodings plot needs its Markdown and CSV paths too")
        encoding_report(files, sizes or [], encodings_md, encodings_csv, encodings_png, df=df,
                        variants=variants, time_column=time_column, propagation=propagation)
    table = solver_table(dfv, limits, sets=sets, time_column=time_column)
    if pairs_csv:
        write_pairs(pair_table, pairs_csv)
    lines = pair_lines(pair_table, variants, headlines=True)
    warnings = [f"set {s}: no instances (empty or comment-only input)"
                for s in empty_sets(table)]
    md_dir = Path(out_md).parent
    order = {slug(f): sort_key(f) for f in df["family"].unique()}
    plots = {section: [str(p.relative_to(md_dir)) if p.is_relative_to(md_dir) else str(p)
                       for p in sorted(Path(d).glob("*.png"),
                                       key=lambda p: (order.get(p.stem, (99, "")), p.stem))]
             for section, d in plot_dirs.items()}
    pages = find_pages(pages_dir)
    enc_md = Path(encodings_md).read_text(encoding="utf-8") if encodings_md else ""
    enc_table = pd.read_csv(encodings_csv) if encodings_csv else None
    run_md, run_html = run_sections(files)
    Path(out_md).write_text(summary_markdown(table, probs, limits, plots, pages, enc_md,
                                             md_dir, lines, warnings, time_column) + run_md,
                            encoding="utf-8")
    write_csv(table, out_csv)
    Path(out_html).write_text(summary_html(table, probs, limits, pages, enc_table, lines,
                                           warnings, time_column)
                              .replace("</body></html>", run_html + "</body></html>"),
                              encoding="utf-8")
    Path(out_problems).write_text(problems_html(probs), encoding="utf-8")
    return len(probs)


def run_sections(files: Sequence[str]) -> tuple[str, str]:
    """The summary's "Run" section (Markdown, HTML) from the manifest beside the stage files
    (``results/run.json``, which the workflow writes before the summary); empty without one."""
    import html

    try:
        manifest = read_manifest(files_plan(files)[0] / RUN_MANIFEST)
    except ValueError:  # files from several results directories: no one run
        return "", ""
    if manifest is None:
        return "", ""
    lines = describe(manifest)
    md = "\n## Run\n\n" + "".join(f"- {line}\n" for line in lines)
    body = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return md, f"<h2>Run</h2><ul class='run'>{body}</ul>\n"


def parse_variants(text: str | None) -> dict:
    return json.loads(text) if text else {}
