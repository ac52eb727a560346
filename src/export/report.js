/* report.js — the charts of a `tracefold report` page (embedded in each page
 * by report.c; no library, no network). Reads the JSON island #tf-data and
 * draws, as inline SVG: the rank x rank communication matrix (bytes or
 * messages), compute and MPI time per rank, and the time histograms.
 * When every chart is drawn, <body> gets the attribute data-tf-rendered, "ok"; an
 * exception instead shows #tf-error and sets it to "error"
 * (the report test looks for both). */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";

  function el(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function text(parent, x, y, s, attrs) {
    var t = el("text", Object.assign({ x: x, y: y }, attrs || {}), parent);
    t.textContent = s;
    return t;
  }
  function tip(node, s) {
    el("title", {}, node).textContent = s;
  }
  function fmtNs(v) {
    if (v >= 1e9) return (v / 1e9).toPrecision(3) + " s";
    if (v >= 1e6) return (v / 1e6).toPrecision(3) + " ms";
    if (v >= 1e3) return (v / 1e3).toPrecision(3) + " µs";
    return Math.round(v) + " ns";
  }
  function fmtBytes(v) {
    if (v >= 1e9) return (v / 1e9).toPrecision(3) + " GB";
    if (v >= 1e6) return (v / 1e6).toPrecision(3) + " MB";
    if (v >= 1e3) return (v / 1e3).toPrecision(3) + " kB";
    return Math.round(v) + " B";
  }
  function fmtCount(v) {
    if (v >= 1e6) return (v / 1e6).toPrecision(3) + "M";
    if (v >= 1e4) return (v / 1e3).toPrecision(3) + "k";
    return String(Math.round(v));
  }
  /* white -> blue -> dark blue, t in [0, 1] */
  function heat(t) {
    var stops = [[247, 251, 255], [158, 202, 225], [49, 130, 189], [8, 48, 107]];
    var x = Math.max(0, Math.min(1, t)) * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(x)), f = x - i;
    var c = stops[i].map(function (a, k) { return Math.round(a + (stops[i + 1][k] - a) * f); });
    return "rgb(" + c.join(",") + ")";
  }

  function matrix(data, metric) {
    var box = document.getElementById("matrix-chart");
    box.textContent = "";
    var m = data.matrix, n = m.side, vals = m[metric], max = 0, total = 0;
    for (var i = 0; i < vals.length; i++) { max = Math.max(max, vals[i]); total += vals[i]; }
    if (total === 0) {
      var p = document.createElement("p");
      p.className = "muted";
      p.id = "matrix-empty";
      p.textContent = "No point-to-point messages: this program communicates through collectives only.";
      box.appendChild(p);
      return;
    }
    var cell = Math.max(6, Math.min(44, Math.floor(560 / n))), left = 64, top = 40, size = cell * n;
    var svg = el("svg", { width: left + size + 120, height: top + size + 30, id: "matrix-svg",
      viewBox: "0 0 " + (left + size + 120) + " " + (top + size + 30) }, box);
    var fmt = metric === "bytes" ? fmtBytes : fmtCount, label = function (k) {
      return m.block > 1 ? (k * m.block) + "–" + Math.min(m.nranks - 1, (k + 1) * m.block - 1) : String(k);
    };
    text(svg, left + size / 2, 14, "receiver", { "text-anchor": "middle", "font-weight": "600" });
    text(svg, 14, top + size / 2, "sender", { "text-anchor": "middle", "font-weight": "600",
      transform: "rotate(-90 14 " + (top + size / 2) + ")" });
    var every = Math.ceil(n / 16);
    for (var r = 0; r < n; r++) {
      if (r % every === 0) {
        text(svg, left - 6, top + r * cell + cell / 2 + 4, label(r), { "text-anchor": "end" });
        text(svg, left + r * cell + cell / 2, top - 6, label(r), { "text-anchor": "middle" });
      }
      for (var c = 0; c < n; c++) {
        var v = vals[r * n + c];
        var rect = el("rect", { x: left + c * cell, y: top + r * cell, width: cell - 1, height: cell - 1,
          fill: v > 0 ? heat(Math.sqrt(v / max)) : "#f4f6f8", "class": "cell" }, svg);
        tip(rect, "rank " + label(r) + " → rank " + label(c) + ": " + fmt(v) + " (" +
          fmtCount(m.messages[r * n + c]) + " messages, " + fmtBytes(m.bytes[r * n + c]) + ")");
      }
    }
    /* the colour scale */
    var sx = left + size + 24, steps = 40;
    for (var s = 0; s < steps; s++)
      el("rect", { x: sx, y: top + size - (s + 1) * size / steps, width: 14, height: size / steps + 0.5,
        fill: heat((s + 0.5) / steps) }, svg);
    text(svg, sx + 20, top + 10, fmt(max));
    text(svg, sx + 20, top + size, "0");
    text(svg, sx, top + size + 20, "√ scale");
  }

  function rankBars(data) {
    var box = document.getElementById("rank-bars"), ranks = data.ranks;
    var max = 0;
    ranks.forEach(function (r) { max = Math.max(max, r.compute + r.mpi); });
    var row = ranks.length > 48 ? 6 : ranks.length > 24 ? 10 : 18, left = 70, width = 760, top = 8;
    var h = top + row * ranks.length + 34;
    var svg = el("svg", { width: left + width + 20, height: h, id: "rank-svg", viewBox: "0 0 " + (left + width + 20) + " " + h }, box);
    var scale = max > 0 ? width / max : 0, every = Math.ceil(ranks.length / 32);
    ranks.forEach(function (r, i) {
      var y = top + i * row;
      if (i % every === 0) text(svg, left - 8, y + row * 0.7, "rank " + r.rank, { "text-anchor": "end" });
      var a = el("rect", { x: left, y: y + 1, width: Math.max(0, r.compute * scale), height: row - 2,
        fill: "#3a9d6f", "class": "compute" }, svg);
      tip(a, "rank " + r.rank + ": compute " + fmtNs(r.compute));
      var b = el("rect", { x: left + r.compute * scale, y: y + 1, width: Math.max(0, r.mpi * scale), height: row - 2,
        fill: "#e07a2f", "class": "mpi" }, svg);
      tip(b, "rank " + r.rank + ": in MPI " + fmtNs(r.mpi) + " (" +
        (r.compute + r.mpi > 0 ? (100 * r.mpi / (r.compute + r.mpi)).toFixed(1) : "0") + " %)");
    });
    var ay = top + row * ranks.length + 4;
    el("line", { x1: left, x2: left + width, y1: ay, y2: ay, stroke: "#c5ced8" }, svg);
    for (var k = 0; k <= 4; k++) {
      var x = left + width * k / 4;
      el("line", { x1: x, x2: x, y1: ay, y2: ay + 4, stroke: "#c5ced8" }, svg);
      text(svg, x, ay + 16, fmtNs(max * k / 4), { "text-anchor": k === 0 ? "start" : k === 4 ? "end" : "middle" });
    }
    var legend = document.createElement("div");
    legend.className = "legend";
    legend.innerHTML = '<span><i style="background:var(--compute)"></i>compute</span>' +
      '<span><i style="background:var(--mpi)"></i>in MPI calls</span>';
    box.appendChild(legend);
  }

  function histograms(data) {
    var box = document.getElementById("hist-charts"), h = data.hist;
    h.series.forEach(function (s) {
      var total = s.counts.reduce(function (a, b) { return a + b; }, 0);
      if (!total) return;
      var first = s.counts.findIndex(function (v) { return v > 0; }), last = s.counts.length - 1;
      while (last > 0 && !s.counts[last]) last--;
      first = Math.max(0, first - 1);
      last = Math.min(s.counts.length - 1, last + 1);
      var div = document.createElement("div");
      div.className = "hist";
      var title = document.createElement("h4");
      title.innerHTML = "";
      title.appendChild(document.createTextNode(s.name + " "));
      var sub = document.createElement("span");
      sub.className = "muted";
      sub.textContent = fmtCount(total) + (s.kind === "compute" ? " phases" : " calls");
      title.appendChild(sub);
      div.appendChild(title);
      box.appendChild(div);
      var W = 320, H = 120, left = 8, bottom = 22, n = last - first + 1, bw = (W - left * 2) / n;
      var max = Math.max.apply(null, s.counts);
      var svg = el("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "hist-svg" }, div);
      for (var i = first; i <= last; i++) {
        var v = s.counts[i], bh = max ? (H - bottom - 6) * v / max : 0, x = left + (i - first) * bw;
        var lo = Math.pow(10, h.lo + i / h.perDecade), hi = Math.pow(10, h.lo + (i + 1) / h.perDecade);
        var r = el("rect", { x: x + 0.5, y: H - bottom - bh, width: Math.max(1, bw - 1), height: bh,
          fill: s.kind === "compute" ? "#3a9d6f" : "#2f6fdf", rx: 1.5 }, svg);
        tip(r, fmtNs(lo) + " – " + fmtNs(hi) + ": " + fmtCount(v));
        if ((i - first) % Math.max(1, Math.ceil(n / 5)) === 0)
          text(svg, x, H - 6, fmtNs(lo), { "text-anchor": "start" });
      }
      el("line", { x1: left, x2: W - left, y1: H - bottom, y2: H - bottom, stroke: "#c5ced8" }, svg);
    });
    if (!box.children.length) {
      var p = document.createElement("p");
      p.className = "muted";
      p.textContent = "The trace keeps no times to draw.";
      box.appendChild(p);
    }
  }

  function fail(err) {
    document.body.setAttribute("data-tf-rendered", "error");
    var d = document.getElementById("tf-error") || document.createElement("div");
    d.id = "tf-error";
    d.textContent = "This report could not draw its charts: " + (err && err.message ? err.message : err);
    var main = document.querySelector("main");
    main.insertBefore(d, main.firstChild);
  }

  try {
    var data = JSON.parse(document.getElementById("tf-data").textContent);
    matrix(data, "bytes");
    document.querySelectorAll(".toggle button").forEach(function (b) {
      b.addEventListener("click", function () {
        document.querySelectorAll(".toggle button").forEach(function (o) { o.classList.toggle("on", o === b); });
        try { matrix(data, b.getAttribute("data-metric")); } catch (e) { fail(e); }
      });
    });
    rankBars(data);
    histograms(data);
    var graph = document.getElementById("flow-graph");
    if (graph && graph.getAttribute("data-available") === "1") graph.hidden = false;
    document.body.setAttribute("data-tf-rendered", "ok");
  } catch (e) {
    fail(e);
  }
})();
