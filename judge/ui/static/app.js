// judge ui: the catalogue, a challenge's page (statement, editor, Run/Submit, results, history).
// Every string from the server goes in as text (el()), never as HTML, except the statement,
// which the server rendered from markdown with raw HTML escaped (judge/ui/statement.py).
"use strict";

// The token: the printed URL brings it once (?token=...); it is kept in this origin's localStorage, which no
// other port of this host can read (a cookie would be sent to all of them), and leaves the address bar.
const TOKEN = (() => {
  const url = new URL(location.href);
  const given = url.searchParams.get("token");
  if (given) {
    localStorage.setItem("judge-ui-token", given);
    url.searchParams.delete("token");
    history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
  return localStorage.getItem("judge-ui-token") || "";
})();
const API_HEADERS = {"Content-Type": "application/json", "X-Judge-UI": "1", "X-Judge-Token": TOKEN};
const SAVE_DELAY_MS = 600, POLL_MS = 1500;
const CASE_COLUMNS = ["", "case", "sizes", "verdict", "call (ms)", "detail"];  // caseRow's cells
let page = null;  // the open challenge page's state; null on the catalogue

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}

async function api(path, options = {}) {
  const reply = await fetch(path, {...options, headers: {...API_HEADERS, ...(options.headers || {})}});
  const body = await reply.json().catch(() => ({}));
  if (!reply.ok) throw Object.assign(new Error(body.error || reply.statusText), {status: reply.status, body});
  return body;
}

const q = (params) => new URLSearchParams(params).toString();
const fmtMs = (ms) => ms === null || ms === undefined ? "" : ms >= 1 ? `${ms.toPrecision(4)} ms` : `${(ms * 1000).toPrecision(4)} µs`;
const sizes = (params) => Object.entries(params || {}).map(([k, v]) => `${k}=${v}`).join(", ");
const verdictClass = (v) => v === "accepted" ? "accepted" : "rejected";

// rows: an array of rows, or a tbody the caller fills later (the catalogue's filter, a judgement's live cases)
function table(headers, rows, attrs = {}) {
  return el("table", attrs, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    rows instanceof Node ? rows : el("tbody", {}, rows));
}

// ---------------------------------------------------------------- the catalogue
async function showCatalogue() {
  page = null;
  const view = document.getElementById("view");
  view.replaceChildren(el("p", {class: "muted"}, "loading the challenges…"));
  const data = await api("/api/challenges");
  if (location.hash.startsWith("#/c/")) return;  // a challenge was opened while the list loaded
  document.getElementById("mode").textContent = `mode: ${data.mode}`;
  document.getElementById("workspace").textContent = `drafts: ${data.workspace}`;
  const difficulties = [...new Set(data.challenges.map((c) => c.difficulty))].sort();
  const sources = [...new Set(data.challenges.map((c) => c.source))].sort();
  const tags = [...new Set(data.challenges.flatMap((c) => c.tags))].sort();
  const search = el("input", {id: "search", type: "search", placeholder: "search name, title, signature"});
  const pick = (id, label, values) => el("select", {id}, el("option", {value: ""}, label), values.map((v) => el("option", {value: v}, v)));
  const difficulty = pick("difficulty", "any difficulty", difficulties);
  const source = pick("source", "any source", sources);
  const tag = pick("tag", "any tag", tags);
  const body = el("tbody");
  const render = () => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    body.replaceChildren(...data.challenges.filter((c) =>
      (!difficulty.value || c.difficulty === difficulty.value) && (!source.value || c.source === source.value) &&
      (!tag.value || c.tags.includes(tag.value)) &&
      words.every((w) => `${c.name} ${c.title} ${c.signature}`.toLowerCase().includes(w))).map(catalogueRow));
  };
  // Typing filters as it goes ("input"); a select says "change" (some browsers and drivers fire no "input").
  // Not "change" on the search box: it fires when the box loses focus, as a click on a result begins, and
  // redrawing the rows then would take the clicked link away.
  search.addEventListener("input", render);
  for (const control of [difficulty, source, tag]) for (const kind of ["input", "change"]) control.addEventListener(kind, render);
  render();
  view.replaceChildren(el("div", {class: "filters"}, search, difficulty, source, tag),
    table(["challenge", "title", "difficulty", "source", "tags", "signature", "best here"], body, {id: "catalogue"}));
}

function catalogueRow(c) {
  const best = c.best;
  const bestText = !best ? el("span", {class: "muted"}, "not tried") : best.best_ms ? `${fmtMs(best.best_ms)} (GPU)` :
    best.cpu_accepted ? el("span", {class: "accepted"}, "accepted (CPU)") : el("span", {class: "rejected"}, best.last_verdict);
  return el("tr", {}, el("td", {}, el("a", {href: `#/c/${encodeURIComponent(c.ref)}`, class: "challenge-link"}, c.name)),
    el("td", {}, c.title), el("td", {}, c.difficulty), el("td", {}, c.source),
    el("td", {}, c.tags.map((t) => el("span", {class: "tag"}, t))), el("td", {}, el("code", {}, c.signature)),
    el("td", {}, bestText));
}

// ---------------------------------------------------------------- a challenge's page
async function showChallenge(ref) {
  const info = await api(`/api/challenge?${q({ref})}`);
  if (location.hash !== `#/c/${encodeURIComponent(ref)}`) return;  // the user went elsewhere meanwhile
  const view = document.getElementById("view");
  const html = info.statement_kind === "html";  // a LeetGPU folder's challenge.html, sanitized by the server
  const statement = el("div", {class: html ? "statement leetgpu" : "statement", id: "statement"});
  statement.innerHTML = info.statement_html;  // rendered and escaped (or sanitized) by the server
  const delimiters = [{left: "$$", right: "$$", display: true}, {left: "\\[", right: "\\]", display: true},
    {left: "\\(", right: "\\)", display: false}];
  if (!html) delimiters.push({left: "$", right: "$", display: false});  // LeetGPU's pages write no $..$ math
  if (window.renderMathInElement) renderMathInElement(statement, {throwOnError: false, delimiters});
  const fileSelect = el("select", {id: "draft-file"}, ["solution.py", "solution.cu"].map((f) => el("option", {value: f}, f)));
  const editorHost = el("div", {id: "editor"});
  const results = el("div", {id: "results"});
  view.replaceChildren(el("h2", {}, `${info.title} `, el("span", {class: "muted"}, `${info.name} · ${info.difficulty}`)),
    el("div", {class: "page"}, el("div", {}, statement, facts(info)),
      el("div", {}, el("div", {class: "toolbar"}, fileSelect,
        el("button", {id: "run", onclick: () => judge(false)}, "Run"),
        el("button", {id: "submit", onclick: () => judge(true)}, "Submit"),
        el("span", {id: "save-state", class: "muted"})),
      el("div", {id: "draft-path", class: "muted"}), editorHost, results)),
    el("h3", {}, "History"), el("div", {id: "history"}));
  const editor = CodeMirror(editorHost, {lineNumbers: true, indentUnit: 4, mode: "python"});
  page = {ref, info, editor, file: "solution.py", mtime: null, dirty: false, saveTimer: null, poller: null};
  editor.on("change", (_cm, change) => { if (change.origin !== "setValue") scheduleSave(); });
  fileSelect.addEventListener("change", () => openDraft(fileSelect.value));
  await openDraft("solution.py");
  page.poller = setInterval(pollDraft, POLL_MS);
  showHistory();
}

function facts(info) {
  const rows = [["signature", el("code", {}, info.signature)], ["in CUDA C++", el("code", {}, info.c_prototype)]];
  if (info.sizes) rows.push(["sizes", info.sizes]);
  for (const c of info.constraints) rows.push(["constraint", c]);
  rows.push(["tolerance", info.tolerance]);
  if (info.benchmarks.length) rows.push(["benchmarks", info.benchmarks.join("; ")]);
  return el("div", {class: "facts", id: "facts"},
    el("table", {}, rows.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v)))),
    table(["parameter", "kind", "dtype", "shape / value", "role"],
      info.parameters.map((p) => el("tr", {}, [p.name, p.kind, p.dtype, p.shape, p.role].map((x) => el("td", {}, x))))));
}

async function openDraft(file) {
  await flushSave();
  const draft = await api(`/api/draft?${q({ref: page.ref, file})}`);
  Object.assign(page, {file, mtime: draft.mtime_ns, dirty: false});
  page.editor.setOption("mode", file.endsWith(".cu") ? "text/x-c++src" : "python");
  page.editor.setValue(draft.text);
  document.getElementById("draft-path").textContent = `${draft.path} (judge run and watch in a terminal see this file)`;
  setSaveState("saved");
  if (!draft.exists) { page.dirty = true; await flushSave(); }  // the starter, saved so a terminal sees it too
}

function setSaveState(text) { const s = document.getElementById("save-state"); if (s) s.textContent = text; }

function scheduleSave() {
  page.dirty = true;
  setSaveState("editing…");
  clearTimeout(page.saveTimer);
  page.saveTimer = setTimeout(flushSave, SAVE_DELAY_MS);
}

async function flushSave() {
  if (!page || !page.dirty) return;
  clearTimeout(page.saveTimer);
  page.dirty = false;
  const saved = await api("/api/draft", {method: "PUT",
    body: JSON.stringify({ref: page.ref, file: page.file, text: page.editor.getValue()})});
  page.mtime = saved.mtime_ns;
  setSaveState("saved");
}

async function pollDraft() {
  // Edits made elsewhere (an editor, git checkout) replace the page's text, unless the page has unsaved edits.
  if (!page || page.dirty) return;
  const current = page;
  const {mtime_ns} = await api(`/api/draft/mtime?${q({ref: current.ref, file: current.file})}`).catch(() => ({}));
  if (current !== page || mtime_ns === undefined || mtime_ns === current.mtime || current.dirty) return;
  const draft = await api(`/api/draft?${q({ref: current.ref, file: current.file})}`);
  current.mtime = draft.mtime_ns;
  const cursor = current.editor.getCursor();
  current.editor.setValue(draft.text);
  current.editor.setCursor(cursor);
  setSaveState("reloaded: the file changed on disk");
}

// ---------------------------------------------------------------- Run / Submit
async function judge(submit) {
  const results = document.getElementById("results");
  await flushSave();
  let started;
  try {
    started = await api("/api/run", {method: "POST", body: JSON.stringify({ref: page.ref, file: page.file, submit})});
  } catch (err) {
    results.replaceChildren(el("p", {id: "verdict", class: err.body && err.body.busy ? "muted" : "rejected"}, err.message));
    return;
  }
  const live = el("tbody");
  const status = el("p", {class: "muted", id: "status"}, submit ? "submitted: judging, then timing…" : "judging…");
  const stop = el("button", {id: "stop", onclick: async () => {
    stop.disabled = true;
    try { await api(`/api/run/${started.id}/stop`, {method: "POST"}); } catch (err) { /* it ended meanwhile */ }
  }}, "Stop");
  results.replaceChildren(el("p", {id: "verdict", class: "muted"}, "running ", stop), status,
    table(CASE_COLUMNS, live, {id: "cases"}));
  const events = new EventSource(`/api/run/${started.id}/events?${q({token: TOKEN})}`);  // no headers here
  events.addEventListener("started", (e) => {
    const d = JSON.parse(e.data);
    status.textContent = `${d.total} tests, mode ${d.mode} on ${d.device}, seed ${d.seed}` +
      (d.server ? " · through the judge server (it forks the worker unless it refuses this environment)" : "");
  });
  events.addEventListener("stopped", (e) => {
    events.close();
    results.replaceChildren(el("p", {id: "verdict", class: "muted"}, "STOPPED ",
      el("span", {class: "muted"}, JSON.parse(e.data).message)), table(CASE_COLUMNS, live, {id: "cases"}));
  });
  events.addEventListener("case", (e) => live.append(caseRow(JSON.parse(e.data))));
  events.addEventListener("status", (e) => { status.textContent = JSON.parse(e.data).text; });
  events.addEventListener("result", (e) => { events.close(); showResult(JSON.parse(e.data)); showHistory(); });
  events.addEventListener("error", (e) => {
    if (!e.data) return;  // the connection's own error: EventSource reconnects by itself
    events.close();
    results.replaceChildren(el("p", {id: "verdict", class: "rejected"}, `internal error: ${JSON.parse(e.data).message}`));
  });
}

function caseRow(t) {
  const ok = t.verdict === "accepted";
  return el("tr", {class: verdictClass(t.verdict)}, el("td", {}, ok ? "✓" : "✗"), el("td", {}, t.name),
    el("td", {}, sizes(t.params)), el("td", {}, t.verdict), el("td", {class: "num"}, t.time_ms == null ? "" : t.time_ms.toPrecision(4)),
    el("td", {}, ok ? "" : (t.message || "").split("\n")[0].slice(0, 140)));
}

function showResult({result, history_warning}) {
  const failed = result.tests.find((t) => t.verdict !== "accepted");
  const parts = [el("p", {id: "verdict", class: verdictClass(result.verdict)}, `${result.verdict.toUpperCase()} `,
      el("span", {class: "muted"}, result.message.split("\n")[0])),
    el("p", {class: "muted"}, `${result.mode} · ${result.device} · seed ${result.seed}`)];
  if (failed) {
    const smallest = failed.smallest_failing ? `\nsmallest failing size: ${sizes(failed.smallest_failing)}` : "";
    parts.push(el("div", {id: "failure"}, `first failing case: ${failed.name} (${sizes(failed.params)}): ${failed.verdict}${smallest}\n${failed.message}`));
  }
  if (result.message.includes("\n")) parts.push(el("pre", {class: "muted"}, result.message));
  parts.push(table(CASE_COLUMNS, result.tests.map(caseRow), {id: "cases"}));
  if (result.benchmarks.length) parts.push(benchTable(result.benchmarks));
  parts.push(el("ul", {class: "notes"}, result.notes.map((n) => el("li", {}, n))));
  if (history_warning) parts.push(el("p", {class: "warning"}, history_warning));
  document.getElementById("results").replaceChildren(...parts);
}

function benchTable(benchmarks) {
  // The run JSON's benchmark rows (docs/json-schema.md), as judge run's table shows them.
  const num = (v, digits) => v == null ? "" : v.toFixed(digits);
  return table(["benchmark", "sizes", "time (median ± 95% CI)", "calls", "GB/s", "TFLOP/s", "% of peak", "torch", "vs torch", "note"],
    benchmarks.map((b) => el("tr", {class: verdictClass(b.verdict)}, el("td", {}, b.name), el("td", {}, sizes(b.params)),
      el("td", {class: "num"}, b.median_ms == null ? b.verdict : `${fmtMs(b.median_ms)} (${fmtMs(b.ci_low_ms)} … ${fmtMs(b.ci_high_ms)})`),
      el("td", {class: "num"}, b.calls ?? ""), el("td", {class: "num"}, num(b.gbps, 0)), el("td", {class: "num"}, num(b.tflops, 1)),
      el("td", {class: "num"}, b.pct_of_peak == null ? "" : `${b.pct_of_peak.toFixed(1)}% ${b.peak_kind || ""}`),
      el("td", {class: "num"}, fmtMs(b.torch_median_ms)), el("td", {class: "num"}, b.vs_torch || ""),
      el("td", {}, [b.message, ...(b.notes || [])].filter(Boolean).join("; ")))),
    {id: "bench"});
}

// ---------------------------------------------------------------- history
async function showHistory() {
  const box = document.getElementById("history");
  if (!box || !page) return;
  const doc = await api(`/api/history?${q({ref: page.ref})}`);
  if (!doc.runs.length) { box.replaceChildren(el("p", {class: "muted"}, "no attempts recorded yet")); return; }
  const parts = [chart(doc.runs)];
  for (const board of doc.leaderboard.boards) {
    parts.push(el("h4", {}, `ranking on ${board.device} (GPU-timed, as judge leaderboard)`), table(["rank", "solution", "score", "vs best", "runs"],
      board.rows.map((r) => el("tr", {}, el("td", {}, r.rank), el("td", {}, r.solution), el("td", {class: "num"}, fmtMs(r.score_ms)),
        el("td", {}, r.vs_best || ""), el("td", {class: "num"}, r.runs)))));
  }
  for (const w of doc.leaderboard.warnings) parts.push(el("p", {class: "warning"}, w));
  parts.push(el("h4", {}, "your versions (by content)"), table(["version", "solution", "runs", "accepted", "best tests passed", "best GPU score", "last verdict", "last run"],
    doc.versions.map((v) => el("tr", {}, el("td", {}, el("code", {}, v.solution_hash.slice(0, 10))), el("td", {}, v.solution),
      el("td", {class: "num"}, v.runs), el("td", {class: "num"}, v.accepted), el("td", {class: "num"}, `${v.best_passed}/${v.tests_total}`),
      el("td", {class: "num"}, fmtMs(v.best_ms)), el("td", {class: verdictClass(v.last_verdict)}, v.last_verdict), el("td", {}, v.last_at))),
    {id: "versions"}));
  box.replaceChildren(...parts);
}

function chart(runs) {
  // GPU scores (lower is better) when any attempt has one, else the share of tests passed per attempt.
  const timed = runs.some((r) => r.score_ms != null);
  const value = (r) => timed ? r.score_ms : (r.tests_total ? r.tests_passed / r.tests_total : 0);
  const shown = runs.filter((r) => value(r) != null);
  const W = 640, H = 180, pad = 36;
  const max = Math.max(...shown.map(value), timed ? 0 : 1) || 1;
  const x = (i) => pad + (shown.length < 2 ? (W - 2 * pad) / 2 : i * (W - 2 * pad) / (shown.length - 1));
  const y = (v) => H - pad + 10 - v / max * (H - 2 * pad);
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  const add = (tag, attrs, text) => { const n = document.createElementNS(NS, tag); for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v); if (text) n.textContent = text; svg.append(n); return n; };
  svg.setAttribute("class", "chart"); svg.setAttribute("id", "history-chart");
  svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  add("line", {x1: pad, y1: y(0), x2: W - pad, y2: y(0), stroke: "#99a"});
  add("text", {x: 4, y: 14, "font-size": 11, fill: "#556"}, timed ? `GPU score, ms (max ${max.toPrecision(3)})` : "tests passed (share)");
  add("text", {x: W - pad, y: H - 4, "font-size": 11, fill: "#556", "text-anchor": "end"}, `${shown.length} attempt${shown.length === 1 ? "" : "s"}, oldest to newest`);
  add("polyline", {points: shown.map((r, i) => `${x(i)},${y(value(r))}`).join(" "), fill: "none", stroke: "#8896a8"});
  shown.forEach((r, i) => {
    const dot = add("circle", {cx: x(i), cy: y(value(r)), r: 4, class: verdictClass(r.verdict),
      fill: r.verdict === "accepted" ? "#17803d" : "#c0312b"});
    const t = document.createElementNS(NS, "title");
    t.textContent = `${r.created_at} ${r.verdict} ${r.tests_passed}/${r.tests_total}${r.score_ms != null ? " " + fmtMs(r.score_ms) : ""}`;
    dot.append(t);
  });
  return svg;
}

// ---------------------------------------------------------------- routing
async function route() {
  if (page && page.poller) clearInterval(page.poller);
  await flushSave().catch(() => {});
  const hash = location.hash || "#/";
  const view = document.getElementById("view");
  try {
    if (hash.startsWith("#/c/")) await showChallenge(decodeURIComponent(hash.slice(4)));
    else await showCatalogue();
  } catch (err) {
    view.replaceChildren(el("p", {class: "rejected"}, `error: ${err.message}`));
  }
}
window.addEventListener("hashchange", route);
route();
