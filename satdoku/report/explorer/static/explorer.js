/* satdoku results explorer: overview, instance list and instance view (plots.js adds the plot,
 * LTN and CSP pages).
 *
 * It opens from file:// with no server: browsers refuse fetch() of local files, so every data
 * file is a script calling SATDOKU.load(key, value), added as a <script> tag when a page first
 * needs it (data/overview.js, data/sets/SET/{set,runK,chunkC}.js, ...; see
 * satdoku/report/explorer/site.py). Views live in the URL hash, so each can be bookmarked:
 *   #/?sort=COL&desc=1              overview (solver table, problems first)
 *   #/set/SET?stK=T&flag=..&uq=..&sort=tK|rK_J|id&desc=1&page=N    instance list
 *   #/i/SET/ID                      one instance      #/plots  #/ltn  #/csp   (plots.js)
 * The whole list of a set is never put into the page: filters and sorts run over one-character
 * status columns and time arrays, and only PAGE_SIZE rows are drawn.
 */
"use strict";

const SATDOKU = {
  data: new Map(),
  load(key, value) {
    this.data.set(key, value);
  },
};

const PAGE_SIZE = 50;
/* The one-character columns (status, uniqueness verdict, family) are read with the codes the
 * overview ships (overview.codes, made by page_codes() in satdoku/report/explorer/site.py):
 * status words, the character groups of the list's filters and flags, verdicts, family codes. */

function has(columns, i, chars) {
  for (const c of columns) if (chars.includes(c[i])) return true;
  return false;
}

// ---- loading ---------------------------------------------------------------------------------
const scripts = new Map();

/** Add <script src> once; resolves when it has run. */
function loadScript(src) {
  if (!scripts.has(src)) {
    scripts.set(
      src,
      new Promise((resolve, reject) => {
        const s = document.createElement("script");
        s.src = src;
        s.onload = resolve;
        s.onerror = () => {
          scripts.delete(src);
          reject(new Error(`cannot load ${src}`));
        };
        document.head.appendChild(s);
      }),
    );
  }
  return scripts.get(src);
}

/** The value a data file registers under `key`, loading the file when needed. */
async function need(key, src) {
  if (!SATDOKU.data.has(key)) await loadScript(src);
  if (!SATDOKU.data.has(key)) throw new Error(`${src} does not define ${key}`);
  return SATDOKU.data.get(key);
}

const overview = () => need("overview", "data/overview.js");
const setDir = (name) => `data/sets/${encodeURIComponent(name)}`;

function setInfo(ov, name) {
  const s = ov.sets.find((x) => x.name === name);
  if (!s) throw new Error(`no set named ${name} in this run`);
  return s;
}

/** A set's columns: {meta: {fam, uq, ids}, cols: Map(run index -> {s, t})}. */
async function setColumns(s) {
  const dir = setDir(s.name);
  const [meta, ...cols] = await Promise.all([
    need(`set:${s.name}`, `${dir}/set.js`),
    ...s.runs.map((k) => need(`col:${s.name}:${k}`, `${dir}/run${k}.js`)),
  ]);
  return { meta, cols: new Map(s.runs.map((k, j) => [k, cols[j]])) };
}

/** Position of an instance id in its set (ids are normally first, first+1, ...). */
async function position(s, id) {
  if (id - s.first >= 0 && id - s.first < s.n) {
    const meta = await need(`set:${s.name}`, `${setDir(s.name)}/set.js`);
    if (!meta.ids) return id - s.first;
    const k = meta.ids.indexOf(id);
    if (k >= 0) return k;
  }
  throw new Error(`set ${s.name} has no instance ${id}`);
}

async function instanceData(ov, s, id) {
  const pos = await position(s, id);
  const c = Math.floor(pos / ov.chunk);
  const chunk = await need(`chunk:${s.name}:${c}`, `${setDir(s.name)}/chunk${c}.js`);
  return entryOf(chunk, pos - c * ov.chunk);
}

/** Instance j of a chunk, whose columns satdoku/report/explorer/chunks.py describes (its
 * chunk_entries reads them the same way): the Instances object as the shard has it (or the
 * instance built in Python), each run's answer and the instance's other columns. */
function entryOf(chunk, j) {
  const raw = chunk.raw[j];
  let inst;
  if (raw == null) {
    inst = { ...chunk.built[String(j)] };
  } else {
    const lay = chunk.layouts[chunk.lay[j]];
    const p = {};
    for (const [k, v] of Object.entries(raw)) if (!chunk.base.includes(k)) p[k] = v;
    inst = { id: Number(raw.id), line: raw.line, fam: lay.fam };
    inst.notation = raw.notation;
    inst.source = raw.source;
    if (raw.name !== undefined) inst.name = raw.name;
    inst.hash = raw.instance_hash;
    inst.p = { ...p, shape: lay.shape, domain: lay.domain };
  }
  inst.r = {};
  for (const [k, fields] of Object.entries(chunk.r)) {
    if (fields.s[j] == null) continue;
    const a = {};
    for (const [f, col] of Object.entries(fields)) if (col[j] != null) a[f] = col[j];
    inst.r[k] = a;
  }
  for (const f of ["boards", "u", "sz", "pg", "sg"]) {
    if (chunk[f] && chunk[f][j] != null) inst[f] = chunk[f][j];
  }
  return inst;
}

const idAt = (s, meta, i) => (meta.ids ? meta.ids[i] : s.first + i);

// ---- formatting ------------------------------------------------------------------------------
const esc = (v) => String(v ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Seconds as the summary tables write them (3 significant digits below 1 s). */
function secs(v) {
  if (v == null || Number.isNaN(v)) return "-";
  return v < 1 ? Number(v.toPrecision(3)).toString() : v.toFixed(2);
}

const num = (v) => (v == null ? "-" : Number(v).toLocaleString("en"));

/** A solver-table cell written as its column's format says (satdoku/report/solver_tables.py STATS:
 * count, seconds, mean, limit, text), the same way as in reports/summary.md. */
function cell(fmt, v) {
  if (v == null) return "-";
  if (fmt === "mean") return Math.round(v).toLocaleString("en");
  if (fmt === "seconds") return secs(v);
  return String(v);
}

/** A run's name with its registry colour and origin (our solver or a reference solver). */
function runLabel(ov, k, withEncoding = true) {
  const r = ov.runs[k];
  const tag = r.origin === "reference" ? "ref" : "ours";
  return (
    `<span class="run" title="${esc(r.run)}: ${esc(r.origin)}">` +
    `<i class="sw" style="background:${r.colour}"></i>` +
    `${esc(r.solver)}<small>${withEncoding ? `/${esc(r.encoding)}` : ""} · ${tag}</small></span>`
  );
}

function badge(word, verified) {
  const wrong = verified === "FAILED";
  const cls = wrong ? "wrong" : word.toLowerCase();
  return `<span class="st st-${esc(cls)}">${esc(wrong ? `WRONG ${word}` : word)}</span>`;
}

const hashOf = (page, args, query) =>
  `#/${[page, ...args].map(encodeURIComponent).join("/")}${query ? `?${query}` : ""}`;

// ---- router ----------------------------------------------------------------------------------
const PAGES = {};
let renderToken = 0;

function parseHash() {
  const h = location.hash.replace(/^#\/?/, "");
  const [path, query = ""] = h.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { page: parts[0] || "overview", args: parts.slice(1), query: new URLSearchParams(query) };
}

async function route() {
  const token = ++renderToken;
  const r = parseHash();
  const main = document.getElementById("main");
  const status = document.getElementById("status");
  document
    .querySelectorAll("nav a")
    .forEach((a) => a.classList.toggle("here", a.dataset.page === r.page));
  status.textContent = "loading…";
  main.dataset.ready = "";
  try {
    const page = PAGES[r.page];
    if (!page) throw new Error(`no page ${r.page}`);
    const html = await page.render(r);
    if (token !== renderToken) return; // the user moved on meanwhile
    main.innerHTML = html;
    if (page.after) await page.after(main, r);
    status.textContent = "";
  } catch (e) {
    if (token !== renderToken) return;
    main.innerHTML = `<p class="error">${esc(e.message)}</p>`;
    status.textContent = "";
  }
  main.dataset.ready = location.hash || "#/";
}

window.addEventListener("hashchange", route);
window.addEventListener("DOMContentLoaded", async () => {
  try {
    const ov = await overview();
    document.getElementById("title").textContent = ov.title;
    document.title = ov.title;
  } catch (e) {
    /* route() shows the error */
  }
  route();
});

/** Rows with data-href open their link (the whole row is the click target). */
document.addEventListener("click", (ev) => {
  const tr = ev.target.closest("tr[data-href]");
  if (tr && !ev.target.closest("a, select, input")) location.hash = tr.dataset.href;
});

/** Form controls with data-param rewrite the current view's query (filters, sorting). */
document.addEventListener("change", (ev) => {
  const el = ev.target.closest("[data-param]");
  if (!el) return;
  const r = parseHash();
  const q = new URLSearchParams(r.query);
  const value = el.type === "checkbox" ? (el.checked ? "1" : "") : el.value;
  if (value) q.set(el.dataset.param, value);
  else q.delete(el.dataset.param);
  if (el.dataset.param !== "page") q.delete("page");
  location.hash = hashOf(r.page, r.args, q.toString());
});

// ---- overview --------------------------------------------------------------------------------
PAGES.overview = {
  async render(r) {
    const ov = await overview();
    const t = ov.table;
    const col = r.query.get("sort");
    const desc = r.query.get("desc") === "1";
    const k = t.columns.indexOf(col);
    const rows = t.rows.map((cells, j) => ({ cells, problem: t.problem[j], j }));
    rows.sort(
      (a, b) =>
        b.problem - a.problem ||
        (k < 0 ? a.j - b.j : compare(a.cells[k], b.cells[k], desc)) ||
        a.j - b.j,
    );
    const head = t.headers
      .map((h, j) => {
        const next = new URLSearchParams({
          sort: t.columns[j],
          desc: col === t.columns[j] && !desc ? "1" : "",
        });
        if (!next.get("desc")) next.delete("desc");
        const arrow = col === t.columns[j] ? (desc ? " ▼" : " ▲") : "";
        return `<th><a href="#/?${next}">${esc(h)}${arrow}</a></th>`;
      })
      .join("");
    const body = rows
      .map(({ cells, problem }) => {
        const run = ov.runs.findIndex(
          (x) => x.solver === cells[t.at.solver] && x.encoding === cells[t.at.encoding],
        );
        const tds = cells
          .map((v, j) => {
            if (j === t.at.solver && run >= 0) return `<td>${runLabel(ov, run, false)}</td>`;
            const warn = t.problem_columns[j] && v > 0 ? ' class="warn"' : "";
            return `<td${warn}>${esc(cell(t.formats[j], v))}</td>`;
          })
          .join("");
        const href = hashOf("set", [cells[t.at.set]], run >= 0 ? `run=${run}` : "");
        return `<tr class="${problem ? "problem" : ""}" data-href="${href}">${tds}</tr>`;
      })
      .join("");
    const sets = ov.sets
      .map(
        (s) =>
          `<tr data-href="${hashOf("set", [s.name], "")}">` +
          `<td><a href="${hashOf("set", [s.name], "")}">${esc(s.name)}</a></td>` +
          `<td>${s.n.toLocaleString("en")}</td>` +
          `<td>${esc(s.families.join(", "))}</td>` +
          `<td>${s.runs.map((k) => runLabel(ov, k)).join(" ")}</td>` +
          `<td>${s.unique ? "checked" : "-"}</td></tr>`,
      )
      .join("");
    const lim = limitsText(ov);
    return `<p class="note">Generated ${esc(ov.generated)} from <code>${esc(ov.results_arg)}</code>.
        Time limit per instance: ${esc(lim)}. ${ov.sets.length} set(s), ${ov.runs.length} run(s)
        (solver/encoding).</p>
      ${problemsBox(ov.problems, ov.problems_total, ov.problems_headline)}
      ${ov.sets
        .filter((t) => t.n === 0)
        .map(
          (t) =>
            `<p class="warning">Warning: set ${esc(t.name)}` +
            `: no instances (empty or comment-only input)</p>`,
        )
        .join("")}
      <h2>Sets</h2>
      <table class="sets">
        <tr><th>set</th><th>instances</th><th>families</th><th>runs</th><th>uniqueness</th></tr>
        ${sets}</table>
      <h2>Solvers per set and encoding</h2>
      <p class="note">Click a row for its instances, a column head to sort. <i>solved</i> = SAT or
        UNSAT and not a failed verification; times are ${esc(ov.time_word || "total")} seconds
        of solved instances; PAR-2 counts an unsolved instance as twice its set's limit. VBS:
        virtual best solver (per instance the best run; VBS-reference: reference solvers
        only). Same figures as
        <code>reports/summary.csv</code>.</p>
      <table class="solvers"><tr>${head}</tr>${body}</table>
      ${propagationHtml(ov)}
      ${runHtml(ov.run)}`;
  },
};

/** The encodings view: per analysed set, layout and encoding what propagation alone solves
 * (results/Reports/propagation/SET/propagation.csv) and how many instances each run of that
 * encoding solved with zero decisions. */
function propagationHtml(ov) {
  const rows = ov.propagation || [];
  const sampleOf = (r) =>
    r.sample_of && r.sample_of !== r.instances
      ? ` (seeded sample of ${Number(r.sample_of).toLocaleString("en")})`
      : "";
  if (!rows.length) return "";
  const share = (n, s) =>
    n === "" || n == null
      ? "-"
      : `${Number(n).toLocaleString("en")} (${(100 * Number(s)).toFixed(1)}%)`;
  const body = rows
    .map((r) => {
      const zero = Object.entries(r.zero || {})
        .map(([k, v]) => `${runLabel(ov, Number(k), false)} ${(100 * v).toFixed(1)}%`)
        .join(" ");
      return (
        `<tr><td><a href="${hashOf("set", [r.set], "")}">${esc(r.set)}</a></td>` +
        `<td>${esc(r.layout)}</td><td>${esc(r.encoding)}</td>` +
        `<td>${Number(r.instances).toLocaleString("en")}${sampleOf(r)}</td>` +
        `<td>${share(r.up_solved, r.up_share)}</td>` +
        `<td>${share(r.fl_solved, r.fl_share)}</td>` +
        `<td>${share(r.singles_solved, r.singles_share)}</td>` +
        `<td>${zero || "-"}</td></tr>`
      );
    })
    .join("");
  return `<h2>Encodings: what propagation decides alone</h2>
    <p class="note">Instances solved with no search: UP = unit propagation on the encoding plus the
      givens, FL = UP with failed-literal probing to a fixpoint, singles = naked and hidden
      singles; 0 decisions = the share of the set's instances a run of that encoding solved
      without a decision (MiniSat's and Glucose's counters read 2 then; CaDiCaL's inprocessing
      decides more than UP). Same figures as <code>reports/encodings.csv</code> and
      <code>results/Reports/propagation/</code>.</p>
    <table class="propagation"><tr><th>set</th><th>layout</th><th>encoding</th><th>instances</th>
      <th>UP solved</th><th>FL solved</th><th>singles solved</th>
        <th>0 decisions</th></tr>${body}</table>`;
}

/** A set's own time limit (seconds; null: none): the one the summary's PAR-2 used. */
function limitOf(ov, name) {
  const own = (ov.limits || {})[name];
  return own === undefined ? ov.time_limit : own;
}

/** The time limits of every set in words: "5 s", or "2 s (a), 10 s (b, c)". */
function limitsText(ov) {
  const by = new Map();
  for (const s of ov.sets) {
    const k = limitOf(ov, s.name);
    if (!by.has(k)) by.set(k, []);
    by.get(k).push(s.name);
  }
  const word = (k) => (k ? `${k} s` : "none");
  if (by.size <= 1) return word(by.size ? [...by.keys()][0] : ov.time_limit);
  return [...by].map(([k, names]) => `${word(k)} (${names.join(", ")})`).join("; ");
}

/** The run's manifest (results/run.json): when, which versions, which machine, which solvers. */
function runHtml(m) {
  if (!m) return "";
  const mach = m.machine || {};
  const pk = Object.entries(m.packages || {})
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const solvers = (m.solvers || [])
    .map(
      (s) =>
        `<tr><td>${esc(s.name)}</td><td><code>${esc(JSON.stringify(s.options || {}))}</code></td>` +
        `<td><code>${esc(s.version)}</code></td></tr>`,
    )
    .join("");
  return (
    `<h2>Run</h2>` +
    `<p class="note run">run <code>${esc(m.run_id)}</code>: ${esc(m.start)} → ${esc(m.end)}<br>` +
    `satdoku ${esc(m.satdoku)}, Python ${esc(m.python)}, ${esc(pk)}<br>` +
    `machine: ${esc(mach.cpu)}, ${esc(mach.cores)} cores,` +
    ` ${esc(mach.memory_mb)} MB, ${esc(mach.os)}<br>` +
    `configuration sha256 <code>${esc(m.config_sha256)}</code></p>` +
    `<table class="run-solvers"><tr><th>solver</th><th>options</th><th>version</th></tr>` +
    `${solvers}</table>`
  );
}

function compare(a, b, desc) {
  const na = a == null,
    nb = b == null;
  if (na || nb) return na - nb; // empty cells last
  const c = typeof a === "number" ? a - b : String(a).localeCompare(String(b));
  return desc ? -c : c;
}

function problemsBox(problems, total, headline) {
  if (!total) return `<p class="ok">All answers verified; no disagreement between solvers.</p>`;
  const shown = problems.map((p) => `<li>${esc(p)}</li>`).join("");
  const more =
    total > problems.length
      ? `<li>… and ${total - problems.length} more ` +
        `(reports/summary.md has all; the instance lists filter them)</li>`
      : "";
  return `<div class="problems"><b>${esc(headline)}</b><ul>${shown}${more}</ul></div>`;
}

// ---- instance list ---------------------------------------------------------------------------
let listCache = { key: null, positions: null };

/** Positions of the instances passing every filter, in the requested order. */
function selectPositions(codes, s, meta, cols, q) {
  const key = `${s.name}?${[...q]
    .filter(([k]) => k !== "page" && k !== "run")
    .sort()
    .join("&")}`;
  if (listCache.key === key) return listCache.positions;
  const tests = s.runs
    .filter((k) => q.get(`st${k}`) in codes.filters)
    .map((k) => [cols.get(k).s, codes.filters[q.get(`st${k}`)][1]]);
  const flag = codes.flags[q.get("flag")];
  const uq = q.get("uq");
  const all = [...cols.values()].map((c) => c.s);
  let out = new Uint32Array(s.n);
  let m = 0;
  for (let i = 0; i < s.n; i++) {
    if (uq && meta.uq[i] !== uq) continue;
    if (!tests.every(([col, ok]) => ok.includes(col[i]))) continue;
    if (flag && !flag[1].every((chars) => has(all, i, chars))) continue;
    out[m++] = i;
  }
  out = out.subarray(0, m);
  out = sortPositions(out, cols, q.get("sort") || "id", q.get("desc") === "1");
  listCache = { key, positions: out };
  return out;
}

/** Sort by id, by one run's time (tK) or by the ratio of two runs' times (rK_J); instances
 * without the time(s) come last either way. */
function sortPositions(pos, cols, sort, desc) {
  if (sort === "id") return desc ? pos.slice().reverse() : pos;
  let key;
  const m = /^t(\d+)$/.exec(sort),
    r = /^r(\d+)_(\d+)$/.exec(sort);
  if (m && cols.has(+m[1])) {
    const t = cols.get(+m[1]).t;
    key = (i) => (t[i] < 0 ? NaN : t[i]);
  } else if (r && cols.has(+r[1]) && cols.has(+r[2])) {
    const a = cols.get(+r[1]).t,
      b = cols.get(+r[2]).t;
    key = (i) => (a[i] < 0 || b[i] < 0 ? NaN : a[i] / Math.max(b[i], 1));
  } else {
    return pos;
  }
  const keys = new Float64Array(pos.length);
  for (let j = 0; j < pos.length; j++) keys[j] = desc ? -key(pos[j]) : key(pos[j]);
  const order = new Uint32Array(pos.length);
  for (let j = 0; j < order.length; j++) order[j] = j;
  order.sort((x, y) => {
    const a = keys[x],
      b = keys[y];
    if (a !== a) return b !== b ? x - y : 1;
    if (b !== b) return -1;
    return a - b || x - y;
  });
  return order.map((j) => pos[j]);
}

function option(value, label, current) {
  return (
    `<option value="${esc(value)}"` +
    `${String(current ?? "") === String(value) ? " selected" : ""}>${esc(label)}</option>`
  );
}

PAGES.set = {
  async render(r) {
    const ov = await overview();
    const s = setInfo(ov, r.args[0]);
    const { meta, cols } = await setColumns(s);
    const q = r.query;
    const codes = ov.codes;
    const positions = selectPositions(codes, s, meta, cols, q);
    const pages = Math.max(1, Math.ceil(positions.length / PAGE_SIZE));
    const page = Math.min(Math.max(1, +q.get("page") || 1), pages);
    const shown = positions.subarray((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    const focus = +q.get("run");
    const runs = s.runs;
    const focusClass = (k) => (k === focus && q.has("run") ? ' class="focus"' : "");
    const runHeads = runs.map((k) => `<th${focusClass(k)}>${runLabel(ov, k)}</th>`).join("");
    const filters = runs
      .map(
        (k) =>
          `<th${focusClass(k)}>` +
          `<select data-param="st${k}" title="status of ${esc(ov.runs[k].run)}">` +
          `${option("", "any status", q.get(`st${k}`))}` +
          `${Object.entries(codes.filters)
            .map(([v, [label]]) => option(v, label, q.get(`st${k}`)))
            .join("")}</select></th>`,
      )
      .join("");
    const sortOptions = [option("id", "instance id", q.get("sort") || "id")]
      .concat(runs.map((k) => option(`t${k}`, `time of ${ov.runs[k].run}`, q.get("sort"))))
      .concat(
        runs.flatMap((a) =>
          runs
            .filter((b) => b !== a)
            .map((b) =>
              option(`r${a}_${b}`, `ratio ${ov.runs[a].run} / ${ov.runs[b].run}`, q.get("sort")),
            ),
        ),
      );
    const body = [...shown]
      .map((i) => {
        const id = idAt(s, meta, i);
        const tds = runs
          .map((k) => {
            const c = cols.get(k),
              code = c.s[i],
              t = c.t[i];
            const word = codes.status[code] || code;
            const cls = codes.wrong.includes(code) ? "wrong" : word.toLowerCase();
            return (
              `<td class="r"><span class="st st-${esc(cls)}">${esc(word)}</span> ` +
              `<span class="t">${t < 0 ? "" : secs(t / 1e6)}</span></td>`
            );
          })
          .join("");
        const href = hashOf("i", [s.name, String(id)], "");
        return (
          `<tr data-href="${href}" data-id="${id}"><td><a href="${href}">${id}</a></td>` +
          `<td>${esc(s.families[codes.families.indexOf(meta.fam[i])] ?? "")}</td>` +
          `${s.unique ? `<td>${esc(codes.verdicts[meta.uq[i]] ?? "")}</td>` : ""}${tds}</tr>`
        );
      })
      .join("");
    const uq = s.unique
      ? `<label>uniqueness <select data-param="uq">${option("", "any", q.get("uq"))}` +
        `${Object.entries(codes.verdicts)
          .filter(([v]) => v !== "-")
          .map(([v, l]) => option(v, l, q.get("uq")))
          .join("")}</select></label>`
      : "";
    const pager = pagerHtml(s, q, page, pages);
    LIST = { ov, s, meta, cols, positions };
    return `<h2>${esc(s.name)}: instances</h2>
      <div class="controls">
        <label>show <select data-param="flag">${option("", "every instance", q.get("flag"))}
          ${Object.entries(codes.flags)
            .map(([v, [label]]) => option(v, label, q.get("flag")))
            .join("")}</select></label>
        ${uq}
        <label>sort by <select data-param="sort">${sortOptions.join("")}</select></label>
        <label><input type="checkbox" data-param="desc"
          ${q.get("desc") === "1" ? " checked" : ""}>
          descending</label>
      </div>
      <p class="count" id="count"
        data-matches="${positions.length}">${positions.length.toLocaleString("en")} of
        ${s.n.toLocaleString("en")} instances match; page ${page} of ${pages}.
          Times: ${esc(ov.time_word || "total")}
        seconds; limit ${esc(limitOf(ov, s.name) ? limitOf(ov, s.name) + " s" : "none")}.
        <a href="#" id="list-csv" download="${esc(s.name)}_instances.csv">download CSV</a>
        (the ${positions.length.toLocaleString("en")} matching instances, in this order).</p>
      <table class="list"><tr><th>id</th><th>family</th>${s.unique ? "<th>unique?</th>" : ""}
        ${runHeads}</tr>
        <tr class="filters"><th></th><th></th>${s.unique ? "<th></th>" : ""}
          ${filters}</tr>${body}</table>
      ${pager}`;
  },
};

/** The instance list last drawn (the "download CSV" link exports it). */
let LIST = null;

/** CSV of the filtered list: set, id, family, uniqueness, then per run its status and
 * whole-instance seconds (the columns of reports/instances_wide.csv, for these instances). */
function listCsv({ ov, s, meta, cols, positions }) {
  const codes = ov.codes;
  const quote = (v) =>
    /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v);
  const head = [
    "set",
    "id",
    "family",
    ...(s.unique ? ["unique"] : []),
    ...s.runs.flatMap((k) => [`${ov.runs[k].run} status`, `${ov.runs[k].run} total_seconds`]),
  ];
  const lines = [head.map(quote).join(",")];
  for (const i of positions) {
    const cells = [s.name, idAt(s, meta, i), s.families[codes.families.indexOf(meta.fam[i])] ?? ""];
    if (s.unique) cells.push(codes.verdicts[meta.uq[i]] ?? "");
    for (const k of s.runs) {
      const c = cols.get(k),
        t = c.t[i];
      cells.push(codes.status[c.s[i]] || c.s[i], t < 0 ? "" : (t / 1e6).toFixed(6));
    }
    lines.push(cells.map(quote).join(","));
  }
  return lines.join("\n") + "\n";
}

document.addEventListener("click", (ev) => {
  const a = ev.target.closest("#list-csv");
  if (!a || !LIST) return;
  const url = URL.createObjectURL(new Blob([listCsv(LIST)], { type: "text/csv" }));
  a.href = url; // the browser follows it with the download attribute's file name
  setTimeout(() => URL.revokeObjectURL(url), 60000);
});

function pagerHtml(s, q, page, pages) {
  const link = (p, label) => {
    const next = new URLSearchParams(q);
    next.set("page", String(p));
    return p === page || p < 1 || p > pages
      ? `<span>${label}</span>`
      : `<a href="${hashOf("set", [s.name], next.toString())}">${label}</a>`;
  };
  return `<p class="pager">${link(1, "« first")} ${link(page - 1, "‹ previous")}
    <label>page <input type="number" min="1" max="${pages}" value="${page}"
      data-param="page"> of ${pages}</label>
    ${link(page + 1, "next ›")} ${link(pages, "last »")}</p>`;
}

// ---- one instance ----------------------------------------------------------------------------
PAGES.i = {
  async render(r) {
    const ov = await overview();
    const s = setInfo(ov, r.args[0]);
    const id = Number(r.args[1]);
    const inst = await instanceData(ov, s, id);
    const parts = [
      `<h2>${esc(s.name)} · instance ${inst.id}</h2>`,
      `<p class="note">line ${inst.line} of <code>${esc(inst.source ?? s.source)}</code> · ` +
        `notation ${esc(inst.notation ?? s.notation)}` +
        ` · family ${esc(inst.fam)}${inst.name ? ` · ${esc(inst.name)}` : ""} · ` +
        (inst.hash ? `instance_hash <code class="hash">${esc(inst.hash)}</code> · ` : "") +
        `<a href="${hashOf("i", [s.name, String(id - 1)], "")}">‹ previous</a> ` +
        `<a href="${hashOf("i", [s.name, String(id + 1)], "")}">next ›</a> · ` +
        `<a href="${hashOf("set", [s.name], "")}">all instances of ${esc(s.name)}</a></p>`,
    ];
    if (inst.error) parts.push(`<p class="error">INVALID: ${esc(inst.error)}</p>`);
    if (inst.cnf) parts.push(cnfHtml(ov, inst.cnf));
    if (inst.p) parts.push(boardsHtml(ov, s, inst));
    parts.push(answersHtml(ov, s, inst));
    if (inst.u) {
      parts.push(
        `<p>Uniqueness (MiniSat, found solution blocked): <b class="verdict">${esc(inst.u.v)}</b>` +
          ` (solutions: ${esc(inst.u.n === "2" ? "2 or more" : inst.u.n)}` +
          `, ${secs(inst.u.t)} s)</p>`,
      );
    }
    if (inst.sz || inst.pg) {
      const pg = inst.pg || {};
      const decided = (status, open) =>
        status === "open" ? `open (${open} cells)` : status || "-";
      const encs = [...new Set([...Object.keys(inst.sz || {}), ...Object.keys(pg)])];
      const rows = encs
        .map((e) => {
          const [v, c, b] = (inst.sz || {})[e] || [];
          const [up, upOpen, fl, flOpen] = pg[e] || [];
          return (
            `<tr><td>${esc(e)}</td><td>${num(v)}</td><td>${num(c)}</td><td>${num(b)}</td>` +
            `<td>${esc(decided(up, upOpen))}</td><td>${esc(decided(fl, flOpen))}</td></tr>`
          );
        })
        .join("");
      parts.push(
        `<h3>Formula size and propagation</h3>` +
          `<table class="sizes"><tr><th>encoding</th><th>variables</th>` +
          `<th>clauses</th><th>bytes (DIMACS)</th>` +
          `<th>UP alone</th><th>FL alone</th></tr>${rows}</table>` +
          (inst.sg ? `<p class="note">Naked and hidden singles alone: ${esc(inst.sg)}.</p>` : ""),
      );
    }
    parts.push(filesHtml(ov, s, inst));
    return parts.join("\n");
  },
};

function boardsHtml(ov, s, inst) {
  const p = inst.p;
  const boards = inst.boards || [];
  const who = boards.map((_, b) =>
    s.runs.filter((k) => inst.r[k] && inst.r[k].b === b).map((k) => ov.runs[k].run),
  );
  const givens = p.givens.length ? SATBOARD.values(p.givens).filter((v) => v).length : 0;
  const figs = [
    `<figure>${SATBOARD.draw(p, null, "input")}<figcaption>input: ${givens} givens</figcaption>` +
      `</figure>`,
  ];
  boards.forEach((b, j) =>
    figs.push(
      `<figure>${SATBOARD.draw(p, b, String(j))}<figcaption>solution ${j + 1}: ` +
        `${esc(who[j].join(", "))}</figcaption></figure>`,
    ),
  );
  if (p.solution && !boards.some((b) => String(b) === String(p.solution))) {
    figs.push(
      `<figure>${SATBOARD.draw(p, p.solution, "given-solution")}` +
        `<figcaption>solution given in the input</figcaption></figure>`,
    );
  }
  return (
    `<div class="boards">${figs.join("")}</div>` +
    `<p class="note">Givens bold on grey, cells the solvers filled in blue.</p>`
  );
}

/** Which backend measured an answer (`benchexec 3.x`, `basic`, in-process) and on which cores. */
function measured(a) {
  if (!a.ms) return "-";
  return esc(a.ms) + (a.co ? ` on cores ${esc(a.co)}` : "");
}

function answersHtml(ov, s, inst) {
  const rows = s.runs
    .map((k) => {
      const a = inst.r[k];
      if (!a) return `<tr><td>${runLabel(ov, k)}</td><td colspan="11">no answer</td></tr>`;
      const answer = a.b != null ? `solution ${a.b + 1}` : esc(a.m || "-");
      return (
        `<tr data-run="${k}"><td>${runLabel(ov, k)}</td><td>${badge(a.s, a.v)}</td>` +
        `<td>${esc(a.v)}</td>` +
        `<td class="answer">${answer}${a.b != null && a.m ? ` (${esc(a.m)})` : ""}` +
        `</td><td class="time">${secs(a.t)}</td><td>${secs(a.ts)}</td>` +
        `<td>${num(a.d)}</td><td>${num(a.c)}</td><td>${num(a.p)}</td><td>${num(a.rs)}</td>` +
        `<td>${a.load ?? "-"}</td><td class="measured">${measured(a)}</td></tr>`
      );
    })
    .join("");
  return (
    `<h3>Answers</h3><table class="answers"><tr><th>run</th><th>status</th><th>verified</th>` +
    `<th>answer</th><th>total s</th><th>search s</th><th>decisions</th><th>conflicts</th>` +
    `<th>propagations</th><th>restarts</th><th>load</th><th>measured by</th></tr>${rows}</table>`
  );
}

function cnfHtml(ov, cnf) {
  const name = cnf.path.split("/").pop();
  const href = cnf.path.startsWith("/") ? `file://${cnf.path}` : `${ov.workdir}/${cnf.path}`;
  return (
    `<p>CNF file <a href="${esc(href)}"><b>${esc(name)}</b></a> (<code>${esc(cnf.path)}</code>): ` +
    `${cnf.vars.toLocaleString("en")} variables, ` +
    `${cnf.clauses.toLocaleString("en")}` +
    ` clauses${cnf.bytes != null ? `, ${cnf.bytes.toLocaleString("en")} bytes` : ""}; ` +
    `sha256 <code>${esc(cnf.sha256)}</code></p>`
  );
}

/** Links to the stage files holding the instance, and the commands that cut it out. */
function filesHtml(ov, s, inst) {
  const shard = [...s.shards].reverse().find(([, first]) => first <= inst.id);
  if (!shard) return "";
  const sh = shard[0],
    R = ov.results;
  const res = ov.results_arg !== "results" ? ` --results ${ov.results_arg}` : "";
  const items = [
    `<li><a href="${R}/Instances/${s.name}/${sh}.jsonl">` +
      `Instances/${esc(s.name)}/${sh}.jsonl</a></li>`,
  ];
  for (const e of s.encodings) {
    items.push(
      `<li>DIMACS (${esc(e)}): ` +
        `<code>satdoku extract ${esc(s.name)} ${inst.id} --encoding ${esc(e)}${esc(res)}</code>` +
        ` · bundle ` +
        `<a href="${R}/SatInput/${e}/${s.name}/${sh}.cnfs">` +
        `SatInput/${esc(e)}/${esc(s.name)}/${sh}.cnfs</a></li>`,
    );
  }
  for (const k of s.runs) {
    const run = ov.runs[k];
    const sols = `<a href="${R}/SatSols/${run.run}/${s.name}/shards/${sh}.tsv">SatSols</a>`;
    if (run.encoding === "direct") {
      items.push(`<li>${esc(run.run)}: ${sols} (puzzle-level solver: no SatOutput)</li>`);
      continue;
    }
    items.push(
      `<li>${esc(run.run)}: ` +
        `<code>satdoku extract ${esc(s.name)} ${inst.id} --encoding ${esc(run.encoding)} ` +
        `--solver ${esc(run.solver)}${esc(res)}</code> · ` +
        `<a href="${R}/SatOutput/${run.run}/${s.name}/${sh}.out">` +
        `SatOutput/${esc(run.run)}/${esc(s.name)}/${sh}.out</a>` +
        ` (search <code>c instance ${inst.id}</code>) · ${sols}</li>`,
    );
  }
  return (
    `<h3>Files</h3>` +
    `<p class="note">Shard ${sh}; commands run in the workflow's directory.</p>` +
    `<ul class="files">${items.join("")}</ul>`
  );
}
