// judge ui: the editor and its drafts.  A draft is a file of the workspace (judge run and watch in a terminal see
// it), saved 0.6 s after the last keystroke; until it is saved, its text is also kept in this browser
// (localStorage), so a reload, a server that went away or a refused save loses nothing: the page offers it back.
"use strict";

const SAVE_DELAY_MS = 600, KEEP_DELAY_MS = 200;
const draftKey = (ref, file) => `judge-ui-draft|${ref}|${file}`;

// A draft's language by its name, as the server decides it (judge/ui/pages.py language_of).
function languageOf(file) {
  return file.endsWith(".cu") ? "cuda" : file === "solution_pytorch.py" ? "pytorch" : "triton";
}

// The file's indent unit: the most common step by which indentation grows from one line to the next (2 for a
// file indented by two), else 4.  Tab and Shift-Tab use it; a tab character is never inserted.
function guessIndent(text) {
  const steps = {};
  let previous = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const lead = line.length - line.trimStart().length;
    if (!line.slice(0, lead).includes("\t") && lead - previous >= 2 && lead - previous <= 8) {
      steps[lead - previous] = (steps[lead - previous] || 0) + 1;
    }
    previous = lead;
  }
  const [best] = Object.entries(steps).sort((a, b) => b[1] - a[1] || a[0] - b[0])[0] || ["4"];
  return Number(best);
}

// The file's indent unit again, after text of several lines came in other than by typing (a paste, a drop, a
// restore): a file pasted with two-space indents kept the unit of four, and Tab made 2 spaces 6.
function reguessIndent(cm, change) {
  if (change.text.length < 2 || change.origin === "+input" || change.origin === "setValue") return;
  const unit = guessIndent(cm.getValue());
  if (unit !== cm.getOption("indentUnit")) { cm.setOption("indentUnit", unit); cm.setOption("tabSize", unit); }
}

// Brackets and quotes close as they open (the selection is wrapped), a closer typed before its twin steps over
// it, and Backspace between an empty pair deletes both; before a word character nothing is added.
const PAIRS = {"(": ")", "[": "]", "{": "}", '"': '"', "'": "'"};

function closingKeys() {
  const keys = {Backspace: deletePair};
  for (const [open, close] of Object.entries(PAIRS)) {
    keys[`'${open}'`] = (cm) => typePair(cm, open, close);
    if (open !== close) keys[`'${close}'`] = (cm) => stepOver(cm, close);
  }
  return keys;
}

function around(cm) {
  const at = cm.getCursor(), line = cm.getLine(at.line);
  return {at, before: line.charAt(at.ch - 1), after: line.charAt(at.ch)};
}

function typePair(cm, open, close) {
  if (cm.listSelections().length > 1) return CodeMirror.Pass;
  if (cm.somethingSelected()) { cm.replaceSelection(open + cm.getSelection() + close, "around"); return undefined; }
  const {at, before, after} = around(cm);
  if (open === close && after === close) return stepOver(cm, close);
  if (/\w/.test(after) || (open === close && /\w/.test(before))) return CodeMirror.Pass;  // don't, it's
  cm.replaceRange(open + close, at, at, "+input");
  cm.setCursor({line: at.line, ch: at.ch + 1});
  return undefined;
}

function stepOver(cm, close) {
  const {at, after} = around(cm);
  if (cm.somethingSelected() || cm.listSelections().length > 1 || after !== close) return CodeMirror.Pass;
  cm.setCursor({line: at.line, ch: at.ch + 1});
  return undefined;
}

function deletePair(cm) {
  const {at, before, after} = around(cm);
  if (cm.somethingSelected() || cm.listSelections().length > 1 || !before || PAIRS[before] !== after) return CodeMirror.Pass;
  cm.replaceRange("", {line: at.line, ch: at.ch - 1}, {line: at.line, ch: at.ch + 1}, "+delete");
  return undefined;
}

function makeEditor(host) {
  const editor = CodeMirror(host, {
    lineNumbers: true, mode: "python", indentUnit: 4, tabSize: 4, indentWithTabs: false,
    extraKeys: {
      // Spaces, never a tab: a tab that looks like four spaces made Python fail ("inconsistent use of tabs")
      Tab: (cm) => cm.somethingSelected() ? cm.indentSelection("add") : cm.execCommand("insertSoftTab"),
      "Shift-Tab": (cm) => cm.indentSelection("subtract"),
      "Shift-Enter": "newlineAndIndent",  // the browser's own newline lost the indent
      "Ctrl-Enter": () => judge(false), "Cmd-Enter": () => judge(false),
      "Shift-Ctrl-Enter": () => judge(true), "Shift-Cmd-Enter": () => judge(true),
      ...closingKeys(),
    },
  });
  editor.on("change", (cm, change) => {
    reguessIndent(cm, change);
    if (change.origin !== "setValue") edited(page);
  });
  return editor;
}

// ---------------------------------------------------------------- opening a language's draft
async function openLanguage(lang) {
  const state = page;
  const entry = state && state.info.languages.find((l) => l.id === lang);
  if (!entry || state.file === entry.file) return;
  await flushSave(state);
  const draft = await api(`/api/draft?${q({ref: state.ref, file: entry.file})}`);
  if (state !== page) return;
  Object.assign(state, {lang, file: entry.file, mtime: draft.mtime_ns, dirty: false});
  localStorage.setItem(`judge-ui-language:${state.info.name}`, lang);  // a reload opens it again (showChallenge)
  for (const button of document.querySelectorAll(".langs button")) {
    button.setAttribute("aria-pressed", String(button.id === `lang-${lang}`));
  }
  const unit = guessIndent(draft.text);
  state.editor.setOption("mode", entry.file.endsWith(".cu") ? "text/x-c++src" : "python");
  state.editor.setOption("indentUnit", unit);
  state.editor.setOption("tabSize", unit);
  state.editor.setValue(draft.text);
  state.editor.clearHistory();
  document.getElementById("draft-path").textContent = `${draft.path} (judge run and watch in a terminal see this file)`;
  setSaveState(state, draft.exists ? "saved" : "the starter");
  showSaveProblem(state, null);
  offerUnsaved(state, draft.text);
  if (!draft.exists) { state.dirty = true; await flushSave(state); }  // the starter, saved so a terminal sees it too
}

// The editor's whole text replaced as an edit (saved, and Ctrl+Z undoes it): a restore, a reset.
function replaceText(state, text, origin) {
  const doc = state.editor;
  const last = doc.lastLine();
  doc.replaceRange(text, {line: 0, ch: 0}, {line: last, ch: doc.getLine(last).length}, origin);
}

async function resetToStarter() {
  const state = page;
  if (!state) return;
  const {text} = await api(`/api/starter?${q({ref: state.ref, file: state.file})}`);
  if (state !== page) return;
  replaceText(state, text, "+reset");
  notice("reset", `${state.file} holds the starter again; Ctrl+Z (⌘Z) brings your text back.`);
}

// ---------------------------------------------------------------- saving
function edited(state) {
  if (!state || !state.file) return;
  state.dirty = true;
  clearTimeout(state.keepTimer);
  state.keepTimer = setTimeout(() => keepUnsaved(state), KEEP_DELAY_MS);
  clearTimeout(state.saveTimer);
  state.saveTimer = null;
  if (state.judging && state.judging.file === state.file) {  // the server keeps the file as judged until the verdict
    setSaveState(state, "editing… (saved when the verdict is in)");
    return;
  }
  setSaveState(state, "editing…");
  state.saveTimer = setTimeout(() => flushSave(state), SAVE_DELAY_MS);
}

// Saves the editor's text if it changed; true when the file now holds it (or nothing was to save).
async function flushSave(state = page) {
  if (!state || !state.dirty || !state.file) return true;
  clearTimeout(state.saveTimer);
  state.saveTimer = null;
  const text = state.editor.getValue(), file = state.file;
  try {
    const saved = await api("/api/draft", {method: "PUT", body: JSON.stringify({ref: state.ref, file, text})});
    if (state.file !== file) return true;  // another language was opened meanwhile
    state.mtime = saved.mtime_ns;
    if (state.editor.getValue() === text) {
      state.dirty = false;
      forgetUnsaved(state, text);
      setSaveState(state, "saved");
    }
    showSaveProblem(state, null);
    return true;
  } catch (err) {
    keepUnsaved(state);
    if (err.status === 409 && err.body.judging) setSaveState(state, "editing… (saved when the verdict is in)");
    else showSaveProblem(state, err);
    return false;
  }
}

function setSaveState(state, text) {
  const node = document.getElementById("save-state");
  if (node && state === page) node.textContent = text;
}

// What a failed save (or a Run that could not save first) tells the user to do; the text is in this browser.
function saveProblemText(err, text) {
  const kept = "Your text stays in this browser and is offered back when this page opens again.";
  if (err.kind === "network") return `judge ui does not answer (stopped?): start it again (judge ui) and open the URL it prints. ${kept}`;
  if (err.kind === "token") return `judge ui refuses this page's token: it was restarted and printed a new URL; open that URL (with ?token=…). ${kept}`;
  if (err.status === 400 || err.status === 413) {
    const size = new Blob([text || ""]).size;
    return `${err.message} (this text: ${(size / 1e6).toFixed(2)} MB): make it smaller, then save again. ${kept}`;
  }
  return `${err.message}. ${kept}`;
}

function showSaveProblem(state, err) {
  if (state !== page) return;
  state.saveProblem = err ? err.kind : null;
  const node = document.getElementById("save-error");
  if (err) setSaveState(state, "NOT SAVED:");
  if (node) node.textContent = err ? saveProblemText(err, state.editor.getValue()) : "";
}

// ---------------------------------------------------------------- unsaved text kept in this browser
function keepUnsaved(state = page) {
  if (!state || !state.dirty || !state.file) return;
  try {
    localStorage.setItem(draftKey(state.ref, state.file), JSON.stringify({text: state.editor.getValue(), at: Date.now()}));
  } catch (err) { /* the browser's storage is full: the save's own message says what to do */ }
}

function readKept(state) {
  try { return JSON.parse(localStorage.getItem(draftKey(state.ref, state.file)) || "null"); } catch (err) { return null; }
}

function forgetUnsaved(state, text) {
  const kept = readKept(state);
  if (kept && kept.text === text) localStorage.removeItem(draftKey(state.ref, state.file));
}

function offerUnsaved(state, fileText) {
  const kept = readKept(state);
  if (!kept) return;
  if (kept.text === fileText) { localStorage.removeItem(draftKey(state.ref, state.file)); return; }
  const file = state.file, lines = kept.text.split("\n").length;
  notice("unsaved", `Text of ${file} that was never saved (${lines} lines, ${fmtDate(kept.at)}) is kept in this browser; the file holds other text.`,
    [["Restore it", () => { if (state === page && state.file === file) replaceText(state, kept.text, "+restore"); }],
     ["Discard it", () => localStorage.removeItem(draftKey(state.ref, file))]]);
}

// A line above the editor, with buttons that each close it (id: one of a kind at a time).
function notice(id, text, actions = []) {
  const box = document.getElementById("notices");
  if (!box) return;
  const old = document.getElementById(`notice-${id}`);
  if (old) old.remove();
  const node = el("div", {class: "notice", id: `notice-${id}`}, text);
  for (const [label, act] of [...actions, ["×", () => {}]]) {
    node.append(el("button", {type: "button", title: label === "×" ? "close" : null, onclick: () => { node.remove(); act(); }}, label));
  }
  box.append(node);
}

// ---------------------------------------------------------------- edits made elsewhere
async function pollDraft() {
  // Edits made elsewhere (an editor, git checkout) replace the page's text, unless the page has unsaved edits.
  const state = page;
  if (!state || !state.file) return;
  if (state.dirty) {
    if (!state.saveTimer && !state.judging && state.saveProblem === "network") await flushSave(state);  // back?
    return;
  }
  const file = state.file;
  const {mtime_ns} = await api(`/api/draft/mtime?${q({ref: state.ref, file})}`).catch(() => ({}));
  if (state !== page || state.file !== file || mtime_ns === undefined || mtime_ns === state.mtime || state.dirty) return;
  const draft = await api(`/api/draft?${q({ref: state.ref, file})}`);
  if (state !== page || state.file !== file || state.dirty) return;
  state.mtime = draft.mtime_ns;
  const cursor = state.editor.getCursor();
  state.editor.setValue(draft.text);
  state.editor.setCursor(cursor);
  setSaveState(state, "reloaded: the file changed on disk");
}
