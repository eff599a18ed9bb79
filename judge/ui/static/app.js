// judge ui: the shared helpers, the header, the catalogue, a challenge's page and the routing.
// The editor and drafts are in editor.js, Run/Submit and their results in judging.js, the history in
// history.js: one global scope, loaded before this file (index.html), which routes once all are there.
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
const POLL_MS = 1500;
let page = null;  // the open challenge page's state; null on the catalogue

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}

// An API call; a failure is an Error whose .kind says what happened: "network" (judge ui does not answer),
// "token" (this page's token is refused: the server was restarted), or the HTTP status's reply otherwise.
async function api(path, options = {}) {
  let reply;
  try {
    reply = await fetch(path, {...options, headers: {...API_HEADERS, ...(options.headers || {})}});
  } catch (err) {
    throw Object.assign(new Error("judge ui does not answer (stopped?)"), {kind: "network", status: 0, body: {}});
  }
  const body = await reply.json().catch(() => ({}));
  if (!reply.ok) {
    const kind = reply.status === 403 ? "token" : reply.status === 409 && body.busy ? "busy" : "http";
    throw Object.assign(new Error(body.error || reply.statusText), {kind, status: reply.status, body});
  }
  return body;
}

const q = (params) => new URLSearchParams(params).toString();
const fmtMs = (ms) => ms === null || ms === undefined ? "" : ms >= 1 ? `${ms.toPrecision(4)} ms` : `${(ms * 1000).toPrecision(4)} µs`;
const sizes = (params) => Object.entries(params || {}).map(([k, v]) => `${k}=${v}`).join(", ");
const verdictClass = (v) => v === "accepted" ? "accepted" : "rejected";
const fmtDate = (iso) => { const d = new Date(iso); return isNaN(d) ? String(iso) : d.toLocaleString([], {month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"}); };

// rows: an array of rows, or a tbody the caller fills later (the catalogue's filter, a judgement's live cases)
function table(headers, rows, attrs = {}) {
  return el("table", attrs, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    rows instanceof Node ? rows : el("tbody", {}, rows));
}

// ---------------------------------------------------------------- the header (every page)
const MODE_TEXT = {cpu: "mode: CPU (Triton interpreter; no GPU times)", gpu: "mode: GPU"};

async function refreshHeader() {
  let status;
  try { status = await api("/api/status"); } catch (err) { return null; }
  document.getElementById("mode").textContent = MODE_TEXT[status.mode] || `mode: ${status.mode}`;
  document.getElementById("workspace").textContent = `drafts: ${status.workspace}`;
  const running = document.getElementById("running"), j = status.judgement;
  running.hidden = !j;
  if (j) {
    running.textContent = `judging ${j.name} (${j.file || j.path})…`;
    running.href = `#/c/${encodeURIComponent(j.ref)}`;
  }
  return status;
}

function setUpTheme() {
  const button = document.getElementById("theme");
  const show = () => { button.textContent = document.documentElement.dataset.theme === "dark" ? "☀ light" : "☾ dark"; };
  button.addEventListener("click", () => {
    const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    localStorage.setItem("judge-ui-theme", next);
    show();
  });
  show();
}

// ---------------------------------------------------------------- the catalogue
async function showCatalogue() {
  page = null;
  const view = document.getElementById("view");
  const loading = el("p", {class: "muted", id: "loading"}, "loading the challenges…");
  view.replaceChildren(loading);
  const progress = setInterval(async () => {  // a LeetGPU folder listed for the first time takes seconds: say how far
    const p = await api("/api/catalogue-progress").catch(() => ({}));
    if (p.total) loading.textContent = `loading the challenges… ${p.folder}: ${p.done} of ${p.total} folders`;
  }, 300);
  let data;
  try { data = await api("/api/challenges"); } finally { clearInterval(progress); }
  if (location.hash.startsWith("#/c/")) return;  // a challenge was opened while the list loaded
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
    const shown = data.challenges.filter((c) =>
      (!difficulty.value || c.difficulty === difficulty.value) && (!source.value || c.source === source.value) &&
      (!tag.value || c.tags.includes(tag.value)) &&
      words.every((w) => `${c.name} ${c.title} ${c.signature}`.toLowerCase().includes(w)));
    // A search with no match said nothing: only the table's header was left.
    body.replaceChildren(...(shown.length ? shown.map(catalogueRow) : [el("tr", {id: "no-match"}, el("td", {colspan: 7,
      class: "muted"}, `no challenge matches${search.value.trim() ? ` “${search.value.trim()}”` : ""} with these filters`))]));
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
  // c.link: a LeetGPU folder's name where it is the only one (#/c/3_matrix_transpose), else its path
  return el("tr", {}, el("td", {}, el("a", {href: `#/c/${encodeURIComponent(c.link || c.ref)}`, class: "challenge-link"}, c.name)),
    el("td", {}, c.title), el("td", {}, c.difficulty), el("td", {}, c.source),
    el("td", {}, c.tags.map((t) => el("span", {class: "tag"}, t))), el("td", {}, el("code", {}, c.signature)),
    el("td", {}, bestText));
}

// ---------------------------------------------------------------- a challenge's page
async function showChallenge(ref) {
  const info = await api(`/api/challenge?${q({ref})}`);
  if (location.hash !== `#/c/${encodeURIComponent(ref)}`) return;  // the user went elsewhere meanwhile
  const view = document.getElementById("view");
  const editorHost = el("div", {id: "editor"});
  view.replaceChildren(el("h2", {}, `${info.title} `, el("span", {class: "muted"}, `${info.name} · ${info.difficulty}`)),
    el("div", {class: "page"},
      el("section", {class: "left"}, statement(info), info.example ? [el("h3", {}, "Example"),
        el("pre", {class: "example", id: "example"}, info.example)] : null, facts(info)),
      el("section", {class: "middle"}, toolbar(info), el("div", {id: "save-line"},
        el("span", {id: "save-state", class: "muted"}), " ", el("span", {id: "save-error", role: "alert"})),
      el("div", {id: "notices"}), editorHost, el("div", {id: "draft-path", class: "muted"})),
      el("section", {class: "right"}, el("div", {id: "results"},
        el("p", {class: "results-empty"}, "Run judges the tests; Submit judges them, then times the benchmark.")),
      el("h3", {}, "History"), el("div", {id: "history"}))));
  page = {ref, info, editor: makeEditor(editorHost), lang: null, file: null, mtime: null, dirty: false, saveTimer: null,
    saveProblem: null, judging: null, busyElsewhere: null, events: null};
  // The language chosen last on this challenge, in this browser: looking at a starter saves its draft, and the
  // server's guess (the draft edited last) then opened that language on a reload.
  const kept = localStorage.getItem(`judge-ui-language:${info.name}`);
  await openLanguage(info.languages.some((l) => l.id === kept) ? kept : info.language || "triton");
  await followRunning(await refreshHeader());
  showHistory();
}

function statement(info) {
  const html = info.statement_kind === "html";  // a LeetGPU folder's challenge.html, sanitized by the server
  const node = el("div", {class: html ? "statement leetgpu" : "statement", id: "statement"});
  node.innerHTML = info.statement_html;  // rendered and escaped (or sanitized) by the server
  const delimiters = [{left: "$$", right: "$$", display: true}, {left: "\\[", right: "\\]", display: true},
    {left: "\\(", right: "\\)", display: false}];
  if (!html) delimiters.push({left: "$", right: "$", display: false});  // LeetGPU's pages write no $..$ math
  if (window.renderMathInElement) renderMathInElement(node, {throwOnError: false, delimiters});
  return node;
}

function toolbar(info) {
  const isMac = /Mac|iPhone|iPad/.test(navigator.platform);
  const mod = isMac ? "⌘" : "Ctrl";
  return el("div", {class: "toolbar"},
    el("span", {class: "langs", role: "group", "aria-label": "language"}, info.languages.map((lang) =>
      el("button", {id: `lang-${lang.id}`, type: "button", "aria-pressed": "false", title: `edit ${lang.file}`,
        onclick: () => openLanguage(lang.id)}, lang.label))),
    el("button", {id: "run", type: "button", class: "primary", title: `judge the tests (${mod}+Enter)`,
      onclick: () => judge(false)}, "Run"),
    el("button", {id: "submit", type: "button", class: "submit",
      title: `judge the tests, then time the benchmark (${mod}+Shift+Enter; Shift+Enter outside the editor)`,
      onclick: () => judge(true)}, "Submit"),
    el("button", {id: "profile", type: "button",
      title: "the solution's kernels on the largest benchmark case: CUPTI's times, grid, registers and bandwidth, and " +
        "Nsight Compute's counters where ncu is installed (judge profile; needs a GPU)",
      onclick: () => judge(false, true)}, "Profile"),
    el("button", {id: "reset", type: "button", title: "replace the draft by the starter (Ctrl+Z brings it back)",
      onclick: resetToStarter}, "Reset to starter"),
    el("span", {class: "keys muted"}, `${mod}+Enter Run · ${mod}+Shift+Enter Submit`));
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

// ---------------------------------------------------------------- keys and routing
// Ctrl/Cmd+Enter runs and Ctrl/Cmd+Shift+Enter submits from anywhere (the editor binds them too: editor.js);
// Shift+Enter submits only outside the editor, where it inserts a newline as in every editor.
document.addEventListener("keydown", (e) => {
  if (!page || e.key !== "Enter" || e.target.closest(".CodeMirror")) return;
  if (e.ctrlKey || e.metaKey) { e.preventDefault(); judge(e.shiftKey); }
  else if (e.shiftKey && !e.altKey && !["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName)) { e.preventDefault(); judge(true); }
});

async function route() {
  leavePage();
  const hash = location.hash || "#/";
  const view = document.getElementById("view");
  try {
    if (hash.startsWith("#/c/")) await showChallenge(decodeURIComponent(hash.slice(4)));
    else { refreshHeader(); await showCatalogue(); }
  } catch (err) {
    view.replaceChildren(el("p", {class: "rejected", id: "page-error"}, `error: ${err.message}`));
  }
}

function leavePage() {
  if (!page) return;
  keepUnsaved();
  if (page.events) page.events.close();
  if (page.ticker) clearInterval(page.ticker);
  flushSave().catch(() => {});
  page = null;
}

async function poll() {
  const status = await refreshHeader();
  if (page) { await followRunning(status); await pollDraft(); }
}

window.addEventListener("hashchange", route);
window.addEventListener("pagehide", () => { if (page) keepUnsaved(); });
setUpTheme();
route();
setInterval(poll, POLL_MS);
