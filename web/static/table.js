/* The live table's page (/t/<campaign>): everything comes from the API a bot or any other
   client uses (docs/api.md), and the page only draws it. The log follows the campaign's
   Server-Sent Events (EventSource resumes with Last-Event-ID by itself); the sheet, the
   map and the next steps are read again after each new event. The actions are built from
   each command's JSON Schema (GET /api/schema), so a plugin's commands get their buttons
   and forms too. Text from the ledger is only ever set as textContent. */
(function () {
  "use strict";
  var D = window.LedgerDraw, el = D.el, clear = D.clear;
  var campaign = decodeURIComponent(location.pathname.split("/")[2] || "");
  var API = "/api/c/" + encodeURIComponent(campaign);
  var S = {
    table: null, schema: null, seat: null, entries: {}, versions: [], head: 0, who: null,
    day: null, maxDay: 0, revealed: {}, verified: {}, commitments: [], seeded: {}, source: null,
    lost: false, form: null
  };

  function $(id) { return document.getElementById(id); }
  function isGM() { return S.seat && S.seat.role === "gm"; }
  function mayAct() { return S.seat && S.seat.role !== "watch" && S.seat.role !== "watcher"; }

  /* --- talking to the server --- */
  function notice(text, bad) {
    var box = $("notice");
    box.textContent = text;
    box.hidden = !text;
    box.className = "notice" + (bad ? " bad" : "");
  }
  function key() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return String(Date.now()) + "-" + Math.random().toString(16).slice(2);
  }
  function request(method, path, body) {
    var init = { method: method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.headers["Idempotency-Key"] = key();
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (answer) {
      return answer.text().then(function (raw) {
        var data = null;
        try { data = raw ? JSON.parse(raw) : null; } catch (e) { data = null; }
        if (!answer.ok) {
          var why = data && data.error ? data.error.message : "the server answered " + answer.status;
          var err = new Error(why);
          err.status = answer.status;
          err.body = data;
          throw err;
        }
        return data;
      });
    });
  }
  function refused(err) { notice(err.message, true); }
  function busy(on) {
    document.body.setAttribute("data-busy", on ? "1" : "0");
    Array.prototype.forEach.call(document.querySelectorAll("#act-card button, #gm button, #reveal-form button, #seed-form button"), function (b) { b.disabled = on; });
  }
  function write(path, body, done) {
    busy(true);
    return request("POST", API + path, body).then(function (answer) {
      busy(false);
      notice("");
      if (answer && typeof answer.version === "number") S.head = Math.max(S.head, answer.version);
      if (done) done(answer);
    }, function (err) { busy(false); refused(err); });
  }

  /* --- the header --- */
  function header() {
    var t = S.table;
    $("title").textContent = t.campaign;
    $("subtitle").textContent = t.system + (t.characters.length ? " \u00b7 " + t.characters.join(", ") : "");
    document.title = t.campaign + " \u00b7 live table";
    var seat = t.seat;
    $("seat").textContent = seat.role === "gm" ? "GM (" + seat.label + ")" :
      seat.character ? seat.character + " (" + seat.label + ")" : "watching (" + seat.label + ")";
  }
  function live(state) {
    $("live").setAttribute("data-state", state);
    $("live").textContent = state;
  }

  /* --- the log --- */
  var RESET_KINDS = { "action.undone": 1, "action.redone": 1 };
  var OPENS = { "campaign.started": 1, "branch.forked": 1, "dice.committed": 1 }; /* events that open a dice commitment */
  function diceState(d) {
    if (!d || !d.dice) return null;
    if (d.dice === "physical") return "physical";
    if (d.dice === "committed") return S.revealed[d.commitment] !== undefined ? "proven" : "pending";
    return "unproven";
  }
  /* The faces an entry shows: its decision's, or, for an event recorded without one (an
     older import), the dice its own data names. */
  function facesOf(e) {
    if (e.decision && e.decision.faces.length) return e.decision.faces;
    var ev = e.event || {}, found = Array.isArray(ev.dice) ? ev.dice : Array.isArray(ev.faces) ? ev.faces : [];
    return found.every(function (f) { return typeof f === "number"; }) ? found : [];
  }
  function entryNode(e) {
    var state = diceState(e.decision), shown = facesOf(e);
    if (!state && shown.length && e.event && e.event.manual === true) state = "physical";
    var li = el("li", {
      "class": "entry" + (e.undone ? " undone" : "") + (RESET_KINDS[e.kind] ? " reset" : "") + (e.kind === "branch.forked" ? " fork" : ""),
      "data-version": e.version, "data-kind": e.kind, "data-undone": e.undone ? "1" : "0"
    }, [
      el("span", { "class": "v", text: "v" + e.version }),
      el("span", { "class": "day", text: e.day === null || e.day === undefined ? "" : "day " + e.day }),
      el("span", { "class": "text" }, [
        e.who ? el("b", { "class": "who", text: e.who + ": " }) : null,
        el("span", { "class": "summary", text: e.summary })
      ]),
      el("span", { "class": "marks" }, [
        shown.length ? el("span", { "class": "faces", "aria-label": "dice faces" },
          shown.map(function (f) { return el("span", { "class": "die", text: f }); })) : null,
        state ? el("span", { "class": "badge dice " + state, "data-dice": state,
          title: state === "proven" && S.verified[e.decision.commitment] === true ? "the revealed seed hashes to the commitment" : "",
          text: state + (state === "proven" && S.verified[e.decision.commitment] === true ? " \u2713" : "") }) : null,
        e.undone ? el("span", { "class": "badge undone", text: "undone" }) : null,
        e.decision && e.decision.seat ? el("span", { "class": "seat-of muted", text: "by " + e.decision.seat }) : null
      ])
    ]);
    return li;
  }
  function place(e) {
    var old = S.entries[e.version];
    S.entries[e.version] = e;
    var node = entryNode(e), log = $("log");
    if (old && old.node) {
      log.replaceChild(node, old.node);
    } else {
      var after = null;
      for (var i = 0; i < log.children.length; i++) {
        if (+log.children[i].getAttribute("data-version") < e.version) { after = log.children[i]; break; }
      }
      log.insertBefore(node, after);
      S.versions.push(e.version);
    }
    e.node = node;
  }
  function learn(e) {
    var ev = e.event || {};
    if (OPENS[e.kind] && ev.commitment) {
      S.commitments.push(ev.commitment);
      S.seeded[ev.commitment] = ev.client_seed || "";
    } else if (e.kind === "dice.seeded") {
      S.seeded[ev.commitment] = ev.client_seed;
    } else if (e.kind === "dice.revealed") {
      S.revealed[ev.commitment] = ev.seed;
      verify(ev.commitment, ev.seed);
    }
    if (typeof e.day === "number" && e.day > S.maxDay) S.maxDay = e.day;
  }
  /* Each revealed seed is checked here too: its sha256 must be the commitment. */
  function verify(commitment, seed) {
    if (!(window.crypto && crypto.subtle) || !/^[0-9a-f]{64}$/.test(seed)) return;
    var bytes = new Uint8Array(32);
    for (var i = 0; i < 32; i++) bytes[i] = parseInt(seed.substr(2 * i, 2), 16);
    crypto.subtle.digest("SHA-256", bytes).then(function (h) {
      var hex = Array.prototype.map.call(new Uint8Array(h), function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
      S.verified[commitment] = hex === commitment;
      redrawCommitment(commitment);
      dicePanel();
    });
  }
  function redrawCommitment(commitment) {
    S.versions.forEach(function (v) {
      var e = S.entries[v];
      if (e.decision && e.decision.commitment === commitment) place(e);
    });
  }
  function receive(list) {
    var reset = false, people = false, reveal = false;
    list.forEach(function (e) {
      if (S.entries[e.version]) return; /* never twice */
      learn(e);
      place(e);
      if (RESET_KINDS[e.kind]) reset = true;
      if (e.kind === "character.added" || e.kind === "branch.forked") people = true;
      if (e.kind === "dice.revealed") reveal = true;
      S.head = Math.max(S.head, e.version);
    });
    if (reveal) Object.keys(S.revealed).forEach(redrawCommitment);
    document.body.setAttribute("data-head", S.head);
    slider();
    dicePanel();
    if (reset) reloadMarks();
    if (people) reloadTable();
    refreshSoon();
  }
  /* After an undo or redo the server says again which actions stand: every entry's mark. */
  function reloadMarks() {
    readAll(0, function (list) {
      list.forEach(function (e) {
        var old = S.entries[e.version];
        if (old && old.undone !== e.undone) place(e);
      });
      document.body.setAttribute("data-marked", S.head);
    });
  }
  function readAll(after, done, got) {
    got = got || [];
    request("GET", API + "/events?after=" + after).then(function (page) {
      got = got.concat(page.events);
      if (page.more && page.events.length) readAll(page.events[page.events.length - 1].version, done, got);
      else done(got, page.head);
    }, refused);
  }
  function follow() {
    if (S.source) S.source.close();
    var source = new EventSource(API + "/stream?after=" + S.head);
    S.source = source;
    source.onopen = function () {
      live("live");
      if (S.lost) { S.lost = false; refreshSoon(); } /* what was read while the server was away */
    };
    source.onmessage = function (m) { receive([JSON.parse(m.data)]); };
    source.onerror = function () {
      S.lost = true;
      live(source.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
    };
    source.addEventListener("revoked", function (m) {
      source.close();
      live("revoked");
      var data = JSON.parse(m.data);
      notice(data.error.message, true);
    });
  }

  /* --- the sheet, the next steps and the map --- */
  var timer = null;
  function refreshSoon() {
    if (timer) clearTimeout(timer);
    timer = setTimeout(function () { timer = null; refresh(); }, 30);
  }
  function when() {
    var q = [];
    if (S.who !== null) q.push("character=" + encodeURIComponent(S.who));
    if (S.day !== null) q.push("day=" + S.day);
    return q.length ? "?" + q.join("&") : "";
  }
  var asking = 0;
  function refresh() {
    var asked = S.head, turn = ++asking;
    request("GET", API + "/sheet" + when()).then(function (data) {
      if (turn !== asking) return; /* a later read is on its way */
      D.sheet($("sheet"), data);
      $("sheet").setAttribute("data-head", asked);
      $("sheet-when").textContent = S.day === null ? "now, v" + asked : "on day " + S.day;
      hints(data.hints || []);
      document.body.setAttribute("data-sheet-head", asked);
    }, function (err) {
      clear($("sheet")).appendChild(el("p", { "class": "empty", text: err.message }));
      hints([]);
    });
    if (!S.table.map_kind) return;
    request("GET", API + "/map" + (S.day !== null ? "?day=" + S.day : "")).then(function (m) {
      if (turn !== asking) return;
      $("map-card").hidden = false;
      if (m.kind === "hex") { D.hexMap($("map"), m.map, { legend: m.legend }); D.hexLegend($("legend"), m.legend); }
      else if (m.kind === "zone") { D.zoneMap($("map"), m.map); D.zoneLegend($("legend")); }
    }, function () { /* the map waits for the game to start */ });
  }
  function hints(list) {
    var box = clear($("hints"));
    list.forEach(function (h) { box.appendChild(el("li", { text: h })); });
    box.hidden = !list.length;
  }
  function tabs() {
    var box = clear($("who")), names = S.table.characters;
    if (S.who === null && S.seat.character) S.who = S.seat.character;
    if (names.length < 2) return;
    names.forEach(function (n) {
      var b = el("button", { type: "button", role: "tab", "aria-selected": n === S.who ? "true" : "false", text: n });
      b.addEventListener("click", function () { S.who = n; tabs(); refresh(); });
      box.appendChild(b);
    });
  }

  /* --- acting: the dice box, the real dice, each command's button and form --- */
  function faces() {
    if (!$("real").checked) return undefined;
    var raw = $("faces").value.trim();
    if (!raw) return undefined;
    return raw.split(/[\s,]+/).filter(Boolean).map(function (f) { return /^\d+$/.test(f) ? +f : f; });
  }
  function actor(args) {
    var pick = $("act-as");
    if (isGM() && pick && pick.value) args.actor = pick.value;
    return args;
  }
  function act(command, args, done) {
    var body = { command: command, args: actor(args), expected_version: S.head };
    var f = faces();
    if (f !== undefined) body.faces = f;
    return write("/actions", body, function (answer) {
      if (f !== undefined) { $("faces").value = ""; $("real").checked = false; $("faces-label").hidden = true; }
      notice("recorded v" + answer.version);
      if (done) done(answer);
    });
  }
  function schemaOf(name) {
    var ref = S.schema.commands[name] && S.schema.commands[name].$ref;
    return ref ? S.schema.$defs[ref.split("/").pop()] : null;
  }
  function resolve(prop) {
    if (prop.$ref) return resolve(S.schema.$defs[prop.$ref.split("/").pop()] || {});
    if (prop.anyOf) {
      var real = prop.anyOf.filter(function (p) { return p.type !== "null"; });
      var r = real.length === 1 ? resolve(real[0]) : { type: "string" };
      return { type: r.type, items: r.items, enumerated: r.enumerated, nullable: real.length < prop.anyOf.length, description: prop.description || r.description };
    }
    return { type: prop.type || (prop["enum"] ? "string" : "string"), items: prop.items, enumerated: prop["enum"], description: prop.description };
  }
  function fieldsOf(s) {
    var props = (s && s.properties) || {}, required = (s && s.required) || [];
    return Object.keys(props).filter(function (k) { return k !== "actor"; }).map(function (k) {
      var t = resolve(props[k]);
      return { name: k, type: t.type, items: t.items, choices: t.enumerated, required: required.indexOf(k) >= 0, "default": props[k]["default"], description: t.description };
    });
  }
  function words(name) {
    var short = name.split(".").pop().replace(/([a-z])([A-Z])/g, "$1 $2");
    return short.charAt(0) + short.slice(1).toLowerCase();
  }
  function input(f) {
    var id = "field-" + f.name, node;
    if (f.choices) {
      node = el("select", { id: id, name: f.name }, f.choices.map(function (c) { return el("option", { value: c, text: c }); }));
    } else if (f.type === "boolean") {
      node = el("input", { id: id, name: f.name, type: "checkbox" });
      node.checked = f["default"] === true;
    } else if (f.type === "integer" || f.type === "number") {
      node = el("input", { id: id, name: f.name, type: "number", step: f.type === "integer" ? 1 : "any", required: f.required ? "required" : null });
      if (typeof f["default"] === "number") node.placeholder = String(f["default"]);
    } else {
      node = el("input", { id: id, name: f.name, type: "text", maxlength: 10000, autocomplete: "off", required: f.required ? "required" : null,
        placeholder: f.type === "array" ? "a, b, c" : f.type === "object" ? "key=value, key=value" : typeof f["default"] === "string" ? f["default"] : "" });
    }
    var text = f.name.replace(/_/g, " ") + (f.required ? "" : " (optional)");
    return el("label", { "for": id, title: f.description || null }, [el("span", { text: text }), node]);
  }
  function collect(fields, form) {
    var args = {};
    fields.forEach(function (f) {
      var node = form.querySelector("[name='" + f.name + "']");
      if (f.type === "boolean") { if (node.checked !== (f["default"] === true)) args[f.name] = node.checked; return; }
      var raw = node.value.trim();
      if (raw === "") return;
      if (f.type === "integer" || f.type === "number") args[f.name] = Number(raw);
      else if (f.type === "array") args[f.name] = raw.split(",").map(function (x) { return x.trim(); }).filter(Boolean).map(function (x) {
        return f.items && f.items.type === "integer" ? Number(x) : x;
      });
      else if (f.type === "object") {
        var o = {};
        raw.split(",").forEach(function (pair) { var kv = pair.split("="); if (kv[0].trim()) o[kv[0].trim()] = (kv.slice(1).join("=") || "").trim(); });
        args[f.name] = o;
      } else args[f.name] = raw;
    });
    return args;
  }
  function openForm(name, fields) {
    var form = clear($("command-form"));
    if (S.form === name) { S.form = null; form.hidden = true; return; }
    S.form = name;
    var s = schemaOf(name);
    form.appendChild(el("h3", { text: words(name) }));
    if (s && s.description) form.appendChild(el("p", { "class": "muted small", text: s.description }));
    fields.forEach(function (f) { form.appendChild(input(f)); });
    form.appendChild(el("button", { type: "submit", "data-command": name, text: "Record " + words(name).toLowerCase() }));
    form.hidden = false;
    var first = form.querySelector("input, select");
    if (first) first.focus();
  }
  function commands() {
    var box = clear($("commands")), names = S.table.commands.filter(function (n) { return n !== "core.Roll"; });
    var own = names.filter(function (n) { return n.indexOf("core.") !== 0; }), core = names.filter(function (n) { return n.indexOf("core.") === 0; });
    own.concat(core).forEach(function (name) {
      var s = schemaOf(name), fields = fieldsOf(s);
      var needs = fields.some(function (f) { return f.required; });
      var b = el("button", { type: "button", "class": "command" + (name.indexOf("core.") === 0 ? " core" : ""), "data-command": name,
        title: (s && s.description) || name, text: words(name) + (needs ? "\u2026" : "") });
      /* a command that needs a value opens its form; one whose fields are all optional is
         recorded at once, its options a click away */
      b.addEventListener("click", function () {
        if (needs) { openForm(name, fields); return; }
        clear($("command-form")).hidden = true;
        S.form = null;
        act(name, {});
      });
      if (needs || !fields.length) { box.appendChild(b); return; }
      var more = el("button", { type: "button", "class": "options", "data-options": name, "aria-label": words(name) + " with options", title: "options", text: "\u22ef" });
      more.addEventListener("click", function () { openForm(name, fields); });
      box.appendChild(el("span", { "class": "command-group" }, [b, more]));
    });
    $("command-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var name = S.form, fields = fieldsOf(schemaOf(name)), form = $("command-form");
      act(name, collect(fields, form), function () { clear(form).hidden = true; S.form = null; });
    });
  }
  function actingAs() {
    var box = clear($("acting"));
    if (!isGM() || !S.table.characters.length) {
      if (S.seat.character) box.textContent = "as " + S.seat.character;
      return;
    }
    var pick = el("select", { id: "act-as", "aria-label": "act as" }, [el("option", { value: "", text: "the acting character" })].concat(
      S.table.characters.map(function (n) { return el("option", { value: n, text: n }); })));
    box.appendChild(el("label", {}, ["as ", pick]));
  }

  /* --- the GM: undo, redo, the day slider, fork from here, the provable dice --- */
  function slider() {
    var s = $("day-slider");
    s.max = S.maxDay;
    if (S.day === null) s.value = S.maxDay;
    $("day-label").textContent = S.day === null ? "now" : "day " + S.day + " of " + S.maxDay;
    $("now").hidden = S.day === null;
  }
  function drawnUnder(c) {
    var drawn = 0;
    S.versions.forEach(function (v) { var d = S.entries[v].decision; if (d && d.commitment === c) drawn += d.faces.length; });
    return drawn;
  }
  function dicePanel() {
    var box = clear($("dice-panel")), list = S.commitments;
    $("dice-card").hidden = !list.length;
    $("reveal-form").hidden = !isGM() || !list.length;
    var open = list.length ? list[list.length - 1] : null;
    $("seed-form").hidden = !mayAct() || open === null || S.revealed[open] !== undefined || drawnUnder(open) > 0;
    list.slice().reverse().forEach(function (c) {
      var seed = S.revealed[c], drawn = drawnUnder(c), ok = S.verified[c];
      box.appendChild(el("div", { "class": "commitment" + (seed === undefined ? " open" : ""), "data-commitment": c }, [
        el("div", {}, [el("span", { "class": "k", text: seed === undefined ? "open commitment " : "commitment " }), el("code", { text: c })]),
        el("div", {}, [el("span", { "class": "k", text: "players' seed " }), el("code", { text: S.seeded[c] || "(none)" })]),
        el("div", {}, [el("span", { "class": "k", text: "dice drawn " }), String(drawn)]),
        seed === undefined ? el("div", { "class": "muted small", text: "pending: the seed is revealed by the GM" }) :
          el("div", {}, [el("span", { "class": "k", text: "seed " }), el("code", { text: seed }),
            ok === true ? el("span", { "class": "badge verified", text: "verified \u2713" }) :
              ok === false ? el("span", { "class": "badge bad", text: "does not match" }) : null])
      ]));
    });
  }
  function wire() {
    $("real").addEventListener("change", function () { $("faces-label").hidden = !$("real").checked; if ($("real").checked) $("faces").focus(); });
    $("dice-box").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var args = { notation: $("notation").value.trim() };
      if ($("roll-label").value.trim()) args.label = $("roll-label").value.trim();
      act("core.Roll", args);
    });
    $("undo").addEventListener("click", function () { write("/undo", { count: 1 }); });
    $("redo").addEventListener("click", function () { write("/redo", { count: 1 }); });
    $("day-slider").addEventListener("input", function () {
      var d = +$("day-slider").value;
      S.day = d >= S.maxDay ? null : d;
      slider();
      refreshSoon();
    });
    $("now").addEventListener("click", function () { S.day = null; slider(); refresh(); });
    $("fork-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var body = { name: $("fork-name").value.trim() };
      if (S.day !== null) body.day = S.day;
      write("/fork", body, function (answer) {
        var a = $("fork-link");
        a.href = answer.link;
        a.textContent = "open '" + answer.name + "' (forked at v" + answer.at + ") as its GM";
        a.hidden = false;
        $("fork-name").value = "";
      });
    });
    $("seed-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      write("/dice/seed", { client_seed: $("players-seed").value.trim() }, function () { $("players-seed").value = ""; });
    });
    $("reveal-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var seed = $("next-seed").value.trim();
      write("/dice/reveal", seed ? { client_seed: seed } : {}, function () { $("next-seed").value = ""; });
    });
  }
  function reloadTable() {
    request("GET", API).then(function (t) {
      S.table = t;
      header();
      tabs();
      actingAs();
    }, refused);
  }

  function start() {
    if (!campaign) { notice("no campaign in the address: open your invitation link", true); return; }
    Promise.all([request("GET", API), request("GET", "/api/schema")]).then(function (got) {
      S.table = got[0];
      S.seat = got[0].seat;
      S.schema = got[1];
      header();
      tabs();
      $("gm").hidden = !isGM();
      $("act-card").hidden = !mayAct();
      if (mayAct()) { actingAs(); commands(); }
      wire();
      readAll(0, function (list, head) {
        receive(list);
        S.head = Math.max(S.head, head);
        follow();
        refresh();
        document.body.setAttribute("data-ready", "1");
      });
    }, function (err) {
      live("closed");
      notice(err.status === 401 ? err.message + " (open your invitation link again)" : err.message, true);
    });
  }
  start();
})();
