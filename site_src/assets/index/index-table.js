/* Sorting and filters for the Small LM Index table. The rows arrive finished from Python
 * (engine/publish/site/index_table.py); this only hides rows and reorders them. No libraries.
 * The filters and the sort live in the URL (assets/url-state.js): ?size=Tiny&region=...&open=1&sort=index&dir=asc.
 * A value the page does not offer (an option, a checkbox's "1", a column's data-key) is ignored. */
(function (root) {
  "use strict";

  function mount() {
    var tables = document.querySelectorAll("table.sli-table");
    Array.prototype.forEach.call(tables, function (table) {
      if (table.getAttribute("data-mounted") === "1") { return; }
      table.setAttribute("data-mounted", "1");
      var urls = root.SllmbUrl;
      var box = table.closest(".sli-index");
      var filters = box.querySelector(".sli-filters");
      var controls = Array.prototype.slice.call(filters.querySelectorAll("[data-filter]"));
      var count = box.querySelector(".sli-count");
      var tbody = table.tBodies[0];
      var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
      var ranked = Array.prototype.slice.call(tbody.rows); // the order Python wrote: by index

      function apply() {
        var want = {};
        controls.forEach(function (el) {
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
        if (count) {
          count.textContent = "Showing " + shown + " of " + tbody.rows.length + " models." +
            (shown ? "" : " No model passes every filter chosen: clear one to see rows.");
        }
      }

      function sortBy(th, descending) {
        var index = th.cellIndex;
        var kind = th.getAttribute("data-sort");
        heads.forEach(function (c) { c.removeAttribute("aria-sort"); });
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

      function state() {
        var s = { sort: "", dir: "" };
        controls.forEach(function (el) {
          s[el.getAttribute("data-filter")] = el.type === "checkbox" ? (el.checked ? "1" : "") : el.value;
        });
        var sorted = heads.filter(function (h) { return h.hasAttribute("aria-sort"); })[0];
        if (sorted) {
          s.sort = sorted.getAttribute("data-key");
          s.dir = sorted.getAttribute("aria-sort") === "ascending" ? "asc" : "desc";
        }
        return s;
      }

      function save() { if (urls) { urls.write(state(), true); } }

      function restore() {
        var names = controls.map(function (el) { return el.getAttribute("data-filter"); });
        var want = urls ? urls.read(names.concat(["sort", "dir"])) : {};
        controls.forEach(function (el) {
          var v = want[el.getAttribute("data-filter")] || "";
          if (el.type === "checkbox") {
            el.checked = v === "1";
          } else {
            var offered = Array.prototype.some.call(el.options, function (o) { return o.value === v; });
            el.value = offered ? v : "";
          }
        });
        var th = heads.filter(function (h) { return h.getAttribute("data-key") === want.sort; })[0];
        if (th) {
          sortBy(th, want.dir !== "asc");
        } else { // no sort in the URL: the order by index the page was written in
          heads.forEach(function (c) { c.removeAttribute("aria-sort"); });
          ranked.forEach(function (r) { tbody.appendChild(r); });
        }
        apply();
      }

      heads.forEach(function (th) {
        // A first click sorts descending (best first), the next ascending.
        function click() { sortBy(th, th.getAttribute("aria-sort") !== "descending"); save(); }
        th.addEventListener("click", click);
        th.addEventListener("keydown", function (e) {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); click(); }
        });
      });
      controls.forEach(function (el) {
        el.addEventListener("change", function () { apply(); save(); });
      });
      if (urls) { urls.onBack("index-table", table, restore); }
      restore();
    });
  }

  if (root.document$ && typeof root.document$.subscribe === "function") {
    root.document$.subscribe(mount); // Material's instant navigation
  } else {
    root.document.addEventListener("DOMContentLoaded", mount);
  }
})(window);
