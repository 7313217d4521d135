/* "Can I run it?" — the browser copy of engine/index/hardware.py. Same formula, same tables (read from the
 * JSON the page holds in the data-cir attribute of #cir-data); tests/index/test_calculator_js.py checks both
 * give the same numbers.
 * Plain JS, no libraries. Works in the browser and under node (module.exports) for the test. */
(function (root) {
  "use strict";

  function kvCacheGb(m, context, t) {
    var perTokenPerLayer = m.kv_heads * m.head_dim * 2 * t.kv_bytes;
    var tokens = m.full_layers * context + m.sliding_layers * Math.min(context, m.sliding_window);
    return (tokens * perTokenPerLayer + m.recurrent_layers * t.recurrent_state_mb * 1e6) / 1e9;
  }

  function estimate(m, quant, context, device, t) {
    var bits = t.quant_bits[quant];
    if (bits === undefined) { throw new Error("unknown quantisation " + quant); }
    if (!(context >= 1)) { throw new Error("context must be at least 1 token"); }
    var weights = m.total_params_b * bits / 8;
    var cache = kvCacheGb(m, context, t);
    var runtime = t.runtime_base_gb + t.runtime_share * weights;
    var total = weights + cache + runtime;
    var readPerToken = m.active_params_b * bits / 8 + cache;
    var speed = device.bandwidth_gbs * device.efficiency / readPerToken;
    if (m.active_params_b < m.total_params_b) { speed *= t.moe_speed_factor; }
    return {
      weights_gb: weights, kv_cache_gb: cache, runtime_gb: runtime, total_gb: total,
      fits: total <= t.fit_share * device.memory_gb, tokens_per_s: speed
    };
  }

  /* The one rule of engine/index/context_limit.py: a context above the model's recorded maximum is sized at
   * the maximum; a model without one is sized as asked. */
  function cappedContext(m, context) {
    var limit = m.max_context;
    return limit && context > limit.tokens ? limit.tokens : context;
  }

  /* The note under the input, in the words the page data carries (written once, in Python): capped, with
   * the maximum's source as a link; not recorded; or nothing when the context is within the maximum. */
  function showContextNote(note, m, context, t) {
    while (note.firstChild) { note.removeChild(note.firstChild); }
    var limit = m.max_context;
    if (!limit) { note.textContent = t.context_not_recorded; return; }
    if (context <= limit.tokens) { return; }
    note.appendChild(document.createTextNode(limit.capped_text + " (source: "));
    var a = document.createElement("a");
    a.href = limit.source_url; // an https address, validated when the model file was read
    a.textContent = limit.source_url;
    note.appendChild(a);
    note.appendChild(document.createTextNode(")"));
  }

  function option(select, value, label) {
    var o = document.createElement("option");
    o.value = value;
    o.textContent = label; // text, never HTML: names come from data files
    select.appendChild(o);
  }

  function setText(id, text) {
    var el = document.getElementById(id);
    if (el) { el.textContent = text; }
  }

  function mount() {
    var dataEl = document.getElementById("cir-data");
    if (!dataEl || dataEl.getAttribute("data-mounted") === "1") { return; }
    dataEl.setAttribute("data-mounted", "1");
    var data = JSON.parse(dataEl.getAttribute("data-cir"));
    var t = data.tables;
    var mSel = document.getElementById("cir-model");
    var dSel = document.getElementById("cir-device");
    var qSel = document.getElementById("cir-quant");
    var cIn = document.getElementById("cir-context");
    data.models.forEach(function (m, i) { option(mSel, String(i), m.name); });
    t.devices.forEach(function (d, i) { option(dSel, String(i), d.name); });
    Object.keys(t.quant_bits).forEach(function (q) { option(qSel, q, q + " (" + t.quant_bits[q] + " bits)"); });
    var defaults = data.defaults || {};
    mSel.value = String(defaults.model || 0);
    qSel.value = defaults.quant || "Q4_K_M";
    if (defaults.context) { cIn.value = String(defaults.context); }
    // The bound on what may be typed at all; the input's own max follows the chosen model's maximum.
    var maxContext = Number(defaults.context_limit) || Number(cIn.getAttribute("max")) || Infinity;
    var error = document.getElementById("cir-error");
    var note = document.getElementById("cir-context-note");
    var results = ["cir-weights", "cir-cache", "cir-runtime", "cir-total", "cir-fits", "cir-speed"];
    function reject(message) {
      // An impossible input gets a message and no numbers, never a silently different question.
      error.textContent = message;
      error.hidden = false;
      cIn.setAttribute("aria-invalid", "true");
      results.forEach(function (id) { setText(id, "—"); });
      if (note) { note.textContent = ""; }
      var verdict = document.getElementById("cir-fits");
      if (verdict) { verdict.className = ""; }
    }
    function update() {
      var m = data.models[Number(mSel.value)];
      var d = t.devices[Number(dSel.value)];
      cIn.setAttribute("max", String(m.max_context ? m.max_context.tokens : maxContext));
      var raw = cIn.value.trim();
      var ctx = Number(raw);
      if (raw === "" || !isFinite(ctx)) { reject("Enter the context length as a whole number of tokens."); return; }
      if (ctx < 1) { reject("The context must be at least 1 token."); return; }
      if (Math.floor(ctx) !== ctx) { reject("The context is a whole number of tokens."); return; }
      if (ctx > maxContext) { reject("The context can be at most " + maxContext.toLocaleString("en") + " tokens."); return; }
      error.hidden = true;
      error.textContent = "";
      cIn.removeAttribute("aria-invalid");
      if (note) { showContextNote(note, m, ctx, t); }
      var r = estimate(m, qSel.value, cappedContext(m, ctx), d, t);
      setText("cir-weights", r.weights_gb.toFixed(2) + " GB");
      setText("cir-cache", r.kv_cache_gb.toFixed(2) + " GB");
      setText("cir-runtime", r.runtime_gb.toFixed(2) + " GB");
      setText("cir-total", r.total_gb.toFixed(2) + " GB of " + d.memory_gb + " GB (" +
        (t.fit_share * d.memory_gb).toFixed(1) + " GB usable)");
      setText("cir-fits", r.fits ? "Fits" : "Does not fit");
      // The same words as `sllmb index can-i-run` (engine/index/hardware.py: Estimate.speed_text).
      setText("cir-speed", r.fits ? "about " + r.tokens_per_s.toFixed(0) + " tokens/s" : t.no_fit_speed);
      var verdict = document.getElementById("cir-fits");
      if (verdict) { verdict.className = r.fits ? "cir-yes" : "cir-no"; }
    }
    [mSel, dSel, qSel, cIn].forEach(function (el) { el.addEventListener("input", update); });
    keepInUrl(root.SllmbUrl, dataEl, data, mSel, dSel, qSel, cIn, update);
    update();
  }

  /* The choices live in the URL (assets/url-state.js), so a link gives the same answer and Back the previous
   * one: ?model=<id>&device=<name>&quant=Q4_K_M&context=8192. Each value must be one the page offers (a model
   * id, a device name, a quantisation) or, for the context, a whole number in the input's range; anything else
   * is ignored and the default stays. A choice is saved when it is made (change: a list picked, the context
   * typed and left), not on every keystroke. */
  function keepInUrl(urls, dataEl, data, mSel, dSel, qSel, cIn, update) {
    if (!urls) { return; }
    var t = data.tables;
    var defaults = { model: mSel.value, device: dSel.value, quant: qSel.value, context: cIn.value };
    // The typing-slip bound, not the input's max (which follows the model): a link asking for more than a
    // model's maximum keeps its number, and the page says it sized the maximum.
    var maxContext = Number(data.defaults && data.defaults.context_limit) || Infinity;
    function indexOf(list, field, value) {
      for (var i = 0; i < list.length; i += 1) { if (list[i][field] === value) { return String(i); } }
      return null;
    }
    function restore() {
      var want = urls.read(["model", "device", "quant", "context"]);
      mSel.value = (want.model !== undefined && indexOf(data.models, "id", want.model)) || defaults.model;
      dSel.value = (want.device !== undefined && indexOf(t.devices, "name", want.device)) || defaults.device;
      qSel.value = Object.prototype.hasOwnProperty.call(t.quant_bits, want.quant) ? want.quant : defaults.quant;
      var ctx = /^[0-9]{1,9}$/.test(want.context || "") ? Number(want.context) : 0;
      cIn.value = ctx >= 1 && ctx <= maxContext ? String(ctx) : defaults.context;
    }
    function save() {
      urls.write({
        model: data.models[Number(mSel.value)].id,
        device: t.devices[Number(dSel.value)].name,
        quant: qSel.value,
        context: cIn.value.trim()
      }, true);
    }
    [mSel, dSel, qSel, cIn].forEach(function (el) { el.addEventListener("change", save); });
    urls.onBack("can-i-run", dataEl, function () { restore(); update(); });
    restore();
  }

  var api = { estimate: estimate, kvCacheGb: kvCacheGb, cappedContext: cappedContext, mount: mount };
  if (typeof module !== "undefined" && module.exports) {
    module.exports = api;
  } else {
    root.CanIRunIt = api;
    // Mount now if the page is parsed, else once it is; and on every page Material's instant navigation
    // swaps in (document$). On a direct load this script runs before Material's bundle defines document$,
    // so the subscription is made when the page is ready. One subscription per window: the script runs
    // again each time the page is reached in-site, and mount() does nothing twice for one page.
    var ready = function () {
      mount();
      if (!root.__cirSubscribed && root.document$ && typeof root.document$.subscribe === "function") {
        root.__cirSubscribed = true;
        root.document$.subscribe(function () { mount(); });
      }
    };
    if (root.document && root.document.readyState === "loading") {
      root.document.addEventListener("DOMContentLoaded", ready);
    } else if (root.document) {
      ready();
    }
  }
})(typeof window !== "undefined" ? window : this);
