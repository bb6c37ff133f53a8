/* Drawing for the live table: a sheet as its system's layout reads it, the crawl's hex map
   and the yearzero Zone. The shapes and colours are the campaign report's
   (projections/report_assets/report.js); here every node is built with createElement and
   textContent, so no text a player typed is ever read as HTML. */
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var SQ3 = Math.sqrt(3);
  var TERRAIN = {
    prairie: "#c8dc8e", plains: "#c8dc8e", grassland: "#c8dc8e", forest: "#5e9c5a", woods: "#5e9c5a",
    jungle: "#3f7f4a", hills: "#c9a66b", marsh: "#86b3a4", swamp: "#86b3a4", scrapland: "#a8a196",
    ruins: "#b59c8a", mountain: "#8e8ea3", mountains: "#8e8ea3", desert: "#e6cf8f", sand: "#e6cf8f",
    water: "#7fb3d5", lake: "#7fb3d5", sea: "#6aa0c8", tundra: "#d5dde2", snow: "#eef2f5", city: "#b0a8a0"
  };
  var SPARE = ["#d8b36a", "#9fc5a8", "#c49bb5", "#a7b8d8", "#d9a48f", "#b8c77a"];
  var ROT = ["#cfe6c4", "#f1de8e", "#f0ad6f", "#dc6f5e", "#a33b3b"];
  var ICON_NAMES = { town: "town", treasure: "treasure", divine: "divine sign", god: "God", enemy: "waiting enemy", impassable: "impassable" };

  /* An element with attributes and children (strings become text nodes). */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    return fill(node, attrs, children);
  }
  function svg(tag, attrs, children) {
    return fill(document.createElementNS(SVGNS, tag), attrs, children);
  }
  function fill(node, attrs, children) {
    Object.keys(attrs || {}).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") node.textContent = String(v);
      else node.setAttribute(k, String(v));
    });
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  /* --- the sheet --- */
  function label(key) { return String(key).replace(/_/g, " "); }
  function meter(cur, max) {
    var pct = max ? Math.max(0, Math.min(100, 100 * cur / max)) : 0;
    var bar = el("span", { "class": "fill" + (pct <= 30 ? " low" : "") });
    bar.style.width = pct.toFixed(0) + "%";
    return el("span", { "class": "meter", role: "meter", "aria-valuenow": cur, "aria-valuemin": 0, "aria-valuemax": max }, [
      el("span", { "class": "bar" }, [bar]),
      el("span", {}, [el("span", { "class": "val", text: cur }), "/" + max])
    ]);
  }
  function value(v, key) {
    if (v === null || v === undefined) return el("span", { "class": "no", text: "-" });
    if (v === true) return el("span", { "class": "yes", text: "yes" });
    if (v === false) return el("span", { "class": "no", text: "no" });
    if (typeof v !== "object") return el("span", { "class": "val", text: v });
    if (Array.isArray(v)) {
      if (!v.length) return el("span", { "class": "no", text: "none" });
      return el("span", { "class": "chips" }, v.map(function (x) {
        return x !== null && typeof x === "object" ? el("div", { "class": "item" }, [value(x, key)]) : el("span", { "class": "chip", text: x });
      }));
    }
    if (typeof v.current === "number" && typeof v.max === "number" && Object.keys(v).length === 2) return meter(v.current, v.max);
    var keys = Object.keys(v);
    if (!keys.length) return el("span", { "class": "no", text: "none" });
    return el("div", { "class": "nested" }, keys.map(function (k) { return kv(label(k), value(v[k], k), key + "." + k); }));
  }
  function kv(name, shown, key) {
    return el("div", { "class": "kv" + (name ? "" : " bare"), "data-key": key }, [
      name ? el("span", { "class": "k", text: name }) : null,
      el("span", { "class": "v" }, [shown])
    ]);
  }
  function rowValue(r) {
    if (typeof r.max === "number" && typeof r.value === "number") {
      var m = meter(r.value, r.max);
      if (typeof r.text === "string" && r.text) m.appendChild(el("span", { "class": "muted", text: r.text }));
      return m;
    }
    if (typeof r.text === "string") return el("span", { "class": "val", text: r.text });
    return value(r.value, r.key);
  }
  /* The sheet as ``ledger sheet --json`` gives it: its ``view`` (the system's layout) when
     there is one, else every field of the data, labelled. */
  var INTERNAL = { view: 1, luck_index: 1, campaign: 1, hints: 1 };
  function sheet(box, data) {
    clear(box);
    var v = data.view;
    if (v) {
      box.appendChild(el("div", { "class": "sheet-title", text: v.title }));
      if (v.headline.length) box.appendChild(el("div", { "class": "headline" }, v.headline.map(function (r) { return kv(r.label, rowValue(r), r.key); })));
      v.sections.forEach(function (s) {
        box.appendChild(el("div", { "class": "sheet-section" }, [el("h3", { text: s.title })].concat(
          s.rows.map(function (r) { return kv(r.label, rowValue(r), r.key); }))));
      });
    } else {
      Object.keys(data).filter(function (k) { return !INTERNAL[k]; }).forEach(function (k) {
        box.appendChild(kv(label(k), value(data[k], k), k));
      });
    }
    var luck = data.luck_index;
    if (luck && luck.judged) {
      box.appendChild(kv("Luck", el("span", { "class": "val", text: (luck.luck === null ? "-" : luck.luck.toFixed(2)) +
        " (" + luck.successes + " of " + luck.judged + " judged rolls, " + luck.expected.toFixed(1) + " expected)" }), "luck_index"));
    }
  }

  /* --- a hex map: a list of hexes (q, r, terrain, icon, number, chapter, enemy, days, here) --- */
  function centre(q, r, s) { return [1.5 * s * q, SQ3 * s * (r + q / 2)]; }
  function corners(x, y, s) {
    var pts = [];
    for (var i = 0; i < 6; i++) {
      var a = Math.PI / 3 * i;
      pts.push((x + s * Math.cos(a)).toFixed(1) + "," + (y + s * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }
  function palette(legend) {
    var colors = {};
    ((legend && legend.terrains) || []).forEach(function (t, i) { colors[t] = TERRAIN[t] || SPARE[i % SPARE.length]; });
    return function (t) {
      if (!colors[t]) colors[t] = TERRAIN[t] || SPARE[Object.keys(colors).length % SPARE.length];
      return colors[t];
    };
  }
  function icon(kind, x, y) {
    var g = svg("g", { "class": "icon icon-" + kind, transform: "translate(" + x.toFixed(1) + "," + y.toFixed(1) + ")" });
    var parts = {
      town: [["path", { d: "M-6 1 L0 -6 L6 1 Z", fill: "#fff", stroke: "#3a2a1a", "stroke-width": 1.2 }],
        ["rect", { x: -4.5, y: 1, width: 9, height: 6, fill: "#fff", stroke: "#3a2a1a", "stroke-width": 1.2 }]],
      treasure: [["rect", { x: -6, y: -3, width: 12, height: 8, rx: 1.5, fill: "#e0b13a", stroke: "#5a3d0a", "stroke-width": 1.2 }]],
      divine: [["path", { d: "M0 -7 L2 -2 L7 -2 L3 1.3 L4.5 6.5 L0 3.4 L-4.5 6.5 L-3 1.3 L-7 -2 L-2 -2 Z", fill: "#fff6b0", stroke: "#9a7a00", "stroke-width": 1.1 }]],
      god: [["path", { d: "M-7 4 L-7 -4 L-3.5 0 L0 -6 L3.5 0 L7 -4 L7 4 Z", fill: "#f5d04a", stroke: "#6b4e00", "stroke-width": 1.2 }]],
      enemy: [["circle", { r: 6.3, fill: "#c0392b", stroke: "#fff", "stroke-width": 1.2 }], ["path", { d: "M0 -3.6 V1.2", stroke: "#fff", "stroke-width": 2 }]],
      impassable: [["path", { d: "M-5 -5 L5 5 M5 -5 L-5 5", stroke: "#2b2a27", "stroke-width": 2.4 }]]
    }[kind] || [];
    parts.forEach(function (p) { g.appendChild(svg(p[0], p[1])); });
    return g;
  }
  function hexMap(box, legendBox, entries, legend) {
    clear(box);
    clear(legendBox);
    if (!entries || !entries.length) { box.appendChild(el("p", { "class": "empty", text: "nothing explored yet" })); return; }
    var s = 16, colorOf = palette(legend), xs = [], ys = [], path = [], here = null, seen = {};
    var hexes = svg("g", { "class": "hexes" }), marks = svg("g", {});
    entries.forEach(function (e) {
      var c = centre(e.q, e.r, s);
      xs.push(c[0]); ys.push(c[1]);
      var poly = svg("polygon", {
        "class": e.terrain ? "hex" : "hex unknown", points: corners(c[0], c[1], s - 0.6), fill: e.terrain ? colorOf(e.terrain) : null,
        "data-q": e.q, "data-r": e.r, "data-terrain": e.terrain || "", "data-here": e.here ? "1" : null
      }, [svg("title", { text: "(" + e.q + "," + e.r + ") " + (e.terrain || "unexplored") + (e.icon ? ", " + e.icon : "") + (e.enemy ? ", " + e.enemy : "") })]);
      hexes.appendChild(poly);
      if (e.terrain) seen[e.terrain] = 1;
      if (e.icon) marks.appendChild(icon(e.icon, c[0], c[1] - (e.number ? 2 : 0)));
      if (e.number !== null && e.number !== undefined) marks.appendChild(svg("text", { "class": "hex-num", x: c[0].toFixed(1), y: (c[1] + 12).toFixed(1), text: e.number }));
      (e.days || []).forEach(function (d) { path.push([d, c]); });
      if (e.here) here = c;
    });
    path.sort(function (a, b) { return a[0] - b[0]; });
    /* at least seven hexes across and five down, so that a new map is not drawn huge */
    var pad = s * 1.3, least = [10.5 * s, 7.5 * SQ3 * s];
    var w = Math.max(least[0], Math.max.apply(null, xs) - Math.min.apply(null, xs) + 2 * pad);
    var h = Math.max(least[1], Math.max.apply(null, ys) - Math.min.apply(null, ys) + 2 * pad);
    var x0 = (Math.max.apply(null, xs) + Math.min.apply(null, xs) - w) / 2, y0 = (Math.max.apply(null, ys) + Math.min.apply(null, ys) - h) / 2;
    var root = svg("svg", { viewBox: [x0, y0, w, h].map(function (n) { return n.toFixed(1); }).join(" "), role: "img", "aria-label": "hex map" }, [
      hexes,
      svg("polyline", { "class": "path", points: path.map(function (p) { return p[1][0].toFixed(1) + "," + p[1][1].toFixed(1); }).join(" ") }),
      marks
    ]);
    if (here) {
      root.appendChild(svg("circle", { "class": "here-ring", r: (s * 0.78).toFixed(1), cx: here[0].toFixed(1), cy: here[1].toFixed(1) }));
      root.appendChild(svg("circle", { "class": "here-dot", id: "here", r: 4, cx: here[0].toFixed(1), cy: here[1].toFixed(1) }));
    }
    box.appendChild(root);
    Object.keys(seen).forEach(function (t) { legendBox.appendChild(swatch(colorOf(t), t)); });
    legendBox.appendChild(swatch("#e7e2d6", "unexplored"));
    Object.keys(ICON_NAMES).forEach(function (k) {
      legendBox.appendChild(el("span", {}, [svg("svg", { viewBox: "-8 -8 16 16" }, [icon(k, 0, 0)]), ICON_NAMES[k]]));
    });
    legendBox.appendChild(el("span", {}, [svg("svg", { viewBox: "-8 -8 16 16" }, [svg("circle", { r: 6, "class": "here-ring" })]), "you are here"]));
  }
  function swatch(color, name) {
    var i = el("i", {});
    i.style.background = color;
    return el("span", {}, [i, name]);
  }

  /* --- the Zone: sectors by name, their grid cells, the path, the position, the ark --- */
  function colName(c) {
    var n = "";
    c += 1;
    while (c) { var m = (c - 1) % 26; n = String.fromCharCode(65 + m) + n; c = Math.floor((c - 1) / 26); }
    return n;
  }
  function zoneMap(box, legendBox, z) {
    clear(box);
    clear(legendBox);
    var names = z ? Object.keys(z.cells || {}) : [];
    if (!names.length) { box.appendChild(el("p", { "class": "empty", text: "no sectors yet" })); return; }
    var cols = names.map(function (n) { return z.cells[n][0]; }), rows = names.map(function (n) { return z.cells[n][1]; });
    var c0 = Math.min.apply(null, cols), c1 = Math.max.apply(null, cols), r0 = Math.min.apply(null, rows), r1 = Math.max.apply(null, rows);
    var s = 44, m = 22, w = (c1 - c0 + 1) * s + m, h = (r1 - r0 + 1) * s + m;
    var root = svg("svg", { viewBox: "0 0 " + w + " " + h, role: "img", "aria-label": "the Zone", "class": "zone" });
    var c, r;
    for (c = c0; c <= c1; c++) root.appendChild(svg("text", { "class": "tick", x: m + (c - c0 + 0.5) * s, y: 14, "text-anchor": "middle", text: colName(c) }));
    for (r = r0; r <= r1; r++) root.appendChild(svg("text", { "class": "tick", x: 10, y: m + (r - r0 + 0.55) * s, "text-anchor": "middle", text: r }));
    for (c = c0; c <= c1; c++) for (r = r0; r <= r1; r++) {
      root.appendChild(svg("rect", { x: m + (c - c0) * s + 1, y: m + (r - r0) * s + 1, width: s - 2, height: s - 2, fill: "#efeae0", rx: 3 }));
    }
    var centres = {};
    names.forEach(function (n) {
      var cell = z.cells[n], sec = z.sectors[n] || { rot_level: 0, explored: false, visits: 0 };
      var x = m + (cell[0] - c0) * s, y = m + (cell[1] - r0) * s;
      centres[n] = [x + s / 2, y + s / 2];
      root.appendChild(svg("rect", {
        "class": "sector" + (sec.explored ? "" : " entered"), "data-sector": n, "data-rot": sec.rot_level, "data-here": n === z.position ? "1" : null,
        x: x + 1, y: y + 1, width: s - 2, height: s - 2, rx: 3, fill: ROT[Math.min(sec.rot_level, ROT.length - 1)]
      }, [svg("title", { text: n + ": Rot level " + sec.rot_level + (sec.explored ? ", explored" : ", entered only") })]));
      root.appendChild(svg("text", { "class": "sector-name", x: x + s / 2, y: y + 13, text: n }));
      root.appendChild(svg("text", { "class": "sector-name", x: x + s / 2, y: y + s - 6, text: n === z.ark ? "ARK" : "rot " + sec.rot_level }));
    });
    root.appendChild(svg("polyline", { "class": "path", points: (z.path || []).filter(function (n) { return centres[n]; }).map(function (n) { return centres[n].join(","); }).join(" ") }));
    if (z.position && centres[z.position]) {
      var p = centres[z.position];
      root.appendChild(svg("circle", { "class": "here-ring", r: s * 0.42, cx: p[0], cy: p[1] }));
      root.appendChild(svg("circle", { "class": "here-dot", id: "here", r: 4.5, cx: p[0], cy: p[1] }));
    }
    box.appendChild(root);
    ROT.slice(0, 4).forEach(function (color, i) { legendBox.appendChild(swatch(color, "Rot level " + i)); });
    legendBox.appendChild(el("span", {}, [svg("svg", { viewBox: "-8 -8 16 16" }, [svg("circle", { r: 6, "class": "here-ring" })]), "the party"]));
  }

  window.LedgerDraw = { el: el, svg: svg, clear: clear, sheet: sheet, hexMap: hexMap, zoneMap: zoneMap };
})();
