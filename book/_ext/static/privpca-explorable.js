/* privpca_edu book: precomputed explorables (privpca_edu/widgets/explorable.py writes them).
 *
 * Each div.privpca-explorable holds HTML controls, a <picture> of the current frame and its
 * frames' index (script.privpca-x-data: every precomputed state, keyed by the index of each
 * control's value).  Moving a control looks up the state with that value; when the exact
 * combination was not precomputed (the grid is a full grid over the chapter's main controls plus
 * one-at-a-time sweeps of the others), the nearest precomputed state with that value is shown and
 * the other controls move to it.  The neighbouring states' frames are preloaded, so a swap only
 * decodes an image that is already in the cache.  window.privpcaExplorables records the swap
 * times (ms, from the input event to the new frame decoded) for the browser tests.
 */
(function () {
  "use strict";
  var NARROW = window.matchMedia ? window.matchMedia("(max-width: 480px)") : {matches: false};
  var registry = (window.privpcaExplorables = window.privpcaExplorables || {swaps: [], ready: 0});

  function setup(root) {
    var data = JSON.parse(root.querySelector("script.privpca-x-data").textContent);
    var base = root.dataset.base;
    var controls = data.controls;
    var inputs = controls.map(function (c) {
      return root.querySelector('[data-name="' + c.name + '"]');
    });
    var preset = root.querySelector("select[data-preset]");
    var img = root.querySelector("img.privpca-x-frame");
    var source = root.querySelector("picture source");
    var advisory = root.querySelector(".privpca-x-advisory");
    var state = controls.map(function (c) { return c.default; });
    var cache = {};

    function key(s) { return s.join(","); }
    function url(frame) { return base + (NARROW.matches && frame.n ? frame.n : frame.w); }
    function preload(s) {
      var frame = data.frames[key(s)];
      if (!frame) { return; }
      var u = url(frame);
      if (cache[u]) { return; }
      var im = new Image();
      im.decoding = "async";
      im.src = u;
      cache[u] = im;
      if (im.decode) { im.decode().catch(function () {}); }
    }
    function neighbours(s) {
      controls.forEach(function (c, i) {
        [-1, 1].forEach(function (d) {
          var t = s.slice();
          t[i] += d;
          if (t[i] >= 0 && t[i] < c.labels.length) {
            var found = nearest(t, i);
            if (found) { preload(found); }
          }
        });
      });
    }
    /* the precomputed state with control i at s[i] closest to s (most controls equal, then most
       at their defaults) */
    function nearest(s, i) {
      if (data.frames[key(s)]) { return s; }
      var best = null, bestScore = -1;
      Object.keys(data.frames).forEach(function (k) {
        var t = k.split(",").map(Number);
        if (t[i] !== s[i]) { return; }
        var score = 0;
        for (var j = 0; j < t.length; j++) {
          if (t[j] === s[j]) { score += 100; }
          if (t[j] === controls[j].default) { score += 1; }
        }
        if (score > bestScore) { bestScore = score; best = t; }
      });
      return best;
    }
    function show(s, started) {
      var frame = data.frames[key(s)];
      if (!frame) { return; }
      state = s.slice();
      controls.forEach(function (c, i) {
        var input = inputs[i];
        if (!input) { return; }
        if (String(input.value) !== String(s[i])) { input.value = s[i]; }
        var text = c.labels[s[i]];
        if (input.type === "range") {
          input.setAttribute("aria-valuetext", c.symbol + " = " + text);
          var out = input.parentNode.querySelector("output");
          if (out) { out.textContent = text; }
        }
      });
      if (preset) {
        var match = "custom";
        data.presets.forEach(function (p, i) { if (p.label === frame.p) { match = String(i); } });
        preset.value = match;
      }
      if (source && frame.n) { source.srcset = base + frame.n; }
      var target = url(frame);
      var done = function () {
        img.alt = frame.alt;
        if (started) { registry.swaps.push(performance.now() - started); }
        root.dataset.state = key(s);
      };
      if (img.getAttribute("src") !== base + frame.w) {
        var loader = cache[target] || new Image();
        if (!cache[target]) { loader.src = target; cache[target] = loader; }
        var swap = function () { img.src = base + frame.w; done(); };
        (loader.decode ? loader.decode() : Promise.resolve()).then(swap, swap);
      } else {
        done();
      }
      advisory.innerHTML = data.advisories[frame.a] || "";
      neighbours(s);
    }
    inputs.forEach(function (input, i) {
      if (!input) { return; }
      if (controls[i].labels.length > 1) { input.disabled = false; }
      input.addEventListener("input", function () {
        var started = performance.now();
        var t = state.slice();
        t[i] = Number(input.value);
        var found = nearest(t, i);
        if (found) { show(found, started); }
      });
    });
    if (preset) {
      preset.disabled = false;
      preset.addEventListener("change", function () {
        var p = data.presets[Number(preset.value)];
        if (!p || !p.values) { return; }
        var started = performance.now();
        var t = state.slice(), last = 0;
        controls.forEach(function (c, i) {
          if (c.name in p.values) { t[i] = p.values[c.name]; last = i; }
        });
        var found = nearest(t, last);
        if (found) { show(found, started); }
      });
    }
    root.classList.add("privpca-x-ready");
    neighbours(state);
    registry.ready += 1;
  }

  function init() {
    document.querySelectorAll("div.privpca-explorable").forEach(function (root) {
      try { setup(root); } catch (err) { console.warn("privpca explorable:", err); }
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", init); }
  else { init(); }
})();
