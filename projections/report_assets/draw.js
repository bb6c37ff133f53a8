/* The drawing both the campaign report and the live table use: a sheet as its system's
   layout reads it (projections/sheets.py), a track as a bar, and the two kinds of map a
   system may draw (a hex map, a grid of named sectors), each with its legend. The report inlines this file (it is one
   self-contained page); the live table serves it (/static/draw.js). Every node is built
   with createElement and textContent, so no text from the ledger is ever read as HTML.
   It sets window.LedgerDraw. */
(function () {
  "use strict";
  /* SVG's namespace, spelt in parts: the report holds no address anywhere, not even this one */
  var SVGNS = "http" + ":" + "/" + "/www.w3.org/2000/svg";
  var SQ3 = Math.sqrt(3);
  var TERRAIN = {
    prairie: "#c8dc8e", plains: "#c8dc8e", grassland: "#c8dc8e", forest: "#5e9c5a", woods: "#5e9c5a",
    jungle: "#3f7f4a", hills: "#c9a66b", marsh: "#86b3a4", swamp: "#86b3a4", scrapland: "#a8a196",
    ruins: "#b59c8a", mountain: "#8e8ea3", mountains: "#8e8ea3", desert: "#e6cf8f", sand: "#e6cf8f",
    water: "#7fb3d5", lake: "#7fb3d5", sea: "#6aa0c8", tundra: "#d5dde2", snow: "#eef2f5", city: "#b0a8a0"
  };
  var SPARE = ["#d8b36a", "#9fc5a8", "#c49bb5", "#a7b8d8", "#d9a48f", "#b8c77a"];
  var ROT = ["#cfe6c4", "#f1de8e", "#f0ad6f", "#dc6f5e", "#a33b3b"];
  var ICONS = {
    town: [["path", { d: "M-6 1 L0 -6 L6 1 Z", fill: "#fff", stroke: "#3a2a1a", "stroke-width": 1.2 }],
      ["rect", { x: -4.5, y: 1, width: 9, height: 6, fill: "#fff", stroke: "#3a2a1a", "stroke-width": 1.2 }],
      ["rect", { x: -1.3, y: 3, width: 2.6, height: 4, fill: "#3a2a1a" }]],
    treasure: [["rect", { x: -6, y: -3, width: 12, height: 8, rx: 1.5, fill: "#e0b13a", stroke: "#5a3d0a", "stroke-width": 1.2 }],
      ["path", { d: "M-6 0 H6", stroke: "#5a3d0a", "stroke-width": 1.2 }],
      ["rect", { x: -1.2, y: -1, width: 2.4, height: 3, fill: "#5a3d0a" }]],
    divine: [["path", { d: "M0 -7 L2 -2 L7 -2 L3 1.3 L4.5 6.5 L0 3.4 L-4.5 6.5 L-3 1.3 L-7 -2 L-2 -2 Z", fill: "#fff6b0", stroke: "#9a7a00", "stroke-width": 1.1 }]],
    god: [["path", { d: "M-7 4 L-7 -4 L-3.5 0 L0 -6 L3.5 0 L7 -4 L7 4 Z", fill: "#f5d04a", stroke: "#6b4e00", "stroke-width": 1.2 }]],
    enemy: [["circle", { r: 6.3, fill: "#c0392b", stroke: "#fff", "stroke-width": 1.2 }],
      ["path", { d: "M0 -3.6 V1.2", stroke: "#fff", "stroke-width": 2, "stroke-linecap": "round" }],
      ["circle", { cy: 3.6, r: 1.1, fill: "#fff" }]],
    impassable: [["path", { d: "M-5 -5 L5 5 M5 -5 L-5 5", stroke: "#2b2a27", "stroke-width": 2.4, "stroke-linecap": "round" }]]
  };
  /* The words drawn, in the reader's language: the page and the report each set
     LedgerDraw.translate to their catalog's lookup; without it, English as written. */
  function _(text, values) {
    var said = window.LedgerDraw && window.LedgerDraw.translate ? window.LedgerDraw.translate(text) : text;
    return values ? said.replace(/\{(\w+)\}/g, function (m, k) { return values[k] !== undefined ? String(values[k]) : ""; }) : said;
  }
  var ICON_NAMES = { town: _("town (numbered)"), treasure: _("treasure"), divine: _("divine sign (its chapter's number)"), god: _("God"), enemy: _("waiting enemy"), impassable: _("impassable") };

  /* --- building nodes --- */
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
  /* An element with attributes (in the order given; "text" sets its text) and children
     (strings become text nodes). */
  function el(tag, attrs, children) { return fill(document.createElement(tag), attrs, children); }
  function svg(tag, attrs, children) { return fill(document.createElementNS(SVGNS, tag), attrs, children); }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  /* --- a sheet --- */
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
  /* A value of the sheet's data: a track as a bar (a {current, max}, or a number the
     system gives a fixed maximum in ``meters``), a list as chips, a dict as labelled rows. */
  function value(v, key, meters) {
    if (v === null || v === undefined) return el("span", { "class": "no", text: "-" });
    if (v === true) return el("span", { "class": "yes", text: _("yes") });
    if (v === false) return el("span", { "class": "no", text: _("no") });
    if (typeof v === "number" && meters && meters[key]) return meter(v, meters[key]);
    if (typeof v !== "object") return el("span", { "class": "val", text: v });
    if (Array.isArray(v)) {
      if (!v.length) return el("span", { "class": "no", text: _("none") });
      return el("span", { "class": "chips" }, v.map(function (x) {
        return x !== null && typeof x === "object" ? el("div", { "class": "item" }, [value(x, key, meters)]) : el("span", { "class": "chip", text: x });
      }));
    }
    if (typeof v.current === "number" && typeof v.max === "number" && Object.keys(v).length === 2) return meter(v.current, v.max);
    if (typeof v.text === "string" && typeof v.day === "number") return el("span", { "class": "val", text: v.text });
    var keys = Object.keys(v);
    if (!keys.length) return el("span", { "class": "no", text: _("none") });
    return el("div", { "class": "nested" }, keys.map(function (k) { return kv(label(k), value(v[k], k, meters), key + "." + k); }));
  }
  /* One labelled row: <div class="kv" data-key=KEY><span class="k">LABEL</span><span>VALUE</span></div>. */
  function kv(name, shown, key) {
    return el("div", { "class": "kv" + (name ? "" : " bare"), "data-key": key }, [
      name ? el("span", { "class": "k", text: name }) : null,
      el("span", {}, [shown])
    ]);
  }
  /* A row of the layout's view ({key, label, value, max?, text?}): a track as a bar (its
     worded text beside it), a worded value as text, anything else as its data. */
  function rowValue(r, meters) {
    if (typeof r.max === "number" && typeof r.value === "number") {
      var m = meter(r.value, r.max);
      if (typeof r.text === "string" && r.text) m.appendChild(el("span", { "class": "muted", text: r.text }));
      return m;
    }
    if (typeof r.text === "string") return el("span", { "class": "val", text: r.text });
    return value(r.value, r.key, meters);
  }
  function row(r, meters) { return kv(r.label, rowValue(r, meters), r.key); }
  function headline(box, v, meters) {
    clear(box);
    v.headline.forEach(function (r) { box.appendChild(row(r, meters)); });
    return box;
  }
  /* The layout's sections; ``opts.row(r)`` may give the node a row shows instead of its
     value (the live table's controls), ``opts.meters`` the fixed maxima. */
  function sections(box, v, opts) {
    opts = opts || {};
    v.sections.forEach(function (s) {
      box.appendChild(el("div", { "class": "sheet-section" }, [el("h3", { text: s.title })].concat(
        s.rows.map(function (r) {
          var own = opts.row ? opts.row(r) : null;
          return own ? kv(r.label, own, r.key) : row(r, opts.meters);
        }))));
    });
    return box;
  }
  var INTERNAL = { view: 1, luck_index: 1, campaign: 1, hints: 1, controls: 1, choices: 1 };
  /* The whole sheet: its ``view`` (the system's layout) when there is one (title, the
     headline, the sections), else every field of the data, labelled. */
  function sheet(box, data, opts) {
    opts = opts || {};
    clear(box);
    var v = data.view;
    if (v) {
      box.appendChild(el("div", { "class": "sheet-title", text: v.title }));
      if (v.headline.length) box.appendChild(headline(el("div", { "class": "headline" }), v, opts.meters));
      sections(box, v, opts);
    } else {
      Object.keys(data).filter(function (k) { return !INTERNAL[k]; }).forEach(function (k) {
        box.appendChild(kv(label(k), value(data[k], k, opts.meters), k));
      });
    }
    var luck = data.luck_index;
    if (luck && luck.judged) {
      box.appendChild(kv(_("Luck"), el("span", { "class": "val", text: _("{luck} ({successes} of {judged} judged rolls, {expected} expected)", {
        luck: luck.luck === null ? "-" : luck.luck.toFixed(2), successes: luck.successes, judged: luck.judged, expected: luck.expected.toFixed(1) }) }), "luck_index"));
    }
    return box;
  }

  /* --- a hex map: a list of hexes (q, r, terrain, icon, number, chapter, enemy, days, here) --- */
  var SIZE = 16;
  function centre(q, r) { return [1.5 * SIZE * q, SQ3 * SIZE * (r + q / 2)]; }
  function corners(x, y, s) {
    var pts = [];
    for (var i = 0; i < 6; i++) {
      var a = Math.PI / 3 * i;
      pts.push((x + s * Math.cos(a)).toFixed(1) + "," + (y + s * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }
  /* The box around every hex of several maps (the report's steps), so that the map keeps
     its place while the reader moves through time: [x, y, width, height]. */
  function hexExtent(maps) {
    var xs = [], ys = [];
    maps.forEach(function (entries) { (entries || []).forEach(function (e) { var c = centre(e.q, e.r); xs.push(c[0]); ys.push(c[1]); }); });
    if (!xs.length) return null;
    var pad = SIZE * 1.3, least = [10.5 * SIZE, 7.5 * SQ3 * SIZE]; /* at least seven hexes across and five down */
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs), y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    var w = Math.max(least[0], x1 - x0 + 2 * pad), h = Math.max(least[1], y1 - y0 + 2 * pad);
    return [(x0 + x1 - w) / 2, (y0 + y1 - h) / 2, w, h];
  }
  function palette(legend) {
    var colors = {};
    ((legend && legend.terrains) || []).forEach(function (t, i) { colors[t] = TERRAIN[t] || SPARE[i % SPARE.length]; });
    var pick = function (t) {
      if (!colors[t]) colors[t] = TERRAIN[t] || SPARE[Object.keys(colors).length % SPARE.length];
      return colors[t];
    };
    pick.known = colors;
    return pick;
  }
  function icon(kind, x, y) {
    var g = svg("g", { "class": "icon icon-" + kind, transform: "translate(" + x.toFixed(1) + "," + y.toFixed(1) + ")" });
    (ICONS[kind] || []).forEach(function (p) { g.appendChild(svg(p[0], p[1])); });
    return g;
  }
  var palettes = {};
  function colorsFor(legend) {
    var key = JSON.stringify((legend && legend.terrains) || []);
    if (!palettes[key]) palettes[key] = palette(legend);
    return palettes[key];
  }
  /* The hexes into ``box`` (an SVG, sized to ``opts.extent`` or to the hexes). */
  function hexMap(box, entries, opts) {
    opts = opts || {};
    clear(box);
    if (!entries || !entries.length) { box.appendChild(el("p", { "class": "empty", text: _("nothing explored yet") })); return null; }
    var colorOf = colorsFor(opts.legend), path = [], here = null, used = {};
    var hexes = svg("g", { "class": "hexes" }), marks = svg("g", {});
    entries.forEach(function (e) {
      var c = centre(e.q, e.r);
      var days = e.days || [];
      var tip = "(" + e.q + "," + e.r + ") " + (e.terrain ? (opts.legend && opts.legend.names && opts.legend.names[e.terrain]) || e.terrain : _("unexplored")) + (e.icon ? ", " + e.icon + (e.number ? " " + e.number : "") : "") +
        (e.chapter ? " (" + e.chapter + ")" : "") + (e.enemy ? ", " + e.enemy : "") + (days.length ? ", " + _("walked on step {steps}", { steps: days.join(", ") }) : "");
      hexes.appendChild(svg("polygon", {
        "class": e.terrain ? "hex" : "hex unknown", points: corners(c[0], c[1], SIZE - 0.6), fill: e.terrain ? colorOf(e.terrain) : null,
        "data-q": e.q, "data-r": e.r, "data-terrain": e.terrain || "", "data-icon": e.icon || "", "data-here": e.here ? "1" : null
      }, [svg("title", { text: tip })]));
      if (e.icon && ICONS[e.icon]) {
        used[e.icon] = 1;
        marks.appendChild(svg("use", { href: "#icon-" + e.icon, x: c[0].toFixed(1), y: (c[1] - (e.number ? 2 : 0)).toFixed(1) }));
      }
      if (e.number !== null && e.number !== undefined) marks.appendChild(svg("text", { "class": "hex-num", x: c[0].toFixed(1), y: (c[1] + 12).toFixed(1), text: e.number }));
      days.forEach(function (d) { path.push([d, c]); });
      if (e.here) here = c;
    });
    path.sort(function (a, b) { return a[0] - b[0]; });
    var box4 = opts.extent || hexExtent([entries]);
    /* each icon drawn once, then used on every hex that has it */
    var defs = svg("defs", {}, Object.keys(used).map(function (k) { var g = icon(k, 0, 0); g.removeAttribute("transform"); g.setAttribute("id", "icon-" + k); return g; }));
    var root = svg("svg", { viewBox: box4.map(function (n) { return n.toFixed(1); }).join(" "), role: "img", "aria-label": opts.label || _("hex map") }, [
      defs,
      hexes,
      svg("polyline", { "class": "path", points: path.map(function (p) { return p[1][0].toFixed(1) + "," + p[1][1].toFixed(1); }).join(" ") })
    ]);
    path.forEach(function (p) { root.appendChild(svg("circle", { "class": "path-dot", r: 1.8, cx: p[1][0].toFixed(1), cy: p[1][1].toFixed(1) })); });
    root.appendChild(marks);
    if (here) {
      root.appendChild(svg("circle", { "class": "here-ring", r: (SIZE * 0.78).toFixed(1), cx: here[0].toFixed(1), cy: here[1].toFixed(1) }));
      root.appendChild(svg("circle", { "class": "here-dot", id: "here", r: 4, cx: here[0].toFixed(1), cy: here[1].toFixed(1) }));
    }
    box.appendChild(root);
    return root;
  }
  function swatch(color, name, dashed) {
    var i = el("i", { "class": dashed ? "dashed" : null });
    i.style.background = color;
    return el("span", {}, [i, name]);
  }
  function mark(kind, name) {
    return el("span", {}, [svg("svg", { viewBox: "-8 -8 16 16" }, [icon(kind, 0, 0)]), name]);
  }
  /* The hex map's legend: its terrains in table order, the icons, the divine signs. */
  function hexLegend(box, legend) {
    clear(box);
    var colorOf = colorsFor(legend);
    var names = (legend && legend.names) || {};
    Object.keys(colorOf.known).forEach(function (t) { box.appendChild(swatch(colorOf(t), names[t] || t)); });
    box.appendChild(swatch("#e7e2d6", _("unexplored"), true));
    Object.keys(ICONS).forEach(function (k) { box.appendChild(mark(k, _(ICON_NAMES[k]))); });
    var signs = (legend && legend.divine_signs) || {};
    Object.keys(signs).forEach(function (n) {
      box.appendChild(el("span", { "class": "sign" }, [svg("svg", { viewBox: "-8 -8 16 16" }, [icon("divine", 0, 0)]), n + " " + signs[n]]));
    });
    box.appendChild(el("span", {}, [svg("svg", { viewBox: "-8 -8 16 16" }, [svg("path", { d: "M-7 0 H7", "class": "path" })]), _("path walked")]));
    box.appendChild(el("span", {}, [svg("svg", { viewBox: "-8 -8 16 16" }, [svg("circle", { r: 6, "class": "here-ring" }), svg("circle", { r: 2.5, "class": "here-dot" })]), _("you are here")]));
    return box;
  }

  /* --- a grid of named sectors: their cells, the path, the position, the ark --- */
  function colName(c) {
    var n = "";
    c += 1;
    while (c) { var m = (c - 1) % 26; n = String.fromCharCode(65 + m) + n; c = Math.floor((c - 1) / 26); }
    return n;
  }
  /* The columns and rows every Zone of several (the report's steps) covers: [c0, c1, r0, r1]. */
  function zoneExtent(zones) {
    var cols = [], rows = [];
    zones.forEach(function (z) {
      if (!z || !z.cells) return;
      Object.keys(z.cells).forEach(function (n) { cols.push(z.cells[n][0]); rows.push(z.cells[n][1]); });
    });
    if (!cols.length) return null;
    return [Math.min.apply(null, cols), Math.max.apply(null, cols), Math.min.apply(null, rows), Math.max.apply(null, rows)];
  }
  function zoneMap(box, z, opts) {
    opts = opts || {};
    clear(box);
    var extent = opts.extent || zoneExtent([z]);
    if (!z || !extent || !Object.keys(z.cells || {}).length) { box.appendChild(el("p", { "class": "empty", text: _("no sectors yet") })); return null; }
    var c0 = extent[0], c1 = extent[1], r0 = extent[2], r1 = extent[3];
    var s = 44, m = 22, w = (c1 - c0 + 1) * s + m, h = (r1 - r0 + 1) * s + m;
    var root = svg("svg", { viewBox: "0 0 " + w + " " + h, role: "img", "aria-label": opts.label || "the Zone", "class": "zone" });
    root.style.maxWidth = Math.round(w * 1.5) + "px";
    var c, r;
    for (c = c0; c <= c1; c++) root.appendChild(svg("text", { "class": "tick", x: m + (c - c0 + 0.5) * s, y: 14, "text-anchor": "middle", text: colName(c) }));
    for (r = r0; r <= r1; r++) root.appendChild(svg("text", { "class": "tick", x: 10, y: m + (r - r0 + 0.55) * s, "text-anchor": "middle", text: r }));
    for (c = c0; c <= c1; c++) for (r = r0; r <= r1; r++) {
      root.appendChild(svg("rect", { x: m + (c - c0) * s + 1, y: m + (r - r0) * s + 1, width: s - 2, height: s - 2, fill: "#efeae0", rx: 3 }));
    }
    var centres = {};
    Object.keys(z.cells).forEach(function (n) {
      var cell = z.cells[n], sec = z.sectors[n] || { rot_level: 0, explored: false, visits: 0 };
      var x = m + (cell[0] - c0) * s, y = m + (cell[1] - r0) * s;
      centres[n] = [x + s / 2, y + s / 2];
      root.appendChild(svg("rect", {
        "class": "sector" + (sec.explored ? "" : " entered"), "data-sector": n, "data-rot": sec.rot_level, "data-here": n === z.position ? "1" : null,
        x: x + 1, y: y + 1, width: s - 2, height: s - 2, rx: 3, fill: ROT[Math.min(sec.rot_level, ROT.length - 1)]
      }, [svg("title", { text: n + ": " + _("Rot level {level}", { level: sec.rot_level }) + ", " + (sec.explored ? _("explored") : _("entered only")) + ", " + _("{n} visit(s)", { n: sec.visits || 0 }) })]));
      root.appendChild(svg("text", { "class": "sector-name", x: x + s / 2, y: y + 13, text: n }));
      root.appendChild(svg("text", { "class": "sector-name", x: x + s / 2, y: y + s - 6, text: n === z.ark ? _("ARK") : _("rot {level}", { level: sec.rot_level }) }));
    });
    root.appendChild(svg("polyline", { "class": "path", points: (z.path || []).filter(function (n) { return centres[n]; }).map(function (n) { return centres[n].join(","); }).join(" ") }));
    if (z.position && centres[z.position]) {
      var p = centres[z.position];
      root.appendChild(svg("circle", { "class": "here-ring", r: s * 0.42, cx: p[0], cy: p[1] }));
      root.appendChild(svg("circle", { "class": "here-dot", id: "here", r: 4.5, cx: p[0], cy: p[1] }));
    }
    box.appendChild(root);
    return root;
  }
  function zoneLegend(box) {
    clear(box);
    ROT.slice(0, 4).forEach(function (color, i) { box.appendChild(swatch(color, _("Rot level {level}", { level: i }))); });
    var entered = swatch("#cfe6c4", _("entered, not explored"));
    entered.firstChild.style.opacity = ".55";
    box.appendChild(entered);
    box.appendChild(el("span", {}, [svg("svg", { viewBox: "-8 -8 16 16" }, [svg("path", { d: "M-7 0 H7", "class": "path" })]), _("path of the party")]));
    box.appendChild(el("span", {}, [svg("svg", { viewBox: "-8 -8 16 16" }, [svg("circle", { r: 6, "class": "here-ring" }), svg("circle", { r: 2.5, "class": "here-dot" })]), _("the party")]));
    return box;
  }

  window.LedgerDraw = {
    el: el, svg: svg, clear: clear, label: label, meter: meter, value: value, kv: kv, row: row,
    sheet: sheet, headline: headline, sections: sections,
    hexMap: hexMap, hexExtent: hexExtent, hexLegend: hexLegend,
    zoneMap: zoneMap, zoneExtent: zoneExtent, zoneLegend: zoneLegend
  };
})();
