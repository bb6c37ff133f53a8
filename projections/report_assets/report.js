/* The campaign report: draws the data that the ledger embedded (projections/report.py).
   Nothing is computed about the game here: every sheet, map and journal of every
   step was folded from the log; the page only chooses which step to show.
   The URL fragment picks a step on load: #day=12, #v=140 or #step=30. The sheet, the map
   and their legends are drawn by the module the live table draws with (draw.js, inlined
   before this script: window.LedgerDraw). */
(function () {
  "use strict";
  var t0 = performance.now();
  var Draw = window.LedgerDraw;
  var D = JSON.parse(document.getElementById("report-data").textContent);
  /* The report's words in its language (projections/report.py puts them in, each under its
     English; English needs none): t("day {day}", {day: 3}) is "día 3" in Spanish. */
  var WORDS = JSON.parse(document.getElementById("report-data").getAttribute("data-words") || "{}");
  var DEC = WORDS["."] || ".";
  function t(text, fields) {
    var found = WORDS[text] || text;
    return fields ? found.replace(/\{(\w+)\}/g, function (m, k) { return k in fields ? fields[k] : m; }) : found;
  }
  /* a count and its noun in agreement, as the language agrees them: counted(2, "{n} roll", "{n} rolls") */
  function counted(n, one, many, fields) {
    var forms = WORDS[one + "|" + many] || [one, many];
    var f = fields || {};
    f.n = n;
    return t(n === 1 ? forms[0] : forms[1], f);
  }
  function num(text) { return String(text).replace(".", DEC); }
  var P = D.pool;
  var steps = D.steps;
  var current = -1;
  var who = null, wanted = D.focus || null; /* the sheet shown; the character the reader asked for */
  var COLORS = ["#b5542d", "#2d6fb5", "#3f8f4e", "#8e44ad", "#d68910", "#16a085", "#7f8c8d", "#c0392b"];
  function $(id) { return document.getElementById(id); }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  function label(key) { return String(key).replace(/_/g, " "); }
  function fmt(n) { return n === null || n === undefined ? "-" : num((Math.round(n * 100) / 100).toString()); }
  function signed(n) { return n === null || n === undefined ? "-" : (n > 0 ? "+" : "") + num(n.toFixed(2)); }
  function hasDays() { return Object.keys(D.days).length > 0; }
  function when(step) {
    return (step.day !== null && step.day !== undefined ? t("day {day}", { day: step.day }) + " \u00b7 " : "") + "v" + step.v;
  }

  /* --- the header and the footer --- */
  function header() {
    $("title").textContent = D.campaign;
    var parent = D.parent ? " \u00b7 " + t("forked from {name} at v{version}", { name: D.parent.name, version: D.parent.at }) : "";
    $("subtitle").textContent = D.system + ": " + D.description + parent;
    var last = steps[steps.length - 1] || { day: null, v: 0 };
    var pills = [];
    if (last.day !== null) pills.push(t("<b>{n}</b> days", { n: esc(last.day) }));
    pills.push(t("<b>{n}</b> events", { n: D.chain.head }));
    pills.push(t("<b>{n}</b> actions", { n: steps.length }));
    if (D.characters.length) pills.push(esc(D.characters.join(", ")));
    var undone = D.log.filter(function (r) { return r.status === "undone"; }).length;
    if (undone) pills.push(t("<b>{n}</b> undone", { n: undone }));
    $("summary").innerHTML = pills.map(function (p) { return '<span class="pill">' + p + "</span>"; }).join("");
    $("chain").innerHTML =
      "<div>" + t("Chain head: event <b>v{head}</b>, sha256 {hash}", { head: D.chain.head, hash: "<code id=\"head-hash\">" + esc(D.chain.hash) + "</code>" }) + "</div>" +
      "<div>" + t("Each event's hash covers its stored bytes, which include the previous event's hash, so this one hash seals the whole branch. To check it, run {verify} on the ledger (it re-hashes every event and prints the head) or import the export with {import} (refused if any byte was edited); the head it reports must equal the hash above.",
      { verify: "<code>" + esc(D.chain.verify) + "</code>", "import": "<code>ledger import FILE</code>" }) + "</div>";
  }


  /* --- the sheet --- */
  function sheet(step) {
    var names = Object.keys(step.sheets);
    who = names.indexOf(wanted) >= 0 ? wanted : names.indexOf(who) >= 0 ? who : names.length ? names[0] : null;
    $("who").innerHTML = names.length > 1 ? names.map(function (n) {
      return '<button type="button" role="tab" data-who="' + esc(n) + '" aria-selected="' + (n === who) + '">' + esc(n) + "</button>";
    }).join("") : "";
    $("sheet-when").textContent = when(step);
    var box = Draw.clear($("sheet"));
    if (who === null) { box.appendChild(Draw.el("p", { "class": "empty", text: t("no sheet yet") })); return; }
    box.setAttribute("data-who", who);
    var laid = step.views ? step.views[who] : null;
    if (laid !== null && laid !== undefined) {
      /* A sheet as its system's layout reads it (projections/sheets.py view). */
      var packed = P[laid];
      var view = { title: P[packed[0]], headline: P[packed[1]], sections: packed[2].map(function (i) { return P[i]; }) };
      box.appendChild(Draw.sheet(Draw.el("div", { "class": "laid" }), { view: view }, { meters: D.meters }));
      return;
    }
    var data = {}, kv = P[step.sheets[who]];
    P[kv[0]].forEach(function (k, j) { data[k] = P[kv[1][j]]; });
    Draw.sheet(box, data, { meters: D.meters });
  }

  /* --- the map: hexes (map_kind "hex") or a grid of named sectors ("zone"), kept in one
     frame over every step, so it does not jump as the reader moves --- */
  function mapOf(step) {
    if (step.map === null) return null;
    var found = P[step.map];
    return D.map_kind === "hex" ? found.map(function (i) { return P[i]; }) : found;
  }
  var mapFrame = null;
  function drawMap(step) {
    if (mapFrame === null) {
      var every = steps.map(mapOf);
      mapFrame = (D.map_kind === "hex" ? Draw.hexExtent(every) : Draw.zoneExtent(every)) || false;
    }
    var label = D.map_kind === "hex" ? t("hex map at {when}", { when: when(step) }) : t("the Zone at {when}", { when: when(step) });
    if (D.map_kind === "hex") Draw.hexMap($("map"), mapOf(step), { legend: D.legend, extent: mapFrame || null, label: label });
    else Draw.zoneMap($("map"), mapOf(step), { extent: mapFrame || null, label: label });
  }

  /* --- charts --- */
  var X0 = 44, X1 = 510, Y0 = 12, Y1 = 170, W = 520, H = 206;
  function xScale(n) { return function (i) { return X0 + (n <= 1 ? 0 : (X1 - X0) * i / (n - 1)); }; }
  function niceStep(v) {
    var raw = Math.max(v, 1) / 5, p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    return Math.max(1, (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p);
  }
  function niceMax(v) { var st = niceStep(v); return Math.max(st, Math.ceil(v / st) * st); }
  /* The x-axis ticks of a chart over the steps: with game days, each tick is a day (at the
     first step of that day, no day twice, up to 7 evenly picked); without, versions. */
  function stepTicks(n) {
    var days = hasDays(), idx = [], last = null, ticks = [], seen = {};
    for (var j = 0; j < n; j++) {
      if (!days) idx.push(j);
      else if (steps[j].day !== null && steps[j].day !== last) { idx.push(j); last = steps[j].day; }
    }
    var count = Math.min(7, idx.length);
    for (var k = 0; k < count; k++) {
      var at = idx[idx.length <= 1 ? 0 : Math.round(k * (idx.length - 1) / (count - 1 || 1))];
      if (seen[at]) continue;
      seen[at] = 1;
      ticks.push([at, days ? String(steps[at].day) : "v" + steps[at].v]);
    }
    return ticks;
  }
  function frame(yMax, ticksX, xTitle, yTitle) {
    var y = function (v) { return Y1 - (Y1 - Y0) * v / yMax; };
    var parts = [];
    var st = niceStep(yMax);
    for (var v = 0; v <= yMax + 1e-9; v += st) {
      parts.push('<line class="gridline" x1="' + X0 + '" x2="' + X1 + '" y1="' + y(v).toFixed(1) + '" y2="' + y(v).toFixed(1) + '"/>');
      parts.push('<text class="tick" x="' + (X0 - 5) + '" y="' + (y(v) + 3).toFixed(1) + '" text-anchor="end">' + fmt(v) + "</text>");
    }
    ticksX.forEach(function (t) {
      parts.push('<line class="axis" x1="' + t[0].toFixed(1) + '" x2="' + t[0].toFixed(1) + '" y1="' + Y1 + '" y2="' + (Y1 + 4) + '"/>');
      parts.push('<text class="tick" x="' + t[0].toFixed(1) + '" y="' + (Y1 + 15) + '" text-anchor="middle">' + esc(t[1]) + "</text>");
    });
    parts.push('<line class="axis" x1="' + X0 + '" x2="' + X1 + '" y1="' + Y1 + '" y2="' + Y1 + '"/>');
    parts.push('<line class="axis" x1="' + X0 + '" x2="' + X0 + '" y1="' + Y0 + '" y2="' + Y1 + '"/>');
    parts.push('<text class="axis-title" x="' + ((X0 + X1) / 2) + '" y="' + (H - 4) + '" text-anchor="middle">' + esc(xTitle) + "</text>");
    parts.push('<text class="axis-title" transform="rotate(-90)" x="' + (-(Y0 + Y1) / 2) + '" y="11" text-anchor="middle">' + esc(yTitle) + "</text>");
    return { y: y, svg: parts.join("") };
  }
  function trackChart(chart, index) {
    var series = chart.series.map(function (i) { return D.tracks[i]; });
    var n = steps.length, x = xScale(n), top = 1;
    series.forEach(function (t) {
      if (t.max) top = Math.max(top, t.max);
      t.values.forEach(function (v) { if (v !== null && v > top) top = v; });
    });
    top = niceMax(top);
    var f = frame(top, stepTicks(n).map(function (t) { return [x(t[0]), t[1]]; }), hasDays() ? t("day") : t("version"), chart.bars ? t("days") : t("value"));
    var body = [];
    series.forEach(function (t, k) {
      var color = COLORS[k % COLORS.length];
      if (chart.bars) {
        var bw = Math.max(1, (X1 - X0) / Math.max(n, 1) * 0.9);
        t.values.forEach(function (v, i) {
          if (v) body.push('<rect x="' + (x(i) - bw / 2).toFixed(1) + '" y="' + f.y(v).toFixed(1) + '" width="' + bw.toFixed(1) + '" height="' + (Y1 - f.y(v)).toFixed(1) + '" fill="' + color + '" opacity=".8"/>');
        });
        return;
      }
      var d = "", pen = false;
      t.values.forEach(function (v, i) {
        if (v === null) { pen = false; return; }
        d += (pen ? "L" : "M") + x(i).toFixed(1) + " " + f.y(v).toFixed(1);
        pen = true;
      });
      body.push('<path d="' + d + '" fill="none" stroke="' + color + '" stroke-width="2"/>');
    });
    var key = series.map(function (t, k) {
      return '<span><i style="background:' + COLORS[k % COLORS.length] + '"></i>' + esc(t.name) + (showWho(t, chart) ? " (" + esc(t.character) + ")" : "") + "</span>";
    }).join("");
    return '<div class="chart" data-chart="' + index + '"><h3>' + esc(chart.title) + '</h3><svg viewBox="0 0 ' + W + " " + H + '" role="img" aria-label="' + esc(chart.title) + '">' +
      f.svg + body.join("") + '<line class="cursor" x1="0" x2="0" y1="' + Y0 + '" y2="' + Y1 + '"/></svg><div class="legend">' + key + '</div><div class="now"></div></div>';
  }
  function showWho(t, chart) { return D.characters.length > 1 && t.character && chart.title.indexOf(t.character) < 0; }
  function charts() {
    if (!D.charts.length) { $("charts-card").hidden = true; return; } /* nothing to chart: no empty panel */
    $("charts").innerHTML = D.charts.map(trackChart).join("");
  }
  function moveCursors(i) {
    var x = xScale(steps.length)(i);
    document.querySelectorAll("#charts .chart").forEach(function (el) {
      var line = el.querySelector(".cursor");
      line.setAttribute("x1", x.toFixed(1));
      line.setAttribute("x2", x.toFixed(1));
      var chart = D.charts[+el.getAttribute("data-chart")];
      el.querySelector(".now").textContent = t("at {when}: {values}", { when: when(steps[i]), values: chart.series.map(function (k) {
        var track = D.tracks[k];
        return track.name + (showWho(track, chart) ? " (" + track.character + ")" : "") + " " + fmt(track.values[i]);
      }).join(", ") });
    });
  }

  /* --- rolls against expectation --- */
  function rollsChart() {
    var R = D.rolls, pts = R.points;
    if (!pts.length) { $("rolls-card").hidden = true; $("journal-card").classList.add("wide"); return; } /* no judged roll */
    var n = pts.length, x = function (i) { return X0 + (n <= 1 ? 0 : (X1 - X0) * i / (n - 1)); };
    var top = niceMax(Math.max(pts[n - 1].s, pts[n - 1].e + pts[n - 1].sd, 1));
    var ticks = [], count = Math.min(6, n);
    for (var k = 0; k < count; k++) { var i = Math.round(k * (n - 1) / (count - 1 || 1)); ticks.push([x(i), String(i + 1)]); }
    var f = frame(top, ticks, t("roll number"), t("successes"));
    var upper = pts.map(function (p, i) { return x(i).toFixed(1) + "," + f.y(p.e + p.sd).toFixed(1); });
    var lower = pts.map(function (p, i) { return x(i).toFixed(1) + "," + f.y(Math.max(0, p.e - p.sd)).toFixed(1); }).reverse();
    var exp = pts.map(function (p, i) { return (i ? "L" : "M") + x(i).toFixed(1) + " " + f.y(p.e).toFixed(1); }).join("");
    var got = pts.map(function (p, i) { return (i ? "L" : "M") + x(i).toFixed(1) + " " + f.y(p.s).toFixed(1); }).join("");
    var marks = pts.map(function (p, i) {
      return '<circle r="2.4" cx="' + x(i).toFixed(1) + '" cy="' + f.y(p.s).toFixed(1) + '" fill="' + (p.ok ? "#3f8f4e" : "#c0392b") + '"><title>' +
        esc("#" + (i + 1) + " " + p.purpose + (p.who ? " (" + p.who + ")" : "") + ": p=" + num(p.p) + ", " + (p.ok ? t("success") : t("failure")) + ", v" + p.v) + "</title></circle>";
    }).join("");
    var A = R.every, luckClass = A.luck > 0 ? "pos" : A.luck < 0 ? "neg" : "";
    var actors = R.actors.length > 1 ? '<table class="mini"><tr><th>' + t("who") + "</th><th>" + t("rolls") + "</th><th>" + t("successes") + "</th><th>" + t("expected") + "</th><th>" + t("luck") + "</th></tr>" +
      R.actors.map(function (a) {
        return "<tr><td>" + esc(a.who || "-") + "</td><td>" + a.rolls + "</td><td>" + a.successes + "</td><td>" + num(a.expected) + "</td><td>" + signed(a.luck) + "</td></tr>";
      }).join("") + "</table>" : "";
    $("rolls").innerHTML =
      '<div><span class="luck ' + luckClass + '" id="luck-total">' + signed(A.luck) + '</span> <span class="muted">' +
      t("luck index over every die thrown, {rolls} ({undone} undone): {successes} where {expected} were expected", {
        rolls: counted(A.rolls, "{n} roll", "{n} rolls"), undone: A.undone,
        successes: counted(A.successes, "{n} success", "{n} successes"), expected: num(A.expected) }) + "</span></div>" +
      '<div class="muted small" id="luck-kept">' +
      t("kept luck {luck} over the {rolls} that stayed: {successes} where {expected} were expected (the chart)", {
        luck: signed(R.luck), rolls: counted(n, "{n} roll", "{n} rolls"),
        successes: counted(R.successes, "{n} success", "{n} successes"), expected: num(R.expected) }) + "</div>" +
      '<div class="chart"><svg viewBox="0 0 ' + W + " " + H + '" role="img" aria-label="' + esc(t("successes against expectation")) + '">' + f.svg +
      '<polygon points="' + upper.concat(lower).join(" ") + '" fill="#2d6fb5" opacity=".13"/>' +
      '<path d="' + exp + '" fill="none" stroke="#2d6fb5" stroke-width="2" stroke-dasharray="5 3"/>' +
      '<path d="' + got + '" fill="none" stroke="#b5542d" stroke-width="2"/>' + marks +
      '<line class="cursor" id="roll-cursor" x1="0" x2="0" y1="' + Y0 + '" y2="' + Y1 + '"/></svg>' +
      '<div class="legend"><span><i style="background:#b5542d"></i>' + t("successes so far") + '</span><span><i style="background:#2d6fb5"></i>' + t("expected (sum of p), band: one standard deviation") + "</span></div>" +
      '<div class="now" id="roll-now"></div></div>' +
      '<p class="muted small">' + t("Luck index = (successes - sum of p) / sqrt(sum of p(1-p)), with p the exact probability of success of each roll, recorded when it was rolled. About 0 is average luck; beyond +2 or -2 is rare.") + "</p>" + actors;
    rollsX = x;
  }
  var rollsX = null;
  function rollsAt(i) {
    var pts = D.rolls.points;
    if (!pts.length) return;
    var k = -1;
    while (k + 1 < pts.length && pts[k + 1].step <= i) k++;
    var cursor = $("roll-cursor");
    var x = k < 0 ? X0 : rollsX(k);
    cursor.setAttribute("x1", x.toFixed(1));
    cursor.setAttribute("x2", x.toFixed(1));
    $("roll-now").textContent = k < 0 ? t("at {when}: no roll yet", { when: when(steps[i]) }) :
      t("at {when}: {rolls} rolls, {successes} successes, {expected} expected, luck index {luck}",
        { when: when(steps[i]), rolls: k + 1, successes: pts[k].s, expected: fmt(pts[k].e), luck: signed(pts[k].luck) });
  }

  /* --- journal and log --- */
  /* The log keeps a window of rows around the current step drawn (a long campaign has
     thousands of events); "whole log" draws every row. */
  var BEFORE = 150, AFTER = 60, wholeLog = false;
  var byV = {};
  D.log.forEach(function (r, k) { byV[r.v] = k; });
  function logRow(r, step, action) {
    var badge = r.status === "undone" ? '<span class="badge undone">' + t("undone") + "</span>" : r.status === "reset" ? '<span class="badge reset">' + (r.kind === "action.redone" ? t("redo") : t("undo")) + "</span>" :
      r.status === "fork" ? '<span class="badge fork">' + t("fork") + "</span>" : "";
    var forks = r.forks.map(function (n) { return '<span class="badge fork">' + t("branch {name} forks here", { name: esc(n) }) + "</span>"; }).join("");
    if (r.dice) badge += '<span class="badge dice ' + esc(r.dice) + '">' + t("{kind} dice", { kind: esc(r.dice) }) + "</span>";
    var cls = "row " + r.status + (r.v > step.v ? " future" : "") + (r.action === action && r.v <= step.v && inSegments(r.v, step.segments) ? " current" : "");
    return '<div data-v="' + r.v + '" class="' + cls + '"><span class="v">' + r.v + "</span><span>" + (r.day === null ? "" : r.day) + "</span><span>" + esc(r.actor || "") +
      '</span><span class="text">' + esc(r.text) + "</span><span>" + badge + forks + "</span></div>";
  }
  function log() {
    $("log-more").addEventListener("click", function () { wholeLog = !wholeLog; logAt(steps[current]); });
  }
  function inSegments(v, segs) {
    for (var k = 0; k < segs.length; k++) if (v > segs[k][0] && v <= segs[k][1]) return true;
    return false;
  }
  function logAt(step) {
    var at = byV[step.v], action = D.log[at].action;
    var lo = wholeLog ? 0 : Math.max(0, at - BEFORE), hi = wholeLog ? D.log.length : Math.min(D.log.length, at + AFTER + 1);
    var rows = [];
    for (var k = lo; k < hi; k++) rows.push(logRow(D.log[k], step, action));
    var box = $("log");
    box.innerHTML = '<div class="row head"><span>v</span><span>' + t("day") + "</span><span>" + t("who") + "</span><span>" + t("event") + "</span><span></span></div>" + rows.join("");
    $("log-more").textContent = wholeLog ? t("only around this step") : t("whole log ({n} events)", { n: D.log.length });
    $("log-range").textContent = lo > 0 || hi < D.log.length ? t("showing v{from} to v{to} of {n} events", { from: D.log[lo].v, to: D.log[hi - 1].v, n: D.log.length }) : "";
    var target = box.querySelector(".row.current");
    if (target) box.scrollTop = Math.max(0, target.offsetTop - box.clientHeight / 2);
  }
  function journal(step) {
    var items;
    if (step.journal) {
      items = step.journal.map(function (i) { var row = P[i]; return [row.day !== undefined && row.day !== null ? t("day {day}", { day: row.day }) : "v" + row.version, row.text]; });
    } else {
      items = D.log.filter(function (r) {
        return r.v <= step.v && inSegments(r.v, step.segments) && r.kind !== "campaign.started" && r.kind !== "branch.forked";
      }).map(function (r) { return [r.day !== null ? t("day {day}", { day: r.day }) : "v" + r.v, (r.actor ? r.actor + ": " : "") + r.text]; });
    }
    $("journal-when").textContent = t("as of {when}", { when: when(step) });
    var box = $("journal");
    box.innerHTML = items.length ? items.map(function (it, k) {
      return "<li" + (k === items.length - 1 ? ' class="latest"' : "") + '><span class="when">' + esc(it[0]) + "</span><span>" + esc(it[1]) + "</span></li>";
    }).join("") : '<li class="empty">' + t("nothing yet") + "</li>";
    box.scrollTop = box.scrollHeight;
  }

  /* --- the timeline --- */
  function show(i) {
    i = Math.max(0, Math.min(steps.length - 1, i));
    if (i === current) return;
    current = i;
    var step = steps[i];
    $("slider").value = i;
    $("day-input").value = step.day === null ? "" : step.day;
    $("step-label").innerHTML = "<b>" + esc(when(step)) + "</b> \u00b7 " + esc(step.actor ? step.actor + ": " : "") + esc(step.what) +
      ' <span class="muted">(' + t("{i} of {n}", { i: i + 1, n: steps.length }) + ")</span>";
    sheet(step);
    if (D.map_kind) drawMap(step);
    journal(step);
    moveCursors(i);
    rollsAt(i);
    logAt(step);
    var b = document.body;
    b.setAttribute("data-step", i);
    b.setAttribute("data-version", step.v);
    b.setAttribute("data-day", step.day === null ? "" : step.day);
    b.setAttribute("data-who", who || "");
  }
  function stepOfVersion(v) {
    var k = 0;
    for (var i = 0; i < steps.length; i++) if (steps[i].v <= v) k = i;
    return k;
  }
  function stepOfDay(day) {
    var keys = Object.keys(D.days).map(Number).filter(function (d) { return d <= day; });
    if (!keys.length) return 0;
    return stepOfVersion(D.days[String(Math.max.apply(null, keys))]);
  }
  function dayList() { return Object.keys(D.days).map(Number).sort(function (x, y) { return x - y; }); }
  /* One day forward: to the end of the current day, or of the next; back: to the end of the day before. */
  function moveDay(delta) {
    var day = steps[current].day, days = dayList();
    if (day === null) { show(delta > 0 ? stepOfDay(days[0]) : 0); return; }
    if (delta > 0) {
      var end = stepOfDay(day);
      if (end > current) { show(end); return; }
      var later = days.filter(function (d) { return d > day; });
      show(later.length ? stepOfDay(later[0]) : steps.length - 1);
    } else {
      var earlier = days.filter(function (d) { return d < day; });
      show(earlier.length ? stepOfDay(earlier[earlier.length - 1]) : 0);
    }
  }
  function fromHash() {
    var h = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) { var p = kv.split("="); if (p[0]) h[p[0]] = decodeURIComponent(p[1] || ""); });
    if (h.who) wanted = h.who;
    if (h.step !== undefined) return +h.step;
    if (h.v !== undefined) return stepOfVersion(+h.v);
    if (h.day !== undefined) return stepOfDay(+h.day);
    return steps.length - 1;
  }
  /* #day=5&go=30: open at day 5, then move the slider to day 30 as a reader would
     (go=N is a day when the campaign has days, else a version; gov=N is always a version). */
  function moveSlider() {
    var m = /[#&](go|gov)=(\d+)/.exec(location.hash);
    if (!m || !steps.length) return;
    var slider = $("slider");
    document.body.setAttribute("data-moved-from", current);
    slider.value = m[1] === "go" && hasDays() ? stepOfDay(+m[2]) : stepOfVersion(+m[2]);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
  }
  function wire() {
    var slider = $("slider");
    slider.max = Math.max(0, steps.length - 1);
    slider.addEventListener("input", function () { show(+slider.value); });
    $("prev").addEventListener("click", function () { show(current - 1); });
    $("next").addEventListener("click", function () { show(current + 1); });
    $("prev-day").addEventListener("click", function () { moveDay(-1); });
    $("next-day").addEventListener("click", function () { moveDay(1); });
    if (!hasDays()) { $("prev-day").hidden = true; $("next-day").hidden = true; $("day-jump").hidden = true; }
    $("day-input").addEventListener("change", function () { if ($("day-input").value !== "") show(stepOfDay(+$("day-input").value)); });
    $("who").addEventListener("click", function (e) {
      var name = e.target.getAttribute && e.target.getAttribute("data-who");
      if (name !== null && name !== undefined) { wanted = name; var i = current; current = -1; show(i); }
    });
    document.addEventListener("keydown", function (e) {
      if (e.target.tagName === "INPUT" && e.target.type === "number") return;
      if (e.key === "ArrowLeft") show(current - 1);
      else if (e.key === "ArrowRight") show(current + 1);
      else if (e.key === "PageUp") moveDay(-1);
      else if (e.key === "PageDown") moveDay(1);
      else return;
      e.preventDefault();
    });
    window.addEventListener("hashchange", function () { show(fromHash()); });
  }

  var phases = [], mark = performance.now();
  function phase(name, fn) {
    fn();
    var now = performance.now();
    phases.push(name + ":" + (now - mark).toFixed(1));
    mark = now;
  }
  phases.push("parse:" + (mark - t0).toFixed(1));
  phase("header", header);
  phase("legend", function () {
    if (D.map_kind === "hex") Draw.hexLegend($("legend"), D.legend);
    else if (D.map_kind === "zone") Draw.zoneLegend($("legend"));
    else { $("map-card").hidden = true; $("sheet-card").classList.add("wide"); }
  });
  phase("charts", charts);
  phase("rolls", rollsChart);
  phase("log", log);
  phase("wire", wire);
  phase("show", function () { if (steps.length) show(fromHash()); });
  phase("move", moveSlider);
  document.body.setAttribute("data-phases", phases.join(" "));
  document.body.setAttribute("data-script-ms", (performance.now() - t0).toFixed(1));
  var height = document.body.offsetHeight; /* the first layout belongs to opening the page */
  document.body.setAttribute("data-height", height);
  document.body.setAttribute("data-open-ms", performance.now().toFixed(1));
  document.body.setAttribute("data-ready", "1");
})();
