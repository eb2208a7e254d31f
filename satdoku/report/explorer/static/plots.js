/* satdoku explorer: plot pages (cactus per family, scatter of two runs over a set), LTN and CSP
 * pages. Plotly is plotly.min.js next to index.html (copied from the plotly Python package),
 * loaded on first use. Colours and line styles come from the solver registry (overview.runs:
 * colour, origin): our solvers solid with circles, reference solvers dashed with squares.
 * Hovering a point names its instance; clicking it opens the instance view.
 */
"use strict";

const plotlyReady = () => loadScript("plotly.min.js");
const plotType = (n) => (n > 5000 ? "scattergl" : "scatter");
const PLOT_CONFIG = { displaylogo: false, responsive: true };
const SCATTER_CONFIG = { displaylogo: false };

/** Clicking a point whose customdata starts with [set, id] opens that instance. */
function openOnClick(gd) {
  gd.on("plotly_click", (ev) => {
    const pt = ev.points && ev.points[0];
    if (pt && Array.isArray(pt.customdata)) {
      location.hash = hashOf("i", [String(pt.customdata[0]), String(pt.customdata[1])], "");
    }
  });
}

function limitTrace(x, y, name) {
  return {
    x,
    y,
    mode: "lines",
    name,
    hoverinfo: "skip",
    line: { color: "#777", dash: "dot", width: 1 },
  };
}

PAGES.plots = {
  async render(r) {
    const ov = await overview();
    await Promise.all([need("plots", "data/plots.js"), plotlyReady()]);
    const plots = SATDOKU.data.get("plots");
    const { s, x, y } = scatterChoice(ov, r.query);
    const cactus = plots.cactus
      .map((f, j) => `<div class="plot" id="cactus-${j}" data-family="${esc(f.family)}"></div>`)
      .join("");
    const runOptions = (current) =>
      s.runs.map((k) => option(String(k), ov.runs[k].run, current)).join("");
    const scatter =
      s && s.runs.length > 1
        ? `
      <div class="controls">
        <label>set
          <select data-param="set">
          ${ov.sets.map((t) => option(t.name, t.name, s.name)).join("")}</select></label>
        <label>x <select data-param="x">${runOptions(x)}</select></label>
        <label>y <select data-param="y">${runOptions(y)}</select></label>
      </div>
      <div class="plot square" id="scatter"></div>
      <p class="pair" id="pair-line">${esc(pairLine(ov, s, x, y))}</p>
      <p class="note">Each point is one instance: time of the x run against the y run (log-log).
        Points below the diagonal: y was faster. Instances a run did not solve sit on the outer
        line at twice the time limit (crosses). Colour: the faster solver.</p>`
        : `<p class="note">A scatter plot needs a set with two runs.</p>`;
    return `<h2>Cactus plots</h2>
      <p class="note">Per family: instances solved (x) within a time (y, log). Further right and
        lower is better.
          Curves with many instances are sampled (every point is a real instance).</p>
      <div class="grid">${cactus || '<p class="note">No solved instance.</p>'}</div>
      <h2>Scatter plot</h2>${scatter}`;
  },
  async after(main, r) {
    const ov = await overview();
    const plots = SATDOKU.data.get("plots");
    plots.cactus.forEach((f, j) => drawCactus(document.getElementById(`cactus-${j}`), ov, f));
    const { s, x, y } = scatterChoice(ov, r.query);
    if (s && s.runs.length > 1) await drawScatter(document.getElementById("scatter"), ov, s, x, y);
  },
};

/** The set and the two runs of the scatter plot: from the query, else the set's default pair
 * (a reference solver against one of ours). */
function scatterChoice(ov, q) {
  const s =
    ov.sets.find((t) => t.name === q.get("set")) ||
    ov.sets.find((t) => t.runs.length > 1) ||
    ov.sets[0];
  if (!s) return {};
  const pick = (param, fallback) =>
    s.runs.includes(+q.get(param)) && q.get(param) !== null ? +q.get(param) : fallback;
  const pair = s.scatter || [s.runs[0], s.runs[1]];
  return { s, x: pick("x", pair[0]), y: pick("y", pair[1]) };
}

/** The paired comparison of the two runs of the scatter plot ("y vs x: 0.11x [0.10, 0.12],
 * p < 1e-9, 1465 pairs"), from reports/pairs.csv's figures in the overview. */
function pairLine(ov, s, x, y) {
  const p = (ov.pairs || []).find(
    (q) => q.set === s.name && ((q.a === x && q.b === y) || (q.a === y && q.b === x)),
  );
  return p ? `Paired: ${p.line}` : "";
}

function drawCactus(div, ov, fam) {
  const traces = fam.curves.map((c) => {
    if (c.run < 0) {
      // the virtual best solver: per instance the fastest run
      return {
        type: plotType(c.x.length),
        mode: "lines",
        name: "VBS (virtual best)",
        x: c.x,
        y: c.y,
        customdata: c.set.map((name, j) => [name, c.id[j]]),
        line: { color: "#000", dash: "dash", width: 2 },
        hovertemplate:
          "%{customdata[0]} #%{customdata[1]}<br>%{y:.4g} s (%{x} solved)<extra>VBS</extra>",
      };
    }
    const run = ov.runs[c.run];
    const ref = run.origin === "reference";
    return {
      type: plotType(c.x.length),
      mode: "lines+markers",
      name: run.run,
      x: c.x,
      y: c.y,
      customdata: c.set.map((name, j) => [name, c.id[j]]),
      line: { color: run.colour, dash: ref ? "dash" : "solid", width: ref ? 1.5 : 2.5 },
      marker: {
        color: run.colour,
        size: c.x.length > 300 ? 3 : 6,
        symbol: ref ? "square" : "circle",
      },
      hovertemplate:
        `%{customdata[0]} #%{customdata[1]}<br>%{y:.4g} s (%{x} solved)` +
        `<extra>${esc(run.run)}</extra>`,
    };
  });
  // each set's limit line only when the curves come near it (else it squashes them)
  const top = Math.max(0, ...fam.curves.map((c) => c.y[c.y.length - 1]));
  const limits = fam.limits || (ov.time_limit ? [[ov.time_limit, []]] : []);
  for (const [lim, sets] of limits) {
    if (top * 10 < lim) continue;
    const who = limits.length > 1 ? `: ${sets.join(", ")}` : "";
    traces.push(limitTrace([0, fam.total], [lim, lim], `time limit (${lim} s${who})`));
  }
  const lim = limits.length ? `, limit ${limits.map((l) => `${l[0]} s`).join(" / ")}` : "";
  Plotly.newPlot(
    div,
    traces,
    {
      title: { text: `${fam.family} (${fam.total.toLocaleString("en")} instances${lim})` },
      height: 380,
      hovermode: "closest",
      margin: { t: 40, r: 10, b: 45, l: 60 },
      xaxis: { title: { text: "instances solved" }, range: [0, fam.total + 1] },
      yaxis: { type: "log", title: { text: `${ov.time_word || "total"} seconds per instance` } },
    },
    PLOT_CONFIG,
  );
  openOnClick(div);
}

/** Points drawn at most in one scatter plot: beyond it, every instance a run did not solve
 * and the most different ones are kept, the rest sampled evenly (a million points would take
 * plotly many seconds and show nothing more). */
const SCATTER_MAX = 40000;

async function drawScatter(div, ov, s, x, y) {
  const { meta, cols } = await setColumns(s);
  const cx = cols.get(x),
    cy = cols.get(y);
  const X = ov.runs[x],
    Y = ov.runs[y];
  const solved = (c) => ov.codes.solved.includes(c);
  let top = 1e-6,
    low = Infinity;
  for (let i = 0; i < s.n; i++) {
    for (const c of [cx, cy]) {
      if (solved(c.s[i])) {
        top = Math.max(top, c.t[i] / 1e6);
        low = Math.min(low, Math.max(c.t[i], 1) / 1e6);
      }
    }
  }
  const setLimit = limitOf(ov, s.name);
  const limit = setLimit || top;
  const border = 2 * Math.max(limit, top);
  const valid = []; // positions with a point: neither run INVALID nor missing
  for (let i = 0; i < s.n; i++)
    if (!ov.codes.no_point.includes(cx.s[i]) && !ov.codes.no_point.includes(cy.s[i])) valid.push(i);
  const shown = sample(valid, cx, cy, solved);
  const groups = { x: [], y: [], none: [] };
  let unsolved = false;
  for (const i of shown) {
    const a = cx.s[i],
      b = cy.s[i],
      both = solved(a) && solved(b);
    const tx = solved(a) ? Math.max(cx.t[i], 1) / 1e6 : border;
    const ty = solved(b) ? Math.max(cy.t[i], 1) / 1e6 : border;
    const g = !solved(a) && !solved(b) ? "none" : tx <= ty ? "x" : "y";
    groups[g].push([
      tx,
      ty,
      idAt(s, meta, i),
      ov.codes.status[a] || a,
      ov.codes.status[b] || b,
      both,
    ]);
    unsolved = unsolved || !both;
  }
  if (!Number.isFinite(low)) low = border / 100;
  const high = unsolved ? border : 2 * top; // no point on the outer line: no room kept for it
  const trace = (pts, name, colour) => ({
    type: plotType(pts.length),
    mode: "markers",
    name: `${name} (${pts.length})`,
    x: pts.map((p) => p[0]),
    y: pts.map((p) => p[1]),
    customdata: pts.map((p) => [s.name, p[2], p[3], p[4]]),
    marker: {
      color: colour,
      size: 7,
      opacity: 0.8,
      symbol: pts.map((p) => (p[5] ? "circle" : "x")),
    },
    hovertemplate:
      `%{customdata[0]} #%{customdata[1]}<br>${esc(X.run)}: %{customdata[2]}, %{x:.4g} s` +
      `<br>${esc(Y.run)}: %{customdata[3]}, %{y:.4g} s<extra></extra>`,
  });
  const range = [Math.log10(low) - 0.2, Math.log10(high) + 0.1];
  const traces = [
    trace(groups.x, `${X.run} faster`, X.colour),
    trace(groups.y, `${Y.run} faster`, Y.colour),
    trace(groups.none, "neither solved", "#999"),
    limitTrace([low / 2, high * 1.2], [low / 2, high * 1.2], "same time"),
  ];
  if (setLimit && limit <= high) {
    traces.push(limitTrace([limit, limit], [low / 2, high * 1.2], `time limit (${limit} s)`));
    traces.push({ ...limitTrace([low / 2, high * 1.2], [limit, limit], ""), showlegend: false });
  }
  const of =
    shown.length < valid.length
      ? ` (${shown.length.toLocaleString("en")} of ` +
        `${valid.length.toLocaleString("en")}` +
        ` instances: unsolved and most different ones, the rest sampled)`
      : "";
  await Plotly.newPlot(
    div,
    traces,
    {
      title: { text: `${s.name}: ${X.run} vs ${Y.run}${of ? "<br><sub>" + of + "</sub>" : ""}` },
      width: 820,
      height: 560,
      hovermode: "closest",
      margin: { t: of ? 60 : 40, r: 10, b: 50, l: 70 },
      legend: { x: 0.66, y: 1 },
      xaxis: {
        type: "log",
        range,
        title: { text: `${X.run}: ${ov.time_word || "total"} seconds` },
        domain: [0, 0.62],
      },
      yaxis: {
        type: "log",
        range,
        title: { text: `${Y.run}: ${ov.time_word || "total"} seconds` },
      },
    },
    SCATTER_CONFIG,
  );
  openOnClick(div);
}

/** At most SCATTER_MAX of `positions`: every one a run did not solve (sampled evenly if even
 * those are too many), the SCATTER_MAX / 10 with the largest time ratio either way, then an
 * even sample of the rest. */
function sample(positions, cx, cy, solved) {
  if (positions.length <= SCATTER_MAX) return positions;
  const even = (list, n) =>
    list.length <= n
      ? list
      : list.filter(
          (_, j) => Math.floor((j * n) / list.length) !== Math.floor(((j - 1) * n) / list.length),
        );
  const open = positions.filter((i) => !solved(cx.s[i]) || !solved(cy.s[i]));
  const keep = new Set(even(open, SCATTER_MAX / 2));
  const both = positions.filter((i) => solved(cx.s[i]) && solved(cy.s[i]));
  const spread = new Float64Array(both.length);
  both.forEach((i, j) => {
    spread[j] = Math.abs(Math.log(Math.max(cx.t[i], 1) / Math.max(cy.t[i], 1)));
  });
  const cut = Float64Array.from(spread).sort()[Math.max(0, both.length - SCATTER_MAX / 10)];
  both.forEach((i, j) => {
    if (spread[j] >= cut && keep.size < SCATTER_MAX * 0.6) keep.add(i);
  });
  const rest = both.filter((i) => !keep.has(i));
  for (const i of even(rest, SCATTER_MAX - keep.size)) keep.add(i);
  return [...keep].sort((a, b) => a - b);
}

// ---- LTN -------------------------------------------------------------------------------------
const pct = (v) => (v == null ? "n/a" : `${(100 * v).toFixed(2)}%`);

PAGES.ltn = {
  async render() {
    const pages = await need("pages", "data/pages.js");
    if (!pages.ltn.length) {
      return `<h2>LTN</h2>
        <p class="note">No LTN evaluation in this run (results/Reports/ltn_SIZE.json
        is written when the configuration's ltn section is enabled).</p>`;
    }
    return pages.ltn.map(ltnHtml).join("");
  },
};

function ltnHtml(e) {
  const q1 = e.q1 || {},
    q2 = e.q2 || {},
    q3 = e.q3 || {},
    h = e.headline || {};
  const figures = e.images
    .map(
      (img) =>
        `<figure><img src="pages/${esc(img)}" alt="${esc(img)}">` +
        `<figcaption>${esc(img)}</figcaption></figure>`,
    )
    .join("");
  const questions = [
    ["q1", "Q1: is a closed board valid? (learned predicate)"],
    [
      "q2",
      "Q2: is an open board solvable? (LTN solving + symbolic check, exact search as fallback)",
    ],
    ["q3", "Q3: single moves as LTN formulas vs the symbolic engine"],
  ];
  const examples = questions
    .map(([q, title]) => {
      const ex = (e.examples || {})[q];
      if (!ex) return "";
      return (
        `<h4>${esc(title)}</h4>` +
        ["right", "wrong"]
          .map((side) => {
            const items = ex[side] || [];
            const boards = items.map((b, j) => ltnBoard(e.size, b, `${q}-${side}-${j}`)).join("");
            const none =
              side === "wrong"
                ? "every board of this question was answered right"
                : "no board answered right";
            return (
              `<p class="side ${side}">${side} (${items.length} shown)</p>` +
              `<div class="boards">${boards || `<p class="note">none: ${none}</p>`}</div>`
            );
          })
          .join("")
      );
    })
    .join("");
  return `<h2>LTN, ${e.size}x${e.size} Sudoku</h2>
    <table class="ltn"><tr><th>question</th><th>figure</th></tr>
      <tr><td>Q1 accuracy (closed boards)</td>
        <td>${pct(q1.accuracy)} of ${q1.boards ?? "-"}</td></tr>
      <tr><td>Q1 single-cell corruptions</td><td>${pct(h.q1_single_cell_accuracy)}</td></tr>
      <tr><td>Q2 decisions correct</td>
        <td>${q2.decisions_correct ?? "-"} / ${q2.boards ?? "-"} (${pct(q2.accuracy)})</td></tr>
      <tr><td>Q2 certified without the exact solver (test split, singles+LTN)</td>
        <td>${pct(q2.ltn_certification_rate)}</td></tr>
      <tr><td>Q2 certified by LTN alone (test split, no singles)</td>
        <td>${pct(q2.ltn_alone_certification_rate)}</td></tr>
      <tr><td>Q2 impossible boards accepted by LTN</td>
        <td>${q2.impossible_accepted_by_ltn ?? "-"}</td></tr>
      <tr><td>Q3 agreement with the symbolic singles</td>
        <td>${pct(q3.agreement)} of ${q3.boards ?? "-"}</td></tr>
    </table>
    ${ltnBands(q2.certification_by_band)}
    <div class="figures">${figures}</div>
    <h3>Examples</h3>
      ${examples || '<p class="note">This evaluation has no example boards (older run).</p>'}`;
}

/** Q2 certification per band of blanks: LTN alone, singles+LTN, exact, with seconds per board. */
function ltnBands(rows) {
  if (!rows || !rows.length) return "";
  const secs = (v) => (v == null ? "n/a" : Number(v).toFixed(3));
  const body = rows
    .map(
      (r) => `<tr><td>${esc(r.band)}</td><td>${r.boards}</td>
      <td>${r.ltn_alone} (${pct(r.ltn_alone_rate)})</td>
      <td>${r["singles+ltn"]} (${pct(r["singles+ltn_rate"])}; ${r.singles_only ?? "-"})</td>
        <td>${r.exact}</td>
      <td>${r.undecided}</td>
        <td>${secs(r.ltn_alone_seconds)} (${secs(r.ltn_alone_cpu_seconds)})</td>
      <td>${secs(r["singles+ltn_seconds"])} (${secs(r["singles+ltn_cpu_seconds"])})
        [${secs(r["singles+ltn_seconds_max"])}]</td></tr>`,
    )
    .join("");
  return `<h3>Q2 certification by band of blanks (held-out solvable boards)</h3>
    <table class="ltn"><tr><th>band</th><th>boards</th><th>LTN alone</th>
      <th>singles+LTN (singles alone)</th>
      <th>exact</th><th>undecided</th>
        <th>s/board LTN alone: wall (CPU)</th>
        <th>s/board singles+LTN: wall (CPU) [max wall]</th></tr>
      ${body}</table>
    <p class="note">Certified = the LTN board passed the symbolic check; the exact solver decided
      the rest. Seconds: each board's share of the batched LTN time,
        wall (CPU of the process).</p>`;
}

function ltnBoard(size, ex, name) {
  const box = Math.round(Math.sqrt(size));
  const p = { kind: "sudoku", shape: [size, size], box, domain: size, givens: ex.board };
  const what = [
    `${ex.kind}${ex.subkind && ex.subkind !== "-" ? `/${ex.subkind}` : ""}`,
    `truth: ${ex.truth}`,
    `answer: ${ex.answer}`,
  ];
  if (ex.confidence != null) what.push(`confidence ${Number(ex.confidence).toFixed(3)}`);
  if (ex.decided_by) what.push(`decided by ${ex.decided_by}`);
  if (ex.note) what.push(ex.note);
  return (
    `<figure>${SATBOARD.draw(p, ex.solution || null, `ltn-${name}`)}` +
    `<figcaption>${esc(what.join("; "))}</figcaption></figure>`
  );
}

// ---- CSP -------------------------------------------------------------------------------------
/** The experiment's Markdown page (a title, paragraphs, pipe tables) as HTML, as written. */
function markdownPage(md) {
  const out = [];
  let table = null;
  for (const line of md.split("\n")) {
    if (line.startsWith("|")) {
      const cells = line
        .slice(1, line.endsWith("|") ? -1 : undefined)
        .split("|")
        .map((c) => c.trim());
      if (cells.every((c) => /^:?-+:?$/.test(c))) continue; // the |---| line
      if (!table) {
        table = [];
        out.push(table);
      }
      table.push(cells);
      continue;
    }
    table = null;
    if (line.startsWith("# ")) out.push(`<h2>CSP: ${esc(line.slice(2))}</h2>`);
    else if (line.trim()) out.push(`<p class="note">${esc(line)}</p>`);
  }
  const cells = (row, tag) => row.map((c) => `<${tag}>${esc(c)}</${tag}>`).join("");
  const rows = (x) => x.map((row, j) => `<tr>${cells(row, j ? "td" : "th")}</tr>`).join("");
  return out
    .map((x) => (typeof x === "string" ? x : `<table class="csp">${rows(x)}</table>`))
    .join("\n");
}

PAGES.csp = {
  async render() {
    const pages = await need("pages", "data/pages.js");
    const c = pages.csp;
    if (!c) {
      return `<h2>CSP: largest n</h2><p class="note">No CSP experiment in this run
        (results/Reports/csp_largest_n.tsv is written when csp_experiment is enabled).</p>`;
    }
    await plotlyReady();
    const families = [...new Set(c.rows.map((r) => r.family))];
    return `${markdownPage(c.md || "# CSP: largest n")}
      <div class="grid">
        ${families.map((f, j) => `<div class="plot" id="csp-${j}"></div>`).join("")}</div>
      ${
        c.image
          ? `<figure><img src="pages/${esc(c.image)}" alt="largest n">` +
            `<figcaption>the report's plot</figcaption></figure>`
          : ""
      }`;
  },
  after() {
    const c = SATDOKU.data.get("pages").csp;
    if (!c) return;
    const families = [...new Set(c.rows.map((r) => r.family))];
    families.forEach((fam, j) => {
      const rows = c.rows.filter((r) => r.family === fam);
      const solvers = [...new Set(rows.map((r) => r.solver))];
      const traces = solvers.map((name) => {
        const mine = rows.filter((r) => r.solver === name);
        return {
          mode: "lines+markers",
          name,
          x: mine.map((r) => +r.n),
          y: mine.map((r) => Math.max(+r.seconds, 1e-4)),
          text: mine.map((r) => r.status),
          line: { color: c.colours[name] },
          marker: {
            color: c.colours[name],
            symbol: mine.map((r) => (r.status === "SAT" ? "circle" : "x")),
            size: 8,
          },
          hovertemplate: `${esc(name)}: n=%{x}, %{y:.4g} s (%{text})<extra></extra>`,
        };
      });
      Plotly.newPlot(
        document.getElementById(`csp-${j}`),
        traces,
        {
          title: { text: `${fam}: time to solve vs n (x: the run that stopped it)` },
          height: 380,
          xaxis: { title: { text: "n" }, dtick: 1 },
          yaxis: { type: "log", title: { text: "seconds" } },
          margin: { t: 40, r: 10, b: 45, l: 60 },
        },
        PLOT_CONFIG,
      );
    });
  },
};
