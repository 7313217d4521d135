/* small-llm-bench task pages: one trial's whole evidence, or two models' trials side by side, read from the
   task's JSON file beside the page. Every string from that file is placed with textContent (never innerHTML),
   so a reply holding markup or script shows as text and runs nothing. The choice lives in the URL
   (?a=<model>&b=<model>&trial=<n>); the script computes no score, it shows what the grade stored. */
(function () {
  "use strict";

  var cache = {};

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function load(url) {
    if (!cache[url]) {
      cache[url] = fetch(url, { credentials: "same-origin" }).then(function (r) {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.json();
      });
    }
    return cache[url];
  }

  function num(v, digits) { return typeof v === "number" ? v.toFixed(digits) : "—"; }

  function facts(rows) {
    var dl = el("dl", "ev-grade");
    rows.forEach(function (row) {
      if (row[1] === null || row[1] === undefined || row[1] === "") return;
      var box = el("div");
      box.appendChild(el("dt", null, row[0]));
      var dd = el("dd");
      if (row[2]) dd.appendChild(el("pre", "ev-text", row[1])); else dd.textContent = String(row[1]);
      box.appendChild(dd);
      dl.appendChild(box);
    });
    return dl;
  }

  function outcome(t) {
    if (!t.scorable) return ["excluded", "– not scorable"];
    var passed = t.judge && t.judge.final_passed !== null && t.judge.final_passed !== undefined
      ? t.judge.final_passed : t.grade && t.grade.passed;
    return passed ? ["pass", "✓ passed"] : ["fail", "✗ failed"];
  }

  function gradeFacts(t) {
    var g = t.grade, rows = [];
    if (!g) {
      rows.push(["Grade", "none: " + (t.invalid_reason || t.error || "the trial was not graded")]);
    } else {
      rows.push(["Passed", g.passed ? "yes" : "no"]);
      rows.push(["Score", num(g.score, 3)]);
      var parts = Object.keys(g.breakdown || {}).map(function (k) { return k + ": " + num(g.breakdown[k], 3); });
      rows.push(["Components", parts.join(" · ") || null]);
      rows.push(["Hard gate", g.hard_gate || "—"]);
      rows.push(["Reason", g.reason || "—", true]);
      rows.push(["Unsure", g.unsure || null, true]);
    }
    rows.push(["Scorable", t.scorable ? "yes" : "no: " + (t.infra ? "infrastructure error" : (t.invalid_reason || "no grade"))]);
    rows.push(["Error", t.error || null, true]);
    rows.push(["Truncation", t.truncation]);
    rows.push(["Tokens", t.prompt_tokens + " prompt, " + t.completion_tokens + " completion"]);
    rows.push(["Time", num(t.wall_s, 1) + " s"]);
    rows.push(["Seed", t.seed === null ? "—" : t.seed]);
    rows.push(["Task version", t.task_version + " · hash " + t.task_hash]);
    var j = t.judge;
    if (j) {
      var said = j.judge_passed === null || j.judge_passed === undefined ? "" : (j.judge_passed ? "pass" : "fail");
      rows.push(["Judge", j.status + (said ? " · said " + said : "") + " · final " + (j.final_passed ? "pass" : "fail") +
        " (" + num(j.final_score, 3) + ")"]);
      rows.push(["Judge's reason", j.judge_reason || j.refusal || j.error || null, true]);
    } else {
      rows.push(["Judge", "no judge decision on this trial"]);
    }
    return facts(rows);
  }

  function turnHeader(i, turn) {
    var parts = ["#" + i + " " + turn.role];
    if (turn.role === "tool") parts.push("answer of " + (turn.name || "?") + " (call " + (turn.tool_call_id || "?") + ")");
    if (turn.finish_reason) parts.push("finish " + turn.finish_reason);
    if (turn.usage && typeof turn.usage.completion_tokens === "number") parts.push(turn.usage.completion_tokens + " tokens");
    if (turn.timings) {
      if (typeof turn.timings.ttft_ms === "number") parts.push("first token " + turn.timings.ttft_ms.toFixed(0) + " ms");
      if (turn.timings.wall_ms) parts.push((turn.timings.wall_ms / 1000).toFixed(1) + " s");
    }
    return parts.join(" · ");
  }

  // The mark on a tool answer that the task's failure injection gave (world_view.injected_turns decides which:
  // "recorded" on the turn, or "replayed" for a file from before that record). Words shared with `sllmb show`.
  var INJECTED = "Injected failure: the task's failure injection answered this call on purpose; the tool did not run.";

  function turnBox(i, turn, injected) {
    var box = el("section", "ev-turn ev-" + (turn.role || "unknown") + (injected ? " ev-injected" : ""));
    box.appendChild(el("h4", "ev-turn-head", turnHeader(i, turn) + (injected ? " · injected failure" : "")));
    if (injected) {
      box.appendChild(el("p", "ev-injected-mark", "⚠ " + INJECTED +
        (injected === "replayed" ? " (found by replaying the calls: this file predates the record on the turn)" : "")));
    }
    if (turn.reasoning) {
      var d = el("details", "ev-reasoning");
      d.appendChild(el("summary", null, "Reasoning (" + turn.reasoning.length + " characters)"));
      d.appendChild(el("pre", "ev-text", turn.reasoning));
      box.appendChild(d);
    }
    if (turn.content) box.appendChild(el("pre", "ev-text", turn.content));
    else if (!(turn.tool_calls || []).length) box.appendChild(el("p", "ev-empty", "(no text)"));
    (turn.tool_calls || []).forEach(function (call) {
      var c = el("div", "ev-call");
      c.appendChild(el("p", "ev-call-head", "→ call " + call.name + " · id " + call.id +
        (call.from_text ? " · recovered from the text" : "")));
      c.appendChild(el("pre", "ev-text", call.arguments));
      box.appendChild(c);
    });
    if (turn.tool_calls_refused) {
      box.appendChild(el("p", "ev-refused", turn.tool_calls_refused + " further call(s) refused (past the per-reply cap), never run"));
    }
    return box;
  }

  function details(t) {
    var keys = t.grade ? Object.keys(t.grade.details || {}) : [];
    if (!keys.length) return null;
    var d = el("details", "ev-details");
    d.appendChild(el("summary", null, "What the grader found (" + keys.length + " details)"));
    d.appendChild(facts(keys.map(function (k) {
      var v = t.grade.details[k];
      return [k, typeof v === "string" ? v : JSON.stringify(v, null, 1), true];
    })));
    return d;
  }

  var FINDING = {
    "missed": "missed: asked for, not made",
    "side effect": "side effect: not asked for",
    "undone": "undone: changed outside the task, then put back",
    "reached": "reached"
  };

  // The world a trial acted on: the expected and the final state as a diff, each path labelled with what the
  // grade found there (built once in engine/publish/world_view.py; here only placed, as text).
  function worldBox(w) {
    var box = el("section", "ev-world");
    box.appendChild(el("h4", null, "The world: expected and final state (" + (w.total_rows || 0) + " paths)"));
    box.appendChild(el("p", "lb-note", w.source === "replay"
      ? "The final state is derived by replaying this trial's recorded calls through the simulated world; the " +
        "expected state is the task's gold actions played on the same seed. The label is what the grade found."
      : "Only the paths the grade's details list: " + (w.note || "no replay") + "."));
    var rows = w.rows || [];
    if (!rows.length) { box.appendChild(el("p", "ev-empty", "No path differs from the seed in either state.")); return box; }
    var scroll = el("div", "lb-scroll");
    scroll.tabIndex = 0;
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-label", "world diff");
    var table = el("table", "lb-t ev-diff");
    var head = el("tr");
    ["Path", "Seed", "Expected", "Final", "The grade found"].forEach(function (h) { head.appendChild(el("th", null, h)); });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var body = el("tbody");
    rows.forEach(function (r) {
      if (typeof r !== "object" || r === null) { return; }
      var tr = el("tr", "ev-w-" + String(r.finding || "").replace(/[^a-z]/g, ""));
      tr.appendChild(el("td", "ev-path", r.path));
      [r.seed, r.expected, r.final].forEach(function (v) { tr.appendChild(el("td", null, v || "—")); });
      tr.appendChild(el("td", "ev-found", (FINDING[r.finding] || r.finding || "") + (r.note ? " (" + r.note + ")" : "")));
      body.appendChild(tr);
    });
    table.appendChild(body);
    scroll.appendChild(table);
    box.appendChild(scroll);
    if (w.total_rows > rows.length) box.appendChild(el("p", "lb-note", "… and " + (w.total_rows - rows.length) + " more paths, not shown"));
    return box;
  }

  function column(doc, slug, trialIndex) {
    var col = el("div", "ev-col");
    var model = (doc.models || []).filter(function (m) { return m.slug === slug; })[0];
    if (!model) { col.appendChild(el("p", "ev-empty", "No trials of this model on this task.")); return col; }
    var t = (model.trials || []).filter(function (x) { return x.trial === trialIndex; })[0];
    var head = el("h3", "ev-head");
    head.appendChild(el("span", null, model.model + " · trial " + trialIndex + " "));
    if (!t) { col.appendChild(head); col.appendChild(el("p", "ev-empty", "This model has no trial " + trialIndex + ".")); return col; }
    var o = outcome(t);
    head.appendChild(el("span", "lb-trial " + o[0], o[1]));
    col.appendChild(head);
    col.appendChild(gradeFacts(t));
    if (t.world) col.appendChild(worldBox(t.world));
    var found = details(t);
    if (found) col.appendChild(found);
    col.appendChild(el("h4", null, "Conversation (" + (t.turns || []).length + " turns)"));
    var injected = t.injected || {};
    (t.turns || []).forEach(function (turn, i) {
      var how = Object.prototype.hasOwnProperty.call(injected, String(i)) ? injected[String(i)] : "";
      col.appendChild(turnBox(i + 1, turn, how));
    });
    return col;
  }

  function state() {
    var q = new URLSearchParams(window.location.search);
    var hash = window.location.hash.indexOf("#m-") === 0 ? decodeURIComponent(window.location.hash.slice(3)) : "";
    var trial = parseInt(q.get("trial") || "0", 10);
    return { a: q.get("a") || hash, b: q.get("b") || "", trial: isNaN(trial) || trial < 0 ? 0 : trial };
  }

  function render(root, s) {
    if (!s.a) return;
    var url = new URL(root.dataset.evSrc, window.location.href).href;
    root.setAttribute("aria-busy", "true");
    load(url).then(function (doc) {
      root.textContent = "";
      var grid = el("div", s.b ? "ev-grid ev-two" : "ev-grid");
      grid.appendChild(column(doc, s.a, s.trial));
      if (s.b) grid.appendChild(column(doc, s.b, s.trial));
      root.appendChild(grid);
      root.removeAttribute("aria-busy");
    }).catch(function (e) {
      root.textContent = "";
      root.appendChild(el("p", "ev-empty", "The trials could not be loaded (" + e.message + ")."));
      root.removeAttribute("aria-busy");
    });
  }

  function choose(root, form, s) {
    var q = new URLSearchParams();
    q.set("a", s.a);
    if (s.b) q.set("b", s.b);
    q.set("trial", String(s.trial));
    window.history.replaceState(window.history.state, "", "?" + q.toString() + "#ev-view");
    if (form) {
      form.elements.a.value = s.a;
      form.elements.b.value = s.b;
      form.elements.trial.value = String(s.trial);
    }
    render(root, s);
    root.scrollIntoView({ block: "start" });
  }

  // The task list opened from a module score on the board (?a=<model>): each task's link goes to that model's
  // trials, as a card's task links do. The model's slug is only put in a URL fragment and shown as text.
  function initIndex() {
    var index = document.querySelector("[data-ev-index]");
    if (!index || index.dataset.ready) return;
    index.dataset.ready = "1";
    var a = new URLSearchParams(window.location.search).get("a");
    if (!a) return;
    index.querySelectorAll("a[data-ev-task]").forEach(function (link) {
      link.setAttribute("href", link.dataset.evTask + "/#m-" + encodeURIComponent(a));
    });
    var note = index.querySelector("[data-ev-for]");
    if (note) {
      note.textContent = "Each task opens the trials of " + a + ".";
      note.hidden = false;
    }
  }

  function init() {
    initIndex();
    var root = document.querySelector("[data-ev]");
    if (!root || root.dataset.ready) return;
    root.dataset.ready = "1";
    root.id = "ev-view";
    var form = document.querySelector("[data-ev-pick]");
    document.querySelectorAll("[data-ev-a]").forEach(function (button) {
      button.addEventListener("click", function () {
        choose(root, form, { a: button.dataset.evA, b: "", trial: parseInt(button.dataset.evTrial, 10) || 0 });
      });
    });
    if (form) {
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        choose(root, form, {
          a: form.elements.a.value, b: form.elements.b.value, trial: parseInt(form.elements.trial.value, 10) || 0
        });
      });
    }
    var s = state();
    if (form && s.a) {
      form.elements.a.value = s.a;
      form.elements.b.value = s.b;
      form.elements.trial.value = String(s.trial);
    }
    render(root, s);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
