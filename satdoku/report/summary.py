"""Cross-set reports: summary (Markdown, CSV, HTML), cactus data per family, scatter pairs.

Problems (failed verifications, solver disagreements, errors, runs stopped by their limit on
every instance, given solutions that differ) always come first: a wrong answer must be
the first thing a reader sees, in red in HTML. Extra pages made by other stages (CSP variants
table and "largest n" plot, LTN metrics pages under results/Reports/) are included when present.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from satdoku.report.agreement import find_problems, problem_headline
from satdoku.report.collect import sols_by_run, time_limits, time_word
from satdoku.report.solver_tables import to_html, to_markdown
from satdoku.solvers.registry import CNF, OURS, is_reference, spec
from satdoku.solvers.result import LIMIT_STATUSES
from satdoku.stagefiles import paths as sp
from satdoku.stagefiles.families import INVALID_FAMILY, slug, sort_key
from satdoku.stagefiles.tsv import GIVEN_DIFFERS

#: Glob patterns (under results/Reports) of pages other stages write, shown when present.
EXTRA_PAGES = {"CSP variants": tuple(sp.file_name(sp.CSP_REPORT, ext=x) for x in ("md", "png",
                                                                                "tsv")),
               "LTN metrics": (sp.file_name(sp.LTN_REPORT, size="*", ext="md"),
                               sp.file_name(sp.LTN_FIGURE, size="*", figure="*"))}

_CSS = """body{font-family:sans-serif;margin:1.5em;max-width:90em}
table{border-collapse:collapse;margin:0.6em 0 1.4em 0;font-size:0.9em}
td,th{border:1px solid #bbb;padding:0.2em 0.5em;text-align:right}
th{background:#eee} td:nth-child(-n+3){text-align:left}
.problems{color:#b00000;border:2px solid #b00000;padding:0.5em 1em;background:#fff0f0}
.ok{color:#006000} .warning{color:#8a5a00} pre{background:#f6f6f6;padding:0.6em;overflow-x:auto}"""


def problems(df) -> list[str]:
    """Every problem (:mod:`satdoku.report.agreement`), set by set."""
    out: list[str] = []
    for name, runs in sols_by_run(_problem_rows(df)).items():
        out += find_problems(name, runs)
    return out


def _problem_rows(df):
    """The rows :func:`find_problems` can report on, in their order: failed verifications,
    errors, given solutions that differ, every SAT/UNSAT answer to an instance that has both,
    and every row of a run stopped by its limit on every valid instance of a set (a 1M-row
    frame has a handful; the rest would cost a Python dict per row to rule out)."""
    if df.empty:
        return df
    answered = df["status"].isin(["SAT", "UNSAT"])
    keys = df.loc[answered, ["set", "id", "status"]]
    kinds = keys.groupby(["set", "id"], sort=False)["status"].nunique()
    split = kinds[kinds > 1].index
    disputed = answered & df.set_index(["set", "id"]).index.isin(split)
    limited = df["status"].isin(LIMIT_STATUSES)
    by_run = [df["set"], df["run"]]
    all_limited = ((limited | (df["status"] == "INVALID")).groupby(by_run).transform("all")
                   & limited.groupby(by_run).transform("any"))
    return df[(df["verified"] == "FAILED") | (df["status"] == "ERROR")
              | (df["detail"] == GIVEN_DIFFERS) | disputed | all_limited]


def problems_markdown(items: Sequence[str]) -> str:
    if not items:
        return "**All answers verified; no disagreement between solvers.**\n"
    lines = [f"## !!! {problem_headline(len(items))}", ""]
    return "\n".join(lines + [f"- **{p}**" for p in items]) + "\n"


def problems_html(items: Sequence[str]) -> str:
    """A self-contained fragment: problems in red, or a green all-clear line."""
    if not items:
        return ('<p class="ok" style="color:#006000"><b>All answers verified; no disagreement '
                "between solvers.</b></p>\n")
    lis = "".join(f"<li>{html.escape(p)}</li>" for p in items)
    return ('<div class="problems" style="color:#b00000;border:2px solid #b00000;'
            'padding:0.5em 1em;background:#fff0f0">'
            f"<b>{html.escape(problem_headline(len(items)))}</b>"
            f"<ul>{lis}</ul></div>\n")


def cactus_data(df) -> dict[str, tuple[int, dict[str, list[float]]]]:
    """{family: (valid instances in the family, {run: times of the instances it solved})}."""
    out: dict[str, tuple[int, dict[str, list[float]]]] = {}
    valid = df[(df["family"] != INVALID_FAMILY) & (df["status"] != "INVALID")]
    for fam in sorted(valid["family"].unique(), key=sort_key):
        g = valid[valid["family"] == fam]
        total = len(g[["set", "id"]].drop_duplicates())
        runs = {str(run): [float(t) for t in r.loc[r["solved"], "seconds"].dropna()]
                for run, r in g.groupby("run", sort=False)}
        out[str(fam)] = (total, runs)
    return out


def _is_ours_sat(solver: str, variants: Mapping[str, Mapping] | None) -> bool:
    """Our SAT solver (DPLL, CDCL, their registered and configured variants): origin and level
    from the solver registry."""
    try:
        record = spec(solver, dict(variants or {}))  # type: ignore[arg-type]
    except KeyError:
        return False
    return record.origin == OURS and record.level == CNF


def scatter_pairs(df, variants: Mapping[str, Mapping] | None = None
                  ) -> dict[tuple[str, str], list[tuple[float | None, float | None, str]]]:
    """{(our solver, reference solver): [(reference s, our s, family)]}: our cdcl/dpll (and their
    variants) against every reference solver present (python-sat backends, CP-SAT), joined per
    set, instance and encoding (a puzzle-level reference, encoding 'direct', is joined with every
    encoding of ours).
    None marks an unsolved instance. No pair when either side is missing."""
    valid = df[df["status"] != "INVALID"]
    solvers = [str(s) for s in valid["solver"].unique()]
    ours = [s for s in solvers if _is_ours_sat(s, variants)]
    refs = [s for s in solvers if is_reference(s, variants) and s not in ours]
    out: dict[tuple[str, str], list[tuple[float | None, float | None, str]]] = {}
    for o in ours:
        a = valid[valid["solver"] == o]
        for r in refs:
            b = valid[valid["solver"] == r]
            direct = set(b["encoding"]) == {"direct"}
            keys = ["set", "id"] if direct else ["set", "id", "encoding"]
            m = a.merge(b, on=keys, suffixes=("_o", "_r"))
            if m.empty:
                continue
            out[(o, r)] = [  # columns as lists: no pandas row objects
                (float(tr) if sr and not math.isnan(tr) else None,
                 float(to) if so and not math.isnan(to) else None, str(fam))
                for tr, sr, to, so, fam in zip(m["seconds_r"].tolist(), m["solved_r"].tolist(),
                                               m["seconds_o"].tolist(), m["solved_o"].tolist(),
                                               m["family_o"].tolist(), strict=True)
            ]
    return out


def find_pages(reports_dir: str | Path) -> dict[str, list[Path]]:
    """Pages of other stages present under results/Reports: {section: [files]}."""
    d = Path(reports_dir)
    return {section: sorted({p for pat in pats for p in d.glob(pat)})
            for section, pats in EXTRA_PAGES.items()}


def limits_text(time_limit, sets: Sequence[str]) -> str:
    """The time limits of ``sets`` in words: "5 s" when one, else "2 s (futoshiki_usp), 10 s
    (the others)"."""
    limits = time_limits(time_limit)
    by: dict[float | None, list[str]] = {}
    for name in dict.fromkeys(sets):
        by.setdefault(limits.of(str(name)), []).append(str(name))
    if not by:
        return f"{limits.default:g} s" if limits.default else "none"
    if len(by) == 1:
        (lim,) = by
        return f"{lim:g} s" if lim else "none"
    return "; ".join(f"{lim:g} s ({', '.join(names)})" if lim else f"none ({', '.join(names)})"
                     for lim, names in by.items())


def _measure_text(time_column: str) -> str:
    word = time_word(time_column)
    what = {"total": "the whole instance (solver build, clause loading, search; for cadical195 "
                     "also the start of its own process)",
            "search": "the search alone (solve_seconds)",
            "CPU": "CPU seconds of the solve (cpu_seconds)"}[word]
    return f"Times are {word} seconds: {what}."


def _table_sets(table) -> list[str]:
    return list(dict.fromkeys(table["set"])) if "set" in table.columns else []


def summary_markdown(table, probs: Sequence[str], time_limit,
                     plots: Mapping[str, Sequence[str]], pages: Mapping[str, Sequence[Path]],
                     encodings_md: str = "", base: str | Path = ".",
                     pairs: Mapping[str, Sequence[str]] | None = None,
                     warnings: Sequence[str] = (), time_column: str = "total_seconds",
                     run: Sequence[str] = ()) -> str:
    """The cross-set summary page (Markdown). ``plots`` maps a section to image paths relative
    to the page; ``base`` is the page's directory (links to other pages are made relative);
    ``pairs``: {set: paired-comparison lines}; ``warnings``: shown after the problems; ``run``:
    the lines of the closing "Run" section (:func:`satdoku.stagefiles.manifest.describe`)."""
    import os

    out = ["# satdoku summary", "", problems_markdown(probs)]
    out += [f"**Warning: {w}**" for w in warnings] + ([""] if warnings else [])
    lim = limits_text(time_limit, _table_sets(table))
    out += [f"Time limit per instance: {lim}. {_measure_text(time_column)} *solved* = SAT or "
            "UNSAT and not a failed verification; PAR-2 = mean over valid instances of the "
            "time, or twice the set's limit when unsolved. VBS = virtual best solver (per "
            "instance the best run; VBS-reference: reference solvers only).",
            "", "## Solvers per set and encoding", "", to_markdown(table)]
    if pairs:
        out += ["## Paired comparisons", "",
                "Our runs against each reference run on the same encoding (every two runs of "
                "a set: pairs.csv). Run b vs run a: median over the instances both solved of "
                "b's time / a's, bootstrap 95% interval, Wilcoxon signed-rank p, pairs.", ""]
        for name, lines in pairs.items():
            out += [f"### {name}", ""] + [f"- {x}" for x in lines] + [""]
    for section, imgs in plots.items():
        if imgs:
            out += [f"## {section}", ""] + [f"![{Path(i).stem}]({i})" for i in imgs] + [""]
    if encodings_md:
        out += ["## Encodings compared", "", encodings_md]
    for section, files in pages.items():
        if not files:
            continue
        out += [f"## {section}", ""]
        for f in files:
            if f.suffix == ".md":
                out += [f"### {f.name}", "", f.read_text(encoding="utf-8").strip(), ""]
            elif f.suffix == ".png":
                out += [f"![{f.stem}]({os.path.relpath(f, base)})", ""]
            else:
                out += [f"- [{f.name}]({os.path.relpath(f, base)})", ""]
    page = "\n".join(out).rstrip() + "\n"
    if run:
        page += "\n## Run\n\n" + "".join(f"- {line}\n" for line in run)
    return page


def summary_html(table, probs: Sequence[str], time_limit,
                 pages: Mapping[str, Sequence[Path]], encodings_table=None,
                 pairs: Mapping[str, Sequence[str]] | None = None,
                 warnings: Sequence[str] = (), time_column: str = "total_seconds",
                 run: Sequence[str] = ()) -> str:
    """The cross-set summary as one HTML page (problems in red at the top, then warnings);
    plots are separate report items, CSP/LTN text pages are shown verbatim, the ``run`` lines
    close the page."""
    lim = limits_text(time_limit, _table_sets(table))
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>satdoku summary</title>",
             f"<style>{_CSS}</style></head><body>", "<h1>satdoku summary</h1>",
             problems_html(probs)]
    parts += [f'<p class="warning"><b>Warning: {html.escape(w)}</b></p>' for w in warnings]
    parts += [f"<p>Time limit per instance: {html.escape(lim)}. "
              f"{html.escape(_measure_text(time_column))} "
              "<i>solved</i> = SAT or UNSAT and not a failed verification; PAR-2 = mean over "
              "valid instances of the time, or twice the set's limit when unsolved. VBS = "
              "virtual best solver (VBS-reference: reference solvers only).</p>",
              "<h2>Solvers per set and encoding</h2>", to_html(table)]
    if pairs:
        parts.append("<h2>Paired comparisons</h2><p>Run b vs run a: median over the instances "
                     "both solved of b's time / a's, bootstrap 95% interval, Wilcoxon p.</p>")
        for name, lines in pairs.items():
            parts += [f"<h3>{html.escape(name)}</h3><ul>"]
            parts += [f"<li>{html.escape(x)}</li>" for x in lines] + ["</ul>"]
    if encodings_table is not None and len(encodings_table):
        parts += ["<h2>Encodings compared (means per instance)</h2>", to_html(encodings_table)]
    for section, files in pages.items():
        texts = [f for f in files if f.suffix == ".md"]
        if texts:
            parts.append(f"<h2>{html.escape(section)}</h2>")
            for f in texts:
                parts += [f"<h3>{html.escape(f.name)}</h3>",
                          f"<pre>{html.escape(f.read_text(encoding='utf-8'))}</pre>"]
    if run:
        items = "".join(f"<li>{html.escape(line)}</li>" for line in run)
        parts.append(f"<h2>Run</h2><ul class='run'>{items}</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def set_page_markdown(set_name: str, table, probs: Sequence[str],
                      time_limit: float | None) -> str:
    """The per-set table page: problems first, then one row per solver/encoding."""
    lim = f"{time_limit:g} s" if time_limit else "none"
    return (f"# {set_name}: solvers compared\n\n{problems_markdown(probs)}\n"
            f"Time limit per instance: {lim}; times in seconds per instance (solved only); "
            "PAR-2 counts an unsolved instance as twice the limit.\n\n"
            + to_markdown(table.drop(columns=["set"], errors="ignore")))


def set_page_html(set_name: str, table, probs: Sequence[str], time_limit: float | None) -> str:
    lim = f"{time_limit:g} s" if time_limit else "none"
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<title>{html.escape(set_name)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{html.escape(set_name)}: solvers compared</h1>{problems_html(probs)}"
            f"<p>Time limit per instance: {html.escape(lim)}; times in seconds per solved "
            "instance; PAR-2 counts an unsolved instance as twice the limit.</p>"
            + to_html(table.drop(columns=["set"], errors="ignore")) + "</body></html>\n")


def family_file(fam: str) -> str:
    return f"{slug(fam)}.png"
