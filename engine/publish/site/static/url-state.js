/* small-llm-bench: a view's state in the page's query string, so a link opens the same view and Back restores
   the one before. Shared by the board (board.js), the Index table and the calculator (site_src/assets/index/).

   The query string is hostile input: read() returns only the names asked for, and each view keeps a value only
   when it is one of the values its own page offers (an option, a tab, a header); nothing read here is ever
   placed as HTML. Only same-page query changes are pushed: the path and hash stay as they are, so Material's
   instant navigation (which fetches a page when the path changes, and scrolls when the hash does) leaves them
   alone, and its Back across pages still works. */
(function (root) {
  "use strict";

  var MAX_VALUE = 200;  /* longer than any option, tab or column name the pages write */
  var handlers = {};

  function read(names) {
    var q;
    try { q = new URLSearchParams(root.location.search); } catch (e) { return {}; }
    var out = {};
    names.forEach(function (name) {
      var v = q.get(name);
      if (v !== null && v.length <= MAX_VALUE) out[name] = v;
    });
    return out;
  }

  /* values: name -> string ("" or null removes the name). push: a new history entry (a visitor's choice) or
     the current one replaced. Names the view does not own are kept as they were. */
  function write(values, push) {
    var q = new URLSearchParams(root.location.search);
    Object.keys(values).forEach(function (name) {
      var v = values[name];
      if (v === "" || v === null || v === undefined) q.delete(name); else q.set(name, String(v));
    });
    var search = q.toString();
    var url = root.location.pathname + (search ? "?" + search : "") + root.location.hash;
    if (url === root.location.pathname + root.location.search + root.location.hash) return;
    try {
      if (push) root.history.pushState(null, "", url); else root.history.replaceState(root.history.state, "", url);
    } catch (e) {
      /* a page opened from a file may refuse history changes: the view still works, only the link does not */
    }
  }

  /* One handler per view name: a view mounted again (instant navigation brought its page back) replaces the
     old one, so Back never drives a table that is no longer in the document. */
  function onBack(name, element, fn) {
    handlers[name] = { element: element, fn: fn };
  }

  root.addEventListener("popstate", function () {
    Object.keys(handlers).forEach(function (name) {
      var h = handlers[name];
      if (h.element.isConnected) h.fn();
    });
  });

  root.SllmbUrl = { read: read, write: write, onBack: onBack };
})(window);
