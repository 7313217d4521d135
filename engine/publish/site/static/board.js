/* small-llm-bench leaderboard: tabs and table sorting (the radars are inline SVG). Only shows what the page already
   holds; it computes no score. Runs on every page load and, under Material's instant navigation, on every
   page switch (document$). */
(function () {
  "use strict";

  function initTabs(root) {
    root.querySelectorAll("[data-lb]").forEach(function (lb) {
      if (lb.dataset.ready) return;
      lb.dataset.ready = "1";
      var tabs = Array.prototype.slice.call(lb.querySelectorAll(".lb-tabs [role=tab]"));
      var panels = lb.querySelectorAll(".lb-panel");
      function select(tab) {
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
      /* WAI-ARIA tabs: Left/Right wrap around, Home/End go to the ends; moving selects. */
      var moves = { ArrowRight: 1, ArrowLeft: -1 };
      tabs.forEach(function (tab, i) {
        tab.addEventListener("click", function () { select(tab); });
        tab.addEventListener("keydown", function (e) {
          var next = null;
          if (e.key in moves) next = tabs[(i + moves[e.key] + tabs.length) % tabs.length];
          else if (e.key === "Home") next = tabs[0];
          else if (e.key === "End") next = tabs[tabs.length - 1];
          if (!next) return;
          e.preventDefault();
          select(next);
          next.focus();
        });
      });
    });
  }

  function compare(a, b, numeric) {
    if (a === b) return 0;
    if (a === "") return 1;   /* empty cells always sort last */
    if (b === "") return -1;
    if (numeric) return parseFloat(a) < parseFloat(b) ? -1 : 1;
    return a.localeCompare(b);
  }

  function sortBy(table, index, th) {
    var numeric = th.dataset.sort === "num";
    var first = numeric ? "descending" : "ascending";
    var now = th.getAttribute("aria-sort");
    var next = now ? (now === "descending" ? "ascending" : "descending") : first;
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

  function initSort(root) {
    root.querySelectorAll("table[data-lb-sort]").forEach(function (table) {
      if (table.dataset.ready) return;
      table.dataset.ready = "1";
      table.querySelectorAll("thead th").forEach(function (th, i) {
        if (!th.dataset.sort) return;
        th.tabIndex = 0;
        th.addEventListener("click", function () { sortBy(table, i, th); });
        th.addEventListener("keydown", function (e) { if (e.key === "Enter") sortBy(table, i, th); });
      });
    });
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
    initTabs(document);
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
