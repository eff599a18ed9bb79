// judge ui: the history of this challenge (judge history's rows): charts of the attempts with labelled axes and
// dates, the GPU ranking of the accepted versions, and every version's code (open, diff with the draft, restore).
"use strict";

const KIND_LABEL = {run: "Run", submit: "Submit", terminal: "judge run", rank: "judge rank"};
const kindOf = (r) => r.kind || (r.command === "rank" ? "rank" : "terminal");
const baseName = (path) => String(path || "").split(/[\\/]/).pop();

async function showHistory() {
  const box = document.getElementById("history");
  const state = page;
  if (!box || !state) return;
  const doc = await api(`/api/history?${q({ref: state.ref})}`);
  if (state !== page) return;
  if (!doc.runs.length) { box.replaceChildren(el("p", {class: "muted"}, "no attempts recorded yet")); return; }
  showLastVerdict(doc.runs[doc.runs.length - 1]);
  const parts = [chartLegend(), testsChart(doc.runs)];
  if (doc.runs.some((r) => r.score_ms != null)) parts.push(gpuChart(doc.runs));
  for (const board of doc.leaderboard.boards) {
    parts.push(el("h4", {}, `ranking on ${board.device} (GPU-timed, as judge leaderboard)`), table(["rank", "solution", "score", "vs best", "runs"],
      board.rows.map((r) => el("tr", {}, el("td", {}, r.rank), el("td", {}, r.solution), el("td", {class: "num"}, fmtMs(r.score_ms)),
        el("td", {}, r.vs_best || ""), el("td", {class: "num"}, r.runs)))));
  }
  for (const w of doc.leaderboard.warnings) parts.push(el("p", {class: "warning"}, w));
  parts.push(el("h4", {}, "your versions (by content, newest first)"), versionsTable(doc.versions), el("div", {id: "version-view", hidden: true}));
  box.replaceChildren(...parts);
}

// A challenge opened again shows its last recorded verdict where nothing was judged yet on this page (it showed
// the placeholder, as if never tried).
function showLastVerdict(run) {
  const empty = document.querySelector("#results .results-empty");
  if (!empty) return;
  const passed = run.tests_total ? ` · ${run.tests_passed} of ${run.tests_total} tests passed` : "";
  empty.replaceWith(el("div", {id: "last-verdict"},
    el("p", {class: verdictClass(run.verdict)}, `last ${KIND_LABEL[kindOf(run)] || "judgement"}: ${run.verdict.toUpperCase()}`,
      el("span", {class: "muted"}, `${passed} · ${fmtDate(run.created_at)}`)),
    run.message ? el("p", {class: "muted"}, shortText(run.message, 300)) : null,
    el("p", {class: "muted"}, "Run judges the tests; Submit judges them, then times the benchmark.")));
}

function versionsTable(versions) {
  const judged = (v) => Object.entries(v.kinds).map(([k, n]) => `${n} ${KIND_LABEL[k] || k}`).join(" · ");
  return table(["version", "file", "judged", "tests passed", "best GPU score", "last verdict", "last judged", "code"],
    versions.map((v) => {
      const missing = v.has_source ? null : "its text was not kept (judged before this judge kept versions' texts)";
      const action = (label, act) => el("button", {type: "button", class: `version-${label.toLowerCase()}`, disabled: Boolean(missing),
        title: missing, onclick: () => act(v)}, label);
      return el("tr", {}, el("td", {}, el("code", {}, v.solution_hash.slice(0, 10))), el("td", {title: v.solution}, baseName(v.solution)),
        el("td", {}, judged(v)), el("td", {class: "num"}, `${v.best_passed}/${v.tests_total}`),
        el("td", {class: "num"}, fmtMs(v.best_ms)), el("td", {class: verdictClass(v.last_verdict)}, v.last_verdict),
        el("td", {}, fmtDate(v.last_at)),
        el("td", {}, action("Open", openVersion), action("Diff", diffVersion), action("Restore", restoreVersion)));
    }), {id: "versions"});
}

// ---------------------------------------------------------------- a version's code
async function versionText(v) {
  return (await api(`/api/history/source?${q({ref: page.ref, hash: v.solution_hash})}`)).text;
}

function showVersionView(title, body) {
  const view = document.getElementById("version-view");
  view.hidden = false;
  view.replaceChildren(el("div", {}, el("strong", {}, title), " ",
    el("button", {type: "button", onclick: () => { view.hidden = true; view.replaceChildren(); }}, "close")), body);
  view.scrollIntoView({block: "nearest"});
}

async function openVersion(v) {
  const text = await versionText(v);
  showVersionView(`version ${v.solution_hash.slice(0, 10)} (${baseName(v.solution)}, last judged ${fmtDate(v.last_at)})`,
    el("pre", {id: "version-code"}, text));
}

async function diffVersion(v) {
  const text = await versionText(v);
  const mine = page.editor.getValue();
  showVersionView(`version ${v.solution_hash.slice(0, 10)} (−) against the draft on screen, ${page.file} (+)`,
    el("pre", {id: "version-diff", class: "diff"}, diffLines(text.split("\n"), mine.split("\n"))));
}

// Restores a version into the editor (its language's draft), as an edit: saved, and Ctrl+Z undoes it.
async function restoreVersion(v) {
  const text = await versionText(v);
  const name = baseName(v.solution);
  const lang = name.endsWith(".cu") ? "cuda" : name === "solution_pytorch.py" ? "pytorch" :
    languageOf(page.file) === "cuda" ? "triton" : page.lang;
  await openLanguage(lang);
  replaceText(page, text, "+restore");
  notice("restored", `version ${v.solution_hash.slice(0, 10)} restored into ${page.file}; Ctrl+Z (⌘Z) brings the previous text back.`);
}

// A line diff (longest common subsequence): "- " lines only in a, "+ " only in b; runs of more than 6 equal lines
// are folded to their first and last 2.  Past 4 million line pairs it says so instead of freezing the page.
function diffLines(a, b) {
  const n = a.length, m = b.length;
  if (n * m > 4e6) return [el("span", {class: "skip"}, `too large to compare here (${n} and ${m} lines); open both instead`)];
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) {
    lcs[i * (m + 1) + j] = a[i] === b[j] ? lcs[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
  }
  const out = [];
  let i = 0, j = 0, same = [];
  const flushSame = () => {
    const lines = same.length > 6 ? [...same.slice(0, 2), null, ...same.slice(-2)] : same;
    for (const line of lines) out.push(line === null ? el("div", {class: "skip"}, `… ${same.length - 4} equal lines …`) : el("div", {}, `  ${line}`));
    same = [];
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) { same.push(a[i]); i++; j++; continue; }
    flushSame();
    if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1])) out.push(el("div", {class: "del"}, `- ${a[i++]}`));
    else out.push(el("div", {class: "add"}, `+ ${b[j++]}`));
  }
  flushSame();
  if (!out.some((line) => line.className === "add" || line.className === "del")) out.unshift(el("div", {class: "skip"}, "no difference"));
  return out;
}

// ---------------------------------------------------------------- charts
const NS = "http://www.w3.org/2000/svg";

function svgNode(parent, tag, attrs, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  parent.append(node);
  return node;
}

function chartLegend() {
  return el("p", {class: "muted", id: "chart-legend"}, "● Run   ■ Submit   ▲ judge run / rank in a terminal   (green: accepted, red: rejected)");
}

function testsChart(runs) {
  return chart({id: "history-chart", runs, value: (r) => r.tests_total ? 100 * r.tests_passed / r.tests_total : 0,
    yLabel: "tests passed (%)", ticks: [0, 25, 50, 75, 100], format: (v) => `${v}`,
    tip: (r) => `${r.tests_passed}/${r.tests_total} tests passed`});
}

function gpuChart(runs) {
  const timed = runs.filter((r) => r.score_ms != null);
  const top = niceCeiling(Math.max(...timed.map((r) => r.score_ms)));
  return chart({id: "gpu-chart", runs: timed, value: (r) => r.score_ms, yLabel: "GPU time (ms; lower is better)",
    ticks: [0, top / 4, top / 2, 3 * top / 4, top], format: (v) => String(Number(v.toPrecision(3))), tip: (r) => `GPU ${fmtMs(r.score_ms)}`});
}

// The x axis's dates: the first, the last and up to three between, each only where it overlaps no other and says
// something new (ten attempts in two minutes wrote "Dec 2, 05:50 AM" five times over each other); written with
// the seconds within an hour, the time within a day, else the date too.
const DATE_CHAR_PX = 6.2, DATE_GAP_PX = 10;

function dateLabels(runs, x) {
  if (!runs.length) return [];
  const span = Math.abs(new Date(runs[runs.length - 1].created_at) - new Date(runs[0].created_at));
  const clock = span < 3600e3 ? {hour: "2-digit", minute: "2-digit", second: "2-digit"} : {hour: "2-digit", minute: "2-digit"};
  const label = (iso) => { const d = new Date(iso); return isNaN(d) ? String(iso) : span < 86400e3 ? d.toLocaleTimeString([], clock) : fmtDate(iso); };
  const last = runs.length - 1;
  const wanted = [0, last, ...[2, 1, 3].map((k) => Math.round(k * last / 4))];
  const taken = [];
  for (const i of new Set(wanted)) {
    const text = label(runs[i].created_at), width = text.length * DATE_CHAR_PX;
    const anchor = runs.length < 2 ? "middle" : i === 0 ? "start" : i === last ? "end" : "middle";
    const from = anchor === "start" ? x(i) : anchor === "end" ? x(i) - width : x(i) - width / 2;
    if (taken.some((t) => t.text === text || (from < t.to + DATE_GAP_PX && t.from < from + width + DATE_GAP_PX))) continue;
    taken.push({i, text, anchor, from, to: from + width});
  }
  return taken.sort((a, b) => a.i - b.i).map((t) => [t.i, t.text, t.anchor]);
}

function niceCeiling(v) {
  const power = 10 ** Math.floor(Math.log10(v || 1));
  return [1, 2, 2.5, 5, 10].map((f) => f * power).find((c) => c >= v) || v;
}

// One point per attempt, oldest to newest; the x axis dated at up to five attempts, the y axis labelled.
function chart({id, runs, value, yLabel, ticks, format, tip}) {
  const W = 560, H = 220, left = 56, right = 14, top = 14, bottom = 48;
  const svg = document.createElementNS(NS, "svg");
  for (const [k, v] of Object.entries({class: "chart", id, width: W, height: H, viewBox: `0 0 ${W} ${H}`})) svg.setAttribute(k, v);
  const max = ticks[ticks.length - 1] || 1;
  const x = (i) => left + (runs.length < 2 ? (W - left - right) / 2 : i * (W - left - right) / (runs.length - 1));
  const y = (v) => top + (H - top - bottom) * (1 - Math.min(v, max) / max);
  for (const t of ticks) {
    svgNode(svg, "line", {x1: left, x2: W - right, y1: y(t), y2: y(t), class: t === 0 ? "axis" : "grid"});
    svgNode(svg, "text", {x: left - 6, y: y(t) + 4, "text-anchor": "end", class: "tick"}, format(t));
  }
  svgNode(svg, "line", {x1: left, x2: left, y1: top, y2: H - bottom, class: "axis"});
  svgNode(svg, "text", {x: 12, y: (top + H - bottom) / 2, transform: `rotate(-90 12 ${(top + H - bottom) / 2})`,
    "text-anchor": "middle", class: "axis-label y-label"}, yLabel);
  svgNode(svg, "text", {x: (left + W - right) / 2, y: H - 6, "text-anchor": "middle", class: "axis-label x-label"},
    `attempt (${runs.length}, oldest to newest), judged on`);
  for (const [i, text, anchor] of dateLabels(runs, x)) {
    svgNode(svg, "text", {x: x(i), y: H - bottom + 16, "text-anchor": anchor, class: "date"}, text);
  }
  svgNode(svg, "polyline", {points: runs.map((r, i) => `${x(i)},${y(value(r))}`).join(" "), class: "trend"});
  runs.forEach((r, i) => {
    const cx = x(i), cy = y(value(r)), kind = kindOf(r), cls = `${verdictClass(r.verdict)} point ${kind}`;
    const mark = kind === "submit" ? svgNode(svg, "rect", {x: cx - 4.5, y: cy - 4.5, width: 9, height: 9, class: cls}) :
      kind === "run" ? svgNode(svg, "circle", {cx, cy, r: 4.5, class: cls}) :
      svgNode(svg, "polygon", {points: `${cx},${cy - 5.5} ${cx - 5},${cy + 4} ${cx + 5},${cy + 4}`, class: cls});
    svgNode(mark, "title", {}, `${fmtDate(r.created_at)} · ${KIND_LABEL[kind]} · ${r.verdict} · ${tip(r)}`);
  });
  return svg;
}
