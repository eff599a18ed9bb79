// judge ui: Run, Submit and Profile, following a judgement's event stream (from its start: a reloaded page or a second tab
// follows a running one too), its status line, and the result.
"use strict";

const CASE_COLUMNS = ["", "case", "sizes", "verdict", "call (ms)", "detail"];  // caseRow's cells
const FOLLOWING = "judge-ui-following";  // sessionStorage: the judgement this tab follows, until its verdict is shown
const DETAIL_CHARS = 160;

// Run/Submit: the text on screen is sent with the request, saved by the server and judged as it is; when it
// cannot be saved, nothing is judged and the page says why (a stale file was judged before).
// again: {case, seed}, one failed case of an earlier run judged alone (judge run --case NAME --seed SEED).
async function judge(submit, profile = false, again = null) {
  const state = page;
  if (!state || !state.file || state.judging || state.busyElsewhere) return;
  clearTimeout(state.saveTimer);
  state.saveTimer = null;
  const text = state.editor.getValue(), file = state.file;
  state.judging = {file, pending: true};
  setButtons(state);
  const results = document.getElementById("results");
  results.replaceChildren(el("p", {id: "verdict", class: "muted"}, "saving, then starting…"));
  let started;
  try {
    started = await api("/api/run", {method: "POST", body: JSON.stringify({ref: state.ref, file, submit, profile, text,
      ...(again || {})})});
  } catch (err) {
    state.judging = null;
    setButtons(state);
    if (err.kind === "busy" && err.body.judgement) {
      results.replaceChildren(el("p", {id: "verdict", class: "muted"}, err.message));
      await followRunning({judgement: err.body.judgement});
      return;
    }
    keepUnsaved(state);
    results.replaceChildren(el("p", {id: "verdict", class: "rejected"}, "NOT JUDGED ",
      el("span", {}, `the text on screen could not be saved first: ${saveProblemText(err, text)}`)));
    showSaveProblem(state, err);
    return;
  }
  if (state !== page) return;
  state.mtime = started.mtime_ns;
  if (state.editor.getValue() === text) {
    state.dirty = false;
    forgetUnsaved(state, text);
    setSaveState(state, "saved");
    showSaveProblem(state, null);
  }
  attach(state, started);
}

// Run, Submit and Profile wait while a judgement runs (this page's, or another tab's: one at a time per workspace).
function setButtons(state) {
  if (state !== page) return;
  const other = state.busyElsewhere;
  const why = state.judging ? "a judgement of this page is running" :
    other ? `busy: ${other.name} (${other.file}) is being judged` : null;
  for (const id of ["run", "submit", "profile"]) {
    const button = document.getElementById(id);
    if (button) { button.disabled = Boolean(why); button.dataset.why = why || ""; }
  }
  const note = document.getElementById("notice-busy");
  if (other && !note) {
    notice("busy", `busy: ${other.name} (${other.file}) is being judged, from another tab or page; Run and Submit come back when its verdict is in.`,
      [["open it", () => { location.hash = `#/c/${encodeURIComponent(other.ref)}`; }]]);
  } else if (!other && note) note.remove();
}

// Follows the workspace's running judgement when it is this page's challenge; another's disables Run/Submit.
async function followRunning(status) {
  const state = page;
  if (!state || !status) return;
  const running = status.judgement && !status.judgement.done ? status.judgement : null;
  state.busyElsewhere = running && running.ref !== state.ref ? running : null;
  if (running && running.ref === state.ref && !(state.judging && state.judging.id === running.id)) {
    if (state.judging && state.judging.pending) return;  // this page's own Run, about to attach
    const lang = state.info.languages.find((l) => l.file === running.file);
    if (lang && state.file !== running.file) await openLanguage(lang.id);  // show the text being judged
    if (state === page) attach(state, running, "following a judgement that was already running (a reload, another tab)");
  } else if (!running && !state.judging && !state.resumed) {
    state.resumed = true;  // once: a judgement this tab followed that ended while the page reloaded
    const followed = JSON.parse(sessionStorage.getItem(FOLLOWING) || "null");
    if (followed && followed.ref === state.ref) attach(state, followed, "the judgement this tab followed, which ended during the reload");
  }
  setButtons(state);
}

// Shows a judgement from its first event: Stop, the status line, the cases as they finish, then the result.
function attach(state, j, note) {
  if (state.events) state.events.close();
  clearInterval(state.ticker);
  state.judging = {...j, pending: false};
  sessionStorage.setItem(FOLLOWING, JSON.stringify({id: j.id, ref: state.ref, file: j.file, submit: j.submit,
    profile: j.profile}));
  setButtons(state);
  const results = document.getElementById("results");
  const live = el("tbody");
  const progress = {kind: j.profile ? "Profile" : j.submit ? "Submit" : "Run", total: null, done: 0, current: null, phase: "starting", limits: null,
    startedAt: j.started_at, skew: j.now ? j.now * 1000 - Date.now() : 0};
  const status = el("p", {id: "status", class: "muted"});
  const info = el("p", {id: "run-info", class: "muted"}, note || "");
  const stop = el("button", {id: "stop", type: "button", onclick: async () => {
    stop.disabled = true;
    try { await api(`/api/run/${j.id}/stop`, {method: "POST"}); } catch (err) { /* it ended meanwhile */ }
  }}, "Stop");
  results.replaceChildren(el("p", {id: "verdict", class: "muted"}, `${j.profile ? "PROFILING" : j.submit ? "SUBMITTED" : "RUNNING"} `, stop),
    status, info, ...(j.profile ? [] : [table(CASE_COLUMNS, live, {id: "cases"})]));
  if (results.getBoundingClientRect().top > window.innerHeight - 80) results.scrollIntoView({block: "start"});  // under the editor
  const tick = () => { status.textContent = statusLine(progress); };
  tick();
  state.ticker = setInterval(tick, 500);
  const events = state.events = new EventSource(`/api/run/${j.id}/events?${q({token: TOKEN})}`);  // no headers here
  const data = (e) => JSON.parse(e.data);
  events.addEventListener("started", (e) => {
    const d = data(e);
    Object.assign(progress, {total: d.total, phase: null, startedAt: progress.startedAt || d.started_at, server: d.server,
      limits: d.call_timeout_s ? {call: d.call_timeout_s, compile: d.compile_timeout_s} : null});
    info.textContent = [note, `${d.total} tests, mode ${d.mode} on ${d.device}, seed ${d.seed}` +
      (d.server ? " · through the judge server (it forks the worker unless it refuses this environment)" : "")]
      .filter(Boolean).join(" · ");
    tick();
  });
  events.addEventListener("case_started", (e) => { progress.current = data(e); progress.phase = null; tick(); });
  events.addEventListener("case", (e) => { progress.done += 1; progress.current = null; live.append(caseRow(data(e))); tick(); });
  events.addEventListener("status", (e) => { progress.phase = data(e).text; tick(); });
  const end = () => {
    events.close();
    clearInterval(state.ticker);
    if (state.events === events) state.events = null;
    state.judging = null;
    sessionStorage.removeItem(FOLLOWING);
    setButtons(state);
    refreshHeader();  // its "judging …" goes
    if (state.dirty) flushSave(state);  // edits made while it ran: the server kept the file as judged until now
  };
  events.addEventListener("result", (e) => { end(); showResult(data(e), {...progress, submit: j.submit}); showHistory(); });
  events.addEventListener("profile", (e) => { end(); showProfile(data(e).report); });
  events.addEventListener("profile_error", (e) => {
    end();
    results.replaceChildren(el("p", {id: "verdict", class: "rejected"}, "NOT PROFILED"),
      el("div", {id: "failure"}, data(e).message));
  });
  events.addEventListener("stopped", (e) => {
    end();
    results.replaceChildren(el("p", {id: "verdict", class: "muted"}, "STOPPED ", el("span", {class: "muted"}, data(e).message)),
      table(CASE_COLUMNS, live, {id: "cases"}));
  });
  events.addEventListener("error", (e) => {
    if (e.data) {
      end();
      results.replaceChildren(el("p", {id: "verdict", class: "rejected"}, `internal error: ${data(e).message}`));
    } else if (events.readyState === EventSource.CLOSED) {  // not a dropped connection (that reconnects): refused
      end();
      results.replaceChildren(el("p", {id: "verdict", class: "muted"},
        "this judgement's events are gone (judge ui restarted, or it keeps only its last 20); its verdict is in the history"));
    }
  });
}

// "Run · case 3/16: edge-3 (rows=1, cols=3) · 2/16 done · 0:04 elapsed · limit 60 s a call, 180 s to load and compile"
function statusLine(p) {
  const parts = [p.kind];
  if (p.current) parts.push(`case ${Math.min(p.done + 1, p.total || Infinity)}/${p.total ?? "?"}: ${p.current.name} (${sizes(p.current.params)})`);
  if (p.phase) parts.push(p.phase === "starting" ? "starting the worker…" : p.phase);
  if (p.total !== null) parts.push(`${p.done}/${p.total} done`);
  if (p.startedAt) {
    const seconds = Math.max(0, Math.floor((Date.now() + p.skew) / 1000 - p.startedAt));
    parts.push(`${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")} elapsed`);
  }
  if (p.limits) parts.push(`limit ${p.limits.call} s a call, ${p.limits.compile} s to load and compile`);
  return parts.join(" · ");
}

// A message's first line, cut at a word (never inside one) when long; the whole message in its title.
function shortText(text, chars = DETAIL_CHARS) {
  const line = (text || "").split("\n")[0];
  if (line.length <= chars) return line;
  const cut = line.lastIndexOf(" ", chars);
  return `${line.slice(0, cut > chars / 2 ? cut : chars)} …`;
}

function caseRow(t, shownAbove = null) {
  const ok = t.verdict === "accepted";
  const detail = ok ? "" : t === shownAbove ? "(its message is above)" : shortText(t.message);
  return el("tr", {class: verdictClass(t.verdict)}, el("td", {}, ok ? "✓" : "✗"), el("td", {}, t.name),
    el("td", {}, sizes(t.params)), el("td", {}, t.verdict),
    el("td", {class: "num"}, t.time_ms == null ? "" : t.time_ms.toPrecision(4)),
    el("td", {class: "detail", title: ok ? null : t.message}, detail));
}

// The verdict with a one-line summary, the first failure's message once (#failure), the cases, the benchmark.
function showResult({result, history_warning}, how = {}) {
  const failed = result.tests.find((t) => t.verdict !== "accepted");
  const passed = result.tests.filter((t) => t.verdict === "accepted").length;
  // the message is said once: on the verdict's line when accepted, else in #failure below
  const summary = result.verdict === "accepted" ? shortText(result.message, 300) :
    result.tests.length ? `${passed} of ${result.tests.length} tests passed` : "";
  const parts = [el("p", {id: "verdict", class: verdictClass(result.verdict)}, `${result.verdict.toUpperCase()} `,
      el("span", {class: "muted"}, summary)),
    el("p", {class: "muted", id: "run-info"}, [how.submit === undefined ? null : how.submit ? "Submit" : "Run",
      result.mode, result.device, `seed ${result.seed}`, how.server ? "through the judge server" : null].filter(Boolean).join(" · "))];
  if (failed) {
    const smallest = failed.smallest_failing ? `\nsmallest failing size: ${sizes(failed.smallest_failing)}` : "";
    // a LeetGPU model challenge's test has no sizes: "example ()" said nothing
    const label = sizes(failed.params) ? `${failed.name} (${sizes(failed.params)})` : failed.name;
    parts.push(el("div", {id: "failure"}, `first failing case: ${label}: ${failed.verdict}${smallest}\n${failed.message}`));
    if (failed.kind !== "benchmark") {  // the same sizes and values, alone: the quick loop on one failure
      parts.push(el("button", {id: "case-again", type: "button", title: `judge run --case ${failed.name} --seed ${result.seed}`,
        onclick: () => judge(false, false, {case: failed.name, seed: result.seed})}, `Run ${failed.name} again`));
    }
  } else if (result.verdict !== "accepted") {
    parts.push(el("div", {id: "failure"}, result.message));
  }
  if (result.tests.length) parts.push(table(CASE_COLUMNS, result.tests.map((t) => caseRow(t, failed)), {id: "cases"}));
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
      el("td", {class: "detail"}, [b.message, ...(b.notes || [])].filter(Boolean).join("; ")))),
    {id: "bench"});
}
