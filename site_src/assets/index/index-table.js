/* Sorting and filters for the Small LM Index table. The rows arrive finished from Python
 * (engine/publish/site/index_macros.py); this only hides rows and reorders them. No libraries. */
(function (root) {
  "use strict";

  function mount() {
    var tables = document.querySelectorAll("table.sli-table");
    Array.prototype.forEach.call(tables, function (table) {
      if (table.getAttribute("data-mounted") === "1") { return; }
      table.setAttribute("data-mounted", "1");
      var box = table.closest(".sli-index");
      var filters = box.querySelector(".sli-filters");
      var count = box.querySelector(".sli-count");
      var tbody = table.tBodies[0];

      function apply() {
        var want = {};
        Array.prototype.forEach.call(filters.querySelectorAll("[data-filter]"), function (el) {
          want[el.getAttribute("data-filter")] = el.type === "checkbox" ? el.checked : el.value;
        });
        var shown = 0;
        Array.prototype.forEach.call(tbody.rows, function (row) {
          var show = (!want.size || row.getAttribute("data-size") === want.size) &&
            (!want.region || row.getAttribute("data-region") === want.region) &&
            (!want.open || row.getAttribute("data-open") === "1") &&
            (!want["hide-ft"] || row.getAttribute("data-ft") === "0") &&
            (!want.independent || row.getAttribute("data-independent") === "1");
          row.hidden = !show;
          if (show) { shown += 1; }
        });
        if (count) { count.textContent = "Showing " + shown + " of " + tbody.rows.length + " models."; }
      }

      function sortBy(index, kind, th) {
        var descending = th.getAttribute("aria-sort") !== "descending";
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var rows = Array.prototype.slice.call(tbody.rows);
        rows.sort(function (a, b) {
          var x = a.cells[index].getAttribute("data-value");
          var y = b.cells[index].getAttribute("data-value");
          if (x === "" && y === "") { return 0; }
          if (x === "") { return 1; } // missing values always last
          if (y === "") { return -1; }
          var cmp = kind === "num" ? Number(x) - Number(y) : x.localeCompare(y);
          return descending ? -cmp : cmp;
        });
        rows.forEach(function (r) { tbody.appendChild(r); });
      }

      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
        var kind = th.getAttribute("data-sort");
        th.addEventListener("click", function () { sortBy(i, kind, th); });
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(i, kind, th); }
        });
      });
      Array.prototype.forEach.call(filters.querySelectorAll("[data-filter]"), function (el) {
        el.addEventListener("change", apply);
      });
      apply();
    });
  }

  if (root.document$ && typeof root.document$.subscribe === "function") {
    root.document$.subscribe(mount); // Material's instant navigation
  } else {
    root.document.addEventListener("DOMContentLoaded", mount);
  }
})(window);
