// judge ui: a Profile's report (judge profile --json, judge/judging/profile.py), drawn as the console draws it
// (judge/report/profile_view.py): the case, the answer's check, the call's line, CUPTI's kernels and gaps, then
// Nsight Compute's metrics per kernel (or why there are none), and the notes.
"use strict";

const fmtUs = (us) => us == null ? "-" : us >= 1000 ? `${(us / 1000).toFixed(3)} ms` : us >= 10 ? `${us.toFixed(1)} µs` : `${us.toFixed(2)} µs`;
const fmtPct = (v) => v == null ? "-" : `${v.toFixed(1)}%`;
const fmtDims = (v) => v && v.length ? v.join("×") : "-";
const fmtBytes = (v) => v == null ? "-" : v >= 1024 ? `${(v / 1024).toFixed(1)} KiB` : `${Math.round(v)} B`;
const fmtRate = (gbps, tflops) => [gbps == null ? "" : `${gbps.toFixed(0)} GB/s`, tflops == null ? "" : `${tflops.toFixed(1)} TFLOP/s`]
  .filter(Boolean).join(", ") || "-";

function showProfile(report) {
  const cupti = report.cupti, call = cupti.call, ncu = report.ncu || {};
  const correct = report.check === "correct";
  const parts = [
    el("p", {id: "verdict", class: correct ? "accepted" : "rejected"}, "PROFILED ",
      el("span", {class: "muted"}, `case ${report.case.name} (${sizes(report.case.params)}) · seed ${report.seed} · ${report.device}`)),
    el("p", {id: "profile-check", class: correct ? "muted" : "rejected"},
      `answer of the profiled call: ${correct ? "correct" : report.check}`),
    el("p", {id: "profile-call"}, callLine(cupti, report.peaks || {})),
    gapsLine(cupti.gaps),
    el("h3", {}, "Kernels (CUPTI)"),
    kernelTable(cupti.kernels),
  ];
  if (!cupti.kernels.length) parts.push(el("p", {class: "warning"}, "CUPTI recorded no kernel, copy or fill in the profiled calls"));
  if (ncu.status === "measured") {
    parts.push(el("h3", {}, "Nsight Compute (one call; clocks as they are, caches flushed)"), ncuTable(ncu.kernels),
      el("p", {class: "muted", id: "ncu-report"}, `full report for the Nsight Compute GUI (ncu-ui): ${ncu.report}`));
  } else if (ncu.problem) {
    const said = ncu.problem.startsWith("Nsight Compute") ? ncu.problem : `Nsight Compute: ${ncu.problem}`;
    parts.push(el("p", {class: "warning", id: "ncu-problem"}, said));
  }
  parts.push(el("ul", {class: "notes"}, (report.notes || []).map((n) => el("li", {}, n))));
  document.getElementById("results").replaceChildren(...parts.filter(Boolean));
}

function callLine(cupti, peaks) {
  const call = cupti.call;
  const peak = call.pct_of_peak == null ? "" : call.peak_kind === "copy bandwidth" ?
    ` = ${call.pct_of_peak.toFixed(1)}% of the copy bandwidth (${(peaks.copy_gbps || 0).toFixed(0)} GB/s)` :
    ` = ${call.pct_of_peak.toFixed(1)}% of the ${call.peak_kind}`;
  return `one call (median of ${cupti.calls} recorded by CUPTI, L2 flushed before each): GPU ${fmtUs(call.span_us)} ` +
    `from its first kernel's start to its last one's end, busy ${fmtUs(call.busy_us)}, host ${fmtUs(call.host_us)} ` +
    `in solve(); ${fmtRate(call.gbps, call.tflops)}${peak}`;
}

function gapsLine(gaps) {
  const said = [];
  if (gaps.per_call) said.push(`launch gaps: ${gaps.per_call} a call, ${fmtUs(gaps.idle_us)} idle in all ` +
    `(largest ${(gaps.largest_us || []).map(fmtUs).join(", ")})`);
  if (gaps.first_launch_us != null) said.push(`first launch to first kernel: ${fmtUs(gaps.first_launch_us)}`);
  return said.length ? el("p", {class: "muted", id: "profile-gaps"}, said.join(" · ")) : null;
}

// Kernels as columns and metrics as rows: a profile has a few kernels and many metrics, and the results column is
// narrow beside the editor (judge profile's console table has them the other way round).
function metricTable(id, kernels, metrics) {
  const head = el("tr", {}, el("th", {}, "kernel"), kernels.map((k) =>
    el("th", {title: k.name}, k.short_name + (k.launches > 1 ? ` ×${k.launches}` : ""))));
  return el("div", {class: "wide"}, el("table", {id, class: "metrics"}, el("thead", {}, head), el("tbody", {},
    metrics.map(([label, cell]) => el("tr", {}, el("th", {}, label), kernels.map((k) => el("td", {class: "num"}, cell(k))))))));
}

function kernelTable(kernels) {
  return metricTable("profile-kernels", kernels, [
    ["launches", (k) => String(k.launches)], ["grid", (k) => fmtDims(k.grid)], ["block", (k) => fmtDims(k.block)],
    ["registers", (k) => k.registers == null ? "-" : String(k.registers)], ["shared memory", (k) => fmtBytes(k.shared_memory)],
    ["time / call", (k) => fmtUs(k.time_us)], ["mean", (k) => fmtUs(k.mean_us)],
    ["share of the call", (k) => fmtPct(k.share == null ? null : 100 * k.share)],
    ["achieved", (k) => fmtRate(k.gbps, k.tflops) + (k.pct_of_peak == null ? "" : ` (${k.pct_of_peak.toFixed(1)}% of peak)`)]]);
}

function ncuTable(kernels) {
  return metricTable("profile-ncu", kernels, [
    ["time", (k) => fmtUs(k.duration_us)], ["DRAM throughput", (k) => fmtPct(k.dram_pct)],
    ["DRAM GB/s", (k) => k.dram_bytes_per_s == null ? "-" : (k.dram_bytes_per_s / 1e9).toFixed(0)],
    ["SM throughput", (k) => fmtPct(k.sm_pct)], ["achieved occupancy", (k) => fmtPct(k.occupancy_pct)],
    ["L1 hit rate", (k) => fmtPct(k.l1_hit_pct)], ["L2 hit rate", (k) => fmtPct(k.l2_hit_pct)],
    ["registers", (k) => k.registers == null ? "-" : k.registers.toFixed(0)],
    ["shared memory / block", (k) => fmtBytes(k.shared_memory_per_block)],
    ["top stalls", (k) => (k.top_stalls || []).map((s) => s.reason + (s.share == null ? "" : ` ${(100 * s.share).toFixed(0)}%`)).join(", ") || "-"]]);
}
