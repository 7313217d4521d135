/* small-llm-bench leaderboard: tabs, table sorting and filters, kept in the URL (url-state.js; the radars are
   inline SVG). Only shows what the page already holds; it computes no score. Runs on every page load and, under
   Material's instant navigation, on every page switch (document$). */
(function () {
  "use strict";

  var STATE = ["tab", "sort", "dir", "size", "family", "judge"];

  function compare(a, b, numeric) {
    if (a === b) return 0;
    if (a === "") return 1;   /* empty cells always sort last */
    if (b === "") return -1;
    if (numeric) return parseFloat(a) < parseFloat(b) ? -1 : 1;
    return a.localeCompare(b);
  }

  /* Sorts on header th in direction dir ("ascending" or "descending"); without dir, a click's next one. */
  function sortBy(table, th, dir) {
    var index = th.cellIndex;
    var numeric = th.dataset.sort === "num";
    var now = th.getAttribute("aria-sort");
    var next = dir || (now ? (now === "descending" ? "ascending" : "descending") : (numeric ? "descending" : "ascending"));
    table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", next);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    function key(row) {
      var cell = row.cells[index];
      return numeric ? (cell.dataset.v || "") : cell.textContent.trim().toLowerCase();
    }
    rows.sort(function (ra, rb) {
      var a = key(ra), b = key(rb);
      if (a === "" || b === "") return compare(a, b, numeric);
      var c = compare(a, b, numeric);
      return next === "descending" ? -c : c;
    });
    var frag = document.createDocumentFragment();
    rows.forEach(function (r) { frag.appendChild(r); });
    body.appendChild(frag);
  }

  /* Sorting for a table outside the board (it keeps no state in the URL). */
  function initSort(root) {
    root.querySelectorAll("table[data-lb-sort]").forEach(function (table) {
      if (table.dataset.ready) return;
      table.dataset.ready = "1";
      table.querySelectorAll("thead th").forEach(function (th) {
        if (!th.dataset.sort) return;
        th.tabIndex = 0;
        th.addEventListener("click", function () { sortBy(table, th); });
        th.addEventListener("keydown", function (e) { if (e.key === "Enter") sortBy(table, th); });
      });
    });
  }

  /* The board: tabs, the Detailed table's sort and the filters, each kept in the query string (url-state.js):
     ?tab=A&sort=det&dir=asc&size=Under%202B&family=qwen&judge=judged. A value the page does not offer is
     ignored. The rows carry their bucket, family and judge state (data-*, written by engine/publish/html.py):
     this only compares them. */
  function initBoard(lb) {
    if (lb.dataset.ready) return;
    lb.dataset.ready = "1";
    var urls = window.SllmbUrl;
    var tabs = Array.prototype.slice.call(lb.querySelectorAll(".lb-tabs [role=tab]"));
    var panels = lb.querySelectorAll(".lb-panel");
    var table = lb.querySelector("table[data-lb-sort]");
    var filters = Array.prototype.slice.call(lb.querySelectorAll("[data-lb-filter]"));
    var count = lb.querySelector(".lb-count");
    var empty = lb.querySelector(".lb-filtered-out");
    if (table) table.dataset.ready = "1";  /* sorted here, not by initSort */
    var boardOrder = table ? Array.prototype.slice.call(table.tBodies[0].rows) : [];

    function selectTab(tab) {
      tabs.forEach(function (t) {
        t.setAttribute("aria-selected", t === tab ? "true" : "false");
        t.tabIndex = t === tab ? 0 : -1;  /* one tab stop for the whole list; arrows move inside it */
      });
      panels.forEach(function (p) {
        p.hidden = p.dataset.panel !== tab.dataset.tab;
        if (!p.hidden) {
          p.setAttribute("aria-labelledby", tab.id);
          if (p.dataset.panel === "tiers") p.dataset.only = tab.dataset.only || "";
        }
      });
    }

    /* A filter named size compares a row's data-size, family its data-family, judge its data-judge. */
    function matches(el, want) {
      return filters.every(function (f) {
        var v = want[f.dataset.lbFilter];
        return !v || el.getAttribute("data-" + f.dataset.lbFilter) === v;
      });
    }

    function applyFilters() {
      if (!filters.length) return;
      var want = {};
      filters.forEach(function (f) { want[f.dataset.lbFilter] = f.value; });
      lb.querySelectorAll("[data-judge]").forEach(function (el) { el.hidden = !matches(el, want); });
      /* A tier, a bucket or the not-ranked list left with no row shown is hidden with it. */
      lb.querySelectorAll(".lb-tier, .lb-bucket, .lb-panel > .lb-empty").forEach(function (box) {
        box.hidden = !box.querySelector("[data-judge]:not([hidden])");
      });
      var rows = table ? Array.prototype.slice.call(table.tBodies[0].rows) : [];
      var shown = rows.filter(function (r) { return !r.hidden; }).length;
      if (count) count.textContent = "Showing " + shown + " of " + rows.length + (rows.length === 1 ? " model." : " models.");
      if (!empty) return;
      empty.hidden = shown > 0;
      if (shown > 0) { empty.textContent = ""; return; }
      /* Name the filter that alone leaves nothing; when none does, the combination is to blame. */
      var active = filters.filter(function (f) { return f.value; });
      var alone = active.filter(function (f) {
        var one = {}; one[f.dataset.lbFilter] = f.value;
        return !rows.some(function (r) { return matches(r, one); });
      });
      function said(f) { return f.dataset.label + " “" + f.options[f.selectedIndex].text.replace(/ \(\d+\)$/, "") + "”"; }
      empty.textContent = alone.length
        ? "No model on the board matches " + alone.map(said).join(" or ") + ": set it to All to see the rows."
        : "No model matches " + active.map(said).join(" together with ") + ": set one of them to All to see rows.";
    }

    function state() {
      var s = { tab: "", sort: "", dir: "" };
      var selected = tabs.filter(function (t) { return t.getAttribute("aria-selected") === "true"; })[0];
      if (selected && selected !== tabs[0]) s.tab = selected.dataset.key;
      var sorted = table && table.querySelector("thead th[aria-sort]");
      if (sorted) {
        s.sort = sorted.dataset.key;
        s.dir = sorted.getAttribute("aria-sort") === "ascending" ? "asc" : "desc";
      }
      filters.forEach(function (f) { s[f.dataset.lbFilter] = f.value; });
      return s;
    }

    function save() { if (urls) urls.write(state(), true); }

    /* The URL's view, each value checked against what the page offers; anything else leaves the default. */
    function restore() {
      var want = urls ? urls.read(STATE) : {};
      var tab = tabs.filter(function (t) { return t.dataset.key === want.tab; })[0] || tabs[0];
      if (tab) selectTab(tab);
      if (table) {
        var th = Array.prototype.slice.call(table.querySelectorAll("thead th[data-key]")).filter(function (h) {
          return h.dataset.key === want.sort;
        })[0];
        var dir = want.dir === "asc" ? "ascending" : want.dir === "desc" ? "descending" : "";
        if (th) {
          sortBy(table, th, dir || (th.dataset.sort === "num" ? "descending" : "ascending"));
        } else {  /* no sort in the URL: the board's own order */
          table.querySelectorAll("thead th").forEach(function (h) { h.removeAttribute("aria-sort"); });
          boardOrder.forEach(function (r) { table.tBodies[0].appendChild(r); });
        }
      }
      filters.forEach(function (f) {
        var v = want[f.dataset.lbFilter] || "";
        var offered = Array.prototype.some.call(f.options, function (o) { return o.value === v; });
        f.value = offered ? v : "";
      });
      applyFilters();
    }

    /* WAI-ARIA tabs: Left/Right wrap around, Home/End go to the ends; moving selects. */
    var moves = { ArrowRight: 1, ArrowLeft: -1 };
    tabs.forEach(function (tab, i) {
      tab.addEventListener("click", function () { selectTab(tab); save(); });
      tab.addEventListener("keydown", function (e) {
        var next = null;
        if (e.key in moves) next = tabs[(i + moves[e.key] + tabs.length) % tabs.length];
        else if (e.key === "Home") next = tabs[0];
        else if (e.key === "End") next = tabs[tabs.length - 1];
        if (!next) return;
        e.preventDefault();
        selectTab(next);
        next.focus();
        save();
      });
    });
    if (table) {
      table.querySelectorAll("thead th").forEach(function (th) {
        if (!th.dataset.sort) return;
        th.tabIndex = 0;
        th.addEventListener("click", function () { sortBy(table, th); save(); });
        th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sortBy(table, th); save(); } });
      });
    }
    filters.forEach(function (f) { f.addEventListener("change", function () { applyFilters(); save(); }); });
    if (urls) urls.onBack("board", lb, restore);
    restore();
  }

  /* The search engine reads "^" as a boost, so a query such as "pass^k" found nothing; the index splits words
     at "^" (mkdocs.yml), so a typed "^" becomes a space before Material reads the field. */
  document.addEventListener("input", function (e) {
    var field = e.target;
    if (!field.classList || !field.classList.contains("md-search__input") || field.value.indexOf("^") < 0) return;
    var caret = field.selectionStart;
    field.value = field.value.replace(/\^/g, " ");
    field.setSelectionRange(caret, caret);
  }, true);

  /* Material wraps each Markdown table in a box that scrolls sideways on a phone; a keyboard user can only
     scroll it if it takes focus (WCAG 2.1.1, axe's scrollable-region-focusable), so each box gets a tab stop
     and a name. */
  function focusableScrollers(root) {
    root.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])").forEach(function (box) {
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "Table (scrolls sideways)");
    });
  }

  function init() {
    focusableScrollers(document);
    window.requestAnimationFrame(function () { focusableScrollers(document); });
    document.querySelectorAll("[data-lb]").forEach(initBoard);
    initSort(document);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
