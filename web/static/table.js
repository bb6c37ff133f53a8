/* The live table's page (/t/<campaign>): everything comes from the API a bot or any other
   client uses (docs/api.md); the page only draws it and sends what a person taps.

   A player's page opens on their own character: the name and the headline tracks stay at
   the top, then the sheet as its system's layout draws it, where every control the system
   declares (a skill, a weapon, a usage die, a push) is a button; a tap opens its short
   sheet of options (each with a default) or, with none, acts at once, and the result or
   the refusal shows right under what was tapped. The rest of the table (every sheet, the
   map, the log) is one tab away on a phone, beside it on a laptop, where the GM also has
   undo and redo, time travel action by action, forks and the provable dice.

   The log follows the campaign's Server-Sent Events (EventSource resumes with
   Last-Event-ID by itself); the sheets and the map are read again after each new event.
   Only a command that names the state it acts on (an undo, a correction: a form marked
   `seen`) is sent with the version this page saw; a roll, a check or a note never is, so
   players tapping at once are all recorded. Text from the ledger is only ever set as
   textContent (draw.js builds every node). Every sentence the page says is in WORDS or
   marked where it is said, each through _(), n_() or p_(): the server's page catalog
   (ledger/locale/<lang>/LC_MESSAGES/page.po, served as /static/words.<lang>.js before this
   script) in the seat's language, English where it has none. The seat picks its language
   on the page (remembered in localStorage and in a cookie, sent with every request), else
   the browser's. */
(function () {
  "use strict";
  var D = window.LedgerDraw, el = D.el, clear = D.clear;

  /* --- the page's words, in the seat's language --- */
  var L = window.LedgerWords || { lang: "en", plural_forms: "", messages: {}, languages: { en: "English" } };
  var LANG = L.lang || "en";
  var STORE = "ledger-lang", COOKIE = "ledger_lang";
  function fill(text, values) {
    if (!values) return text; /* a template kept to fill later (WORDS, say()) */
    return text.replace(/\{(\w+)\}/g, function (m, k) { return values && values[k] !== undefined ? String(values[k]) : ""; });
  }
  /* The catalog's plural rule (its Plural-Forms, a C expression of n) read as data: no
     eval, which the page's Content-Security-Policy forbids anyway. */
  function pluralRule(forms) {
    var m = /plural\s*=\s*([^;]*)/.exec(forms || ""), toks = m ? m[1].match(/\d+|n|&&|\|\||[=!<>]=|[<>!?:%()*\/+-]/g) || [] : [], i = 0;
    var BIN = { "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6 };
    function apply(op, a, b) {
      switch (op) {
        case "||": return a || b ? 1 : 0;
        case "&&": return a && b ? 1 : 0;
        case "==": return a === b ? 1 : 0;
        case "!=": return a !== b ? 1 : 0;
        case "<": return a < b ? 1 : 0;
        case ">": return a > b ? 1 : 0;
        case "<=": return a <= b ? 1 : 0;
        case ">=": return a >= b ? 1 : 0;
        case "+": return a + b;
        case "-": return a - b;
        case "*": return a * b;
        case "/": return b ? Math.floor(a / b) : 0;
        default: return b ? a % b : 0;
      }
    }
    function primary() {
      var t = toks[i++];
      if (t === "(") { var e = ternary(); i++; return e; }
      if (t === "!") { var a = primary(); return function (n) { return a(n) ? 0 : 1; }; }
      if (t === "n") return function (n) { return n; };
      var k = +t || 0;
      return function () { return k; };
    }
    function binary(min) {
      var left = primary();
      while (i < toks.length && BIN[toks[i]] >= min) {
        var op = toks[i++];
        left = (function (l, r, o) { return function (n) { return apply(o, l(n), r(n)); }; })(left, binary(BIN[op] + 1), op);
      }
      return left;
    }
    function ternary() {
      var c = binary(1);
      if (toks[i] !== "?") return c;
      i++;
      var a = ternary();
      i++;
      var b = ternary();
      return function (n) { return c(n) ? a(n) : b(n); };
    }
    if (!toks.length) return function (n) { return n === 1 ? 0 : 1; };
    var rule = ternary();
    return function (n) { return +rule(n) || 0; };
  }
  var PLURAL = pluralRule(L.plural_forms);
  /* A number with a fraction as the seat's language writes it (1,5 in Spanish); whole
     numbers as they are. */
  function num(x, places) {
    if (typeof x !== "number") return String(x);
    var text = places === undefined ? String(x) : x.toFixed(places);
    if (LANG === "en" || LANG === "qps" || text.indexOf(".") < 0) return text;
    var sep = (1.5).toLocaleString(LANG).charAt(1);
    return text.replace(".", sep);
  }
  function _(text, values) {
    var t = L.messages[text];
    return fill(typeof t === "string" && t ? t : text, values);
  }
  function n_(one, many, n, values) {
    var t = L.messages[one], v = Object.assign({ n: num(n) }, values || {});
    var count = Math.floor(n) === n ? n : 2;
    var form = Array.isArray(t) ? t[Math.min(PLURAL(count), t.length - 1)] : null;
    return fill(form || (count === 1 ? one : many), v);
  }
  function p_(context, text, values) {
    var t = L.messages[context + "\u0004" + text];
    return fill(typeof t === "string" && t ? t : text, values);
  }

  var campaign = decodeURIComponent(location.pathname.split("/")[2] || "");
  var API = "/api/c/" + encodeURIComponent(campaign);
  var WORDS = {
    connecting: _("connecting"),
    live: _("live"),
    reconnecting: _("reconnecting…"),
    closed: _("server gone: retrying"),
    closedLong: _("The table's server does not answer: this page tries again by itself and catches up when it is back."),
    revoked: _("seat revoked"),
    replaced: _("open elsewhere"),
    noCampaign: _("There is no campaign in this address: open your invitation link."),
    relink: _("{message} (open your invitation link again)"),
    sending: _("{label}…"),
    recorded: _("Recorded as v{version}."),
    refused: _("Refused: {message}"),
    onSheet: _("“{label}” on the sheet"),
    inGroup: _("“{label}” ({group})"),
    field: _("“{name}”"),
    stale: _("Someone acted first, so nothing was done: the table moved on to v{head}. Look again and tap again."),
    lost: _("No answer from the server: the action may not be recorded. Look at the log before you tap again."),
    youRolled: _("{who}: {text}"),
    noSuccess: _("no success"),
    total: _("total {n}"),
    success: _("success"),
    failure: _("failure"),
    against: _("{total} vs {target}: {verdict}"),
    gm: _("GM"),
    watching: _("watching"),
    seatOf: _("{who} ({label})"),
    undo: _("Undo"),
    redo: _("Redo"),
    undoLast: _("Undo: {what}"),
    redoLast: _("Redo: {what}"),
    nothingToUndo: _("nothing to undo"),
    nothingToRedo: _("nothing undone"),
    now: _("now, v{head}"),
    at: _("{day}v{v} · {what} ({i} of {n})"),
    dayPart: _("day {day} · "),
    past: _("You are looking at v{v}: the table is at v{head}. Controls come back with “Back to now”."),
    required: _("{label} is needed."),
    wholeMinutes: _("{label}: {value} is not a whole number of {unit}."),
    confirm: _("This cannot be taken back from your seat: only the GM can undo it. Send it?"),
    gmValue: _("That choice is the GM's to make: ask the GM."),
    mine: _("{who}'s recent rolls"),
    ourRolls: _("Recent rolls"),
    noRolls: _("No roll yet."),
    nobody: _("Nobody plays yet."),
    more: _("More to do"),
    wholeSheet: _("the whole sheet"),
    pending: _("pending: the seed is revealed by the GM"),
    asGm: _("acting as {who}"),
    actAs: _("act as {who}"),
    roles: { gm: _("GM"), player: _("player"), watch: _("watcher") },
    seatLine: _("{label} · {role}"),
    seatOf2: _("{label} · {role}, {who}"),
    thisPage: _("this page"),
    joined: _("joined"),
    notJoined: _("link not used yet"),
    reusable: _("any screen"),
    revoke: _("Revoke"),
    revokeSure: _("Revoke {label}: tap again"),
    revoked2: _("{label} was revoked: its devices open nothing more."),
    invitedWho: _("A seat for {who}"),
    invitedLabel: _("A seat for {who}, labelled “{label}”"),
    invitedAs: { gm: _("a GM"), watch: _("a watcher") },
    invitedOnce: _("Scan it with the phone's camera, or send the link. It seats one device."),
    invitedMany: _("Scan it with each screen's camera, or open the link. It seats any number of screens."),
    invitedJoined: _("{label} has joined the table."),
    qrOf: _("QR code of the invitation link for {label}"),
    copy: _("Copy the link"),
    copied: _("Copied"),
    offered: _("The GM forked the campaign: “{name}”. Play on there as {who}?"),
    offeredSeat: _("The GM forked the campaign: “{name}”. Follow the table there?"),
    takeOffer: _("Go to “{name}”"),
    later: _("Later"),
    forkTaking: _("Forked “{name}” at v{at}: taking the table along…"),
    openCommitment: _("open commitment "),
    commitment: _("commitment "),
    playersSeed: _("players' seed "),
    drawn: _("dice drawn "),
    seed: _("seed "),
    verified: _("verified \u2713"),
    mismatch: _("does not match"),
    none: _("(none)"),
    anyChoice: "—",
    unit: _("{label} (in {unit})"),
    sealed: _("sealed"),
    sealedFor: { private: _("sealed: the roller and the GM"), blind: _("sealed: the GM only"), whisper: _("whisper") },
    reveal: _("Reveal"),
    revealAll: _("Reveal all sealed rolls"),
    rollMode: _("Roll mode")
  };
  /* The words of the page's own HTML, by its data-i18n names: an element's text (its first
     text, before any field inside it), its aria-label, placeholder or title. */
  var STATIC = {
    pageTitle: _("campaign-ledger table"),
    theTable: _("The table"),
    theTableAria: _("the table"),
    rollModeAria: _("roll mode"),
    connection: _("connection"),
    language: _("language"),
    tracks: _("tracks"),
    gameMaster: _("game master"),
    timeFork: _("Time · Fork"),
    timeTravel: _("time travel"),
    previousDay: _("previous day"),
    previousAction: _("previous action"),
    actionShown: _("the action the table shows"),
    nextAction: _("next action"),
    nextDay: _("next day"),
    backToNow: _("Back to now"),
    forkAs: _("Fork as"),
    newBranch: _("the new branch"),
    forkHelp: _("A new branch of the campaign from the point shown; every seat is offered a place there"),
    fork: _("Fork"),
    seatsOffered: _("seats offered at a fork"),
    whoseSheet: _("whose sheet"),
    recentRollsAria: _("recent rolls"),
    moreActions: _("more actions"),
    diceBox: _("dice box"),
    dice: _("Dice"),
    notation: _("Notation"),
    label: _("Label"),
    climb: _("climb"),
    roll: _("Roll"),
    realDice: _("I rolled real dice"),
    faces: _("faces"),
    "public": _("public: everyone sees it"),
    "private": _("private: me and the GM"),
    blind: _("blind: the GM only"),
    whatNext: _("what comes next"),
    map: _("Map"),
    seats: _("Seats"),
    inviteSeat: _("Invite a seat"),
    who: _("Who"),
    invitePlayer: _("a player, for one character"),
    inviteWatcher: _("a watcher: reads the table, records nothing"),
    inviteGm: _("a GM: may do everything"),
    character: _("Character"),
    seatLabel: _("Seat label"),
    characterName: _("the character's name"),
    reusable: _("One link for any number of screens (a shared screen)"),
    invite: _("Invite"),
    inviteLink: _("the invitation link"),
    seatsOfTable: _("the seats of this table"),
    provable: _("Provable dice"),
    playersSeedLabel: _("Players' seed"),
    chosenByPlayers: _("chosen by the players"),
    seedButton: _("Seed"),
    nextSeed: _("Next players' seed"),
    theSame: _("(the same)"),
    log: _("The log"),
    logNote: _("newest first; undone actions struck through"),
    sheetTab: _("Sheet"),
    tableTab: _("Table"),
    logTab: _("Log"),
    cancel: _("Cancel")
  };
  function staticWords() {
    document.documentElement.lang = LANG;
    Array.prototype.forEach.call(document.querySelectorAll("[data-i18n]"), function (node) {
      var text = STATIC[node.getAttribute("data-i18n")] || WORDS[node.getAttribute("data-i18n")];
      if (!text) return;
      var first = Array.prototype.filter.call(node.childNodes, function (c) { return c.nodeType === 3 && c.nodeValue.trim(); })[0];
      if (!node.children.length) node.textContent = text;
      else if (first) first.nodeValue = first.nodeValue.replace(first.nodeValue.trim(), text);
    });
    [["aria", "aria-label"], ["placeholder", "placeholder"], ["title", "title"]].forEach(function (pair) {
      Array.prototype.forEach.call(document.querySelectorAll("[data-i18n-" + pair[0] + "]"), function (node) {
        var text = STATIC[node.getAttribute("data-i18n-" + pair[0])];
        if (text) node.setAttribute(pair[1], text);
      });
    });
  }
  /* The language picker: the seat's choice, kept in this browser (localStorage, and a
     cookie the server reads for the page and its first reads), the page read again in it. */
  function remember(lang) {
    try { localStorage.setItem(STORE, lang); } catch (e) { /* private mode: the cookie keeps it */ }
    document.cookie = COOKIE + "=" + encodeURIComponent(lang) + "; path=/; max-age=31536000; samesite=lax";
  }
  function languagePicker() {
    var pick = $("lang"), names = L.languages || {};
    if (!pick) return;
    clear(pick);
    Object.keys(names).forEach(function (code) {
      pick.appendChild(el("option", { value: code, text: code.toUpperCase(), title: names[code], "aria-label": names[code] }));
    });
    if (!names[LANG]) pick.appendChild(el("option", { value: LANG, text: LANG.toUpperCase() }));
    pick.value = LANG;
    pick.addEventListener("change", function () {
      remember(pick.value);
      location.reload();
    });
  }
  /* The seat's choice, when this browser holds one the page was not served in: kept as
     the cookie too, and the page read again in it (once). */
  function chosenElsewhere() {
    var kept = null;
    try { kept = localStorage.getItem(STORE); } catch (e) { kept = null; }
    if (!kept || kept === LANG || !(L.languages || {})[kept]) return false;
    if (document.cookie.indexOf(COOKIE + "=" + kept) >= 0) return false; /* the server chose otherwise: no loop */
    try {
      if (sessionStorage.getItem(STORE) === kept) return false; /* read again once already: cookies are off */
      sessionStorage.setItem(STORE, kept);
    } catch (e) { return false; }
    remember(kept);
    location.reload();
    return true;
  }
  var DICE_STATES = { physical: _("physical"), proven: _("proven"), pending: p_("dice", "pending"), unproven: _("unproven") };
  function say(key, values) { return fill(WORDS[key], values); }
  var S = {
    table: null, seat: null, entries: {}, versions: [], byAction: {}, head: 0, who: null, at: null,
    steps: [], revealed: {}, verified: {}, commitments: [], seeded: {}, source: null, lost: false,
    sheet: null, sheets: null, cards: {}, waiting: {}, pane: "me", open: null, wide: false,
    sealed: {}, opened: {}
  };

  function $(id) { return document.getElementById(id); }
  function isGM() { return S.seat && S.seat.role === "gm"; }
  function mayAct() { return S.seat && S.seat.role !== "watch"; }
  function cap(text) { text = String(text || ""); return text.charAt(0).toUpperCase() + text.slice(1); }
  function allowed(command) {
    var list = S.table && S.table.commands;
    return !list || list.indexOf(command) >= 0;
  }
  function confirmed(command) {
    var list = S.table && S.table.confirm;
    return Array.isArray(list) && list.indexOf(command) >= 0;
  }
  /* The values of a command's field that the table lists for this seat: ``gm_values`` (the
     GM's: a player is never offered them) or ``confirm_values`` (asked once first). */
  function valuesOf(which, command, field) {
    var by = S.table && S.table[which] && S.table[which][command];
    return by && Array.isArray(by[field]) ? by[field] : [];
  }
  function holds(list, value) {
    return list.some(function (v) { return v === value; });
  }
  /* Whether what would be sent is one the GM's (a value that widens it) */
  function gmOnly(command, args) {
    return Object.keys(args).some(function (k) { return holds(valuesOf("gm_values", command, k), args[k]); });
  }
  /* Whether the seat confirms it once before it is sent: the command, or one of its values. */
  function askFirst(command, args) {
    return confirmed(command) || Object.keys(args).some(function (k) { return holds(valuesOf("confirm_values", command, k), args[k]); });
  }
  /* A form's or a control's fields as this seat may fill them: a yes/no whose "yes" is the
     GM's is not asked (it keeps its default), a choice that is the GM's is not offered. */
  function mayFill(command, fields) {
    return fields.filter(function (f) {
      var gm = valuesOf("gm_values", command, f.field);
      return !(f.type === "boolean" && holds(gm, f["default"] !== true));
    }).map(function (f) {
      var gm = valuesOf("gm_values", command, f.field);
      return gm.length && f.choices ? Object.assign({}, f, { choices: f.choices.filter(function (c) { return !holds(gm, c); }) }) : f;
    });
  }

  /* --- talking to the server --- */
  function notice(text) {
    var box = $("notice");
    box.textContent = text || "";
    box.hidden = !text;
  }
  function key() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return String(Date.now()) + "-" + Math.random().toString(16).slice(2);
  }
  function request(method, path, body) {
    /* the seat's language goes with the cookie (and the browser's Accept-Language), as with
       the reads the page's answer preloads: the same request, so the preloaded answer serves */
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
          var err = new Error(data && data.error ? data.error.message : _("the server answered {status}", { status: answer.status }));
          err.status = answer.status;
          err.body = data;
          throw err;
        }
        return data;
      });
    });
  }
  function announce(text) {
    var box = $("announce");
    box.textContent = "";
    setTimeout(function () { box.textContent = text; }, 30); /* a change a screen reader hears */
  }

  /* --- the header: who this is, the tracks that matter most, the connection --- */
  function header() {
    var t = S.table, seat = t.seat;
    var mine = seat.character;
    $("title").textContent = mine || t.campaign;
    $("subtitle").textContent = (mine ? t.campaign + " \u00b7 " : "") + t.system;
    document.title = _("{name} \u00b7 live table", { name: (mine ? mine + " \u00b7 " : "") + t.campaign });
    $("seat").textContent = seat.role === "gm" ? say("seatOf", { who: WORDS.gm, label: seat.label }) :
      seat.character ? seat.label : say("seatOf", { who: WORDS.watching, label: seat.label });
  }
  function live(state) {
    $("live").setAttribute("data-state", state);
    $("live").textContent = WORDS[state] || state;
    $("live").title = state === "closed" ? WORDS.closedLong : "";
  }
  function tracks(data) {
    var box = clear($("tracks"));
    if (data && data.view && data.view.headline.length) {
      D.headline(box, data.view);
    }
    box.hidden = !box.firstChild;
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
  function dice(list, big) {
    return el("span", { "class": "faces" + (big ? " big" : ""), "aria-label": _("dice faces {faces}", { faces: list.join(", ") }) },
      list.map(function (f) { return el("span", { "class": "die", text: f }); }));
  }
  function entryNode(e) {
    var state = diceState(e.decision), shown = facesOf(e);
    if (!state && shown.length && e.event && e.event.manual === true) state = "physical";
    var proven = state === "proven" && S.verified[e.decision.commitment] === true;
    return el("li", {
      "class": "entry" + (e.undone ? " undone" : "") + (RESET_KINDS[e.kind] ? " reset" : "") + (e.kind === "branch.forked" ? " fork" : "") +
        (S.at !== null && e.version > S.at ? " future" : ""),
      "data-version": e.version, "data-kind": e.kind, "data-undone": e.undone ? "1" : "0"
    }, [
      el("span", { "class": "v", text: "v" + e.version, "data-day": e.day === null || e.day === undefined ? "" : _("day {day}", { day: e.day }) }),
      el("span", { "class": "day", text: e.day === null || e.day === undefined ? "" : _("day {day}", { day: e.day }) }),
      el("span", { "class": "text" }, [
        e.who ? el("b", { "class": "who", text: e.who + ": " }) : null,
        el("span", { "class": "summary", text: e.summary })
      ]),
      el("span", { "class": "marks" }, [
        shown.length ? dice(shown) : null,
        state ? el("span", { "class": "badge dice " + state, "data-dice": state,
          title: proven ? _("the revealed seed hashes to the commitment") : "", text: (DICE_STATES[state] || state) + (proven ? " \u2713" : "") }) : null,
        e.undone ? el("span", { "class": "badge undone", text: _("undone") }) : null,
        e.decision && e.decision.seat ? el("span", { "class": "seat-of muted", text: _("by {seat}", { seat: e.decision.seat }) }) : null
      ].concat(e.kind === "action.sealed" ? sealedMarks(e) : []))
    ]);
  }
  /* A sealed roll or whisper: its badge, what it holds for a seat that may see it (read
     from the server, which asks the one visibility rule; nothing of it is in the entry),
     and the GM's button that reveals it. */
  /* The GM's "Reveal all sealed rolls" shows while a sealed roll is not revealed. */
  function sealedLeft() {
    var left = isGM() && S.versions.some(function (v) {
      var e = S.entries[v];
      return e && e.kind === "action.sealed" && e.event.visibility !== "whisper" && !S.opened[v];
    });
    $("reveal-all").hidden = !left;
  }
  function seesSealed(e) {
    var ev = e.event || {}, me = S.seat || {};
    if (isGM() || S.opened[e.version]) return true;
    if (ev.visibility === "blind") return false;
    var mine = (me.label && me.label === ev.seat) || (me.character && me.character === e.actor);
    if (ev.visibility === "whisper") return mine || (me.character && (ev.to || []).indexOf(me.character) >= 0);
    return mine;
  }
  function sealedMarks(e) {
    var ev = e.event || {}, marks = [el("span", { "class": "badge sealed", "data-sealed": ev.visibility, text: WORDS.sealedFor[ev.visibility] || WORDS.sealed })];
    if (seesSealed(e)) {
      var box = el("span", { "class": "sealed-result" });
      marks.push(box);
      var got = S.sealed[e.version];
      if (got) box.textContent = got;
      else request("GET", API + "/sealed/" + e.version).then(function (c) {
        S.sealed[e.version] = c.summaries.join("; ");
        box.textContent = S.sealed[e.version];
      }, function () { /* not this seat's: the rule said no */ });
    }
    if (isGM() && !S.opened[e.version]) {
      var b = el("button", { type: "button", "class": "reveal", "data-reveal": e.version, text: WORDS.reveal });
      b.addEventListener("click", function () {
        b.disabled = true;
        request("POST", API + "/reveal", { version: e.version }).then(function () {}, function (err) { b.disabled = false; notice(err.message); });
      });
      marks.push(b);
    }
    return marks;
  }
  /* An entry's data, kept (and its log line redrawn, when it is drawn already). */
  function place(e) {
    var old = S.entries[e.version], was = old && old.node;
    S.entries[e.version] = e;
    (S.byAction[e.action] = S.byAction[e.action] || {})[e.version] = e;
    if (was) {
      e.node = entryNode(e);
      $("log").replaceChild(e.node, was);
    } else if (!old) {
      if (!S.versions.length || e.version > S.versions[S.versions.length - 1]) S.versions.push(e.version);
      else { S.versions.push(e.version); S.versions.sort(function (x, y) { return x - y; }); }
    }
  }
  /* New entries' log lines: the newest on top. A long log (a page opening on a campaign of
     hundreds of actions) is drawn a slice at a time after the sheet, so the sheet is usable
     at once. */
  function draw(list) {
    var log = $("log"), fresh = list.slice().sort(function (x, y) { return y.version - x.version; });
    function put(e, before) { e.node = entryNode(e); log.insertBefore(e.node, before); return e.node; }
    function where(v) {
      for (var i = 0; i < log.children.length; i++) if (+log.children[i].getAttribute("data-version") < v) return log.children[i];
      return null;
    }
    if (fresh.length <= 60) {
      fresh.forEach(function (e) { put(e, where(e.version)); });
      document.body.setAttribute("data-log-drawn", S.head);
      return;
    }
    var at = where(fresh[0].version), k = 0;
    (function slice() {
      var stop = Math.min(fresh.length, k + 80);
      for (; k < stop; k++) {
        var e = S.entries[fresh[k].version];
        if (!e.node) put(e, at);
      }
      if (k < fresh.length) setTimeout(slice, 0);
      else document.body.setAttribute("data-log-drawn", S.head);
    })();
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
    } else if (e.kind === "action.revealed") {
      S.opened[ev.sealed] = e.version;
      var sealedEntry = S.entries[ev.sealed];
      if (sealedEntry && sealedEntry.node) { delete S.sealed[ev.sealed]; place(sealedEntry); }
    }
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
  /* New entries, from the stream or a read. The first read of the whole log (``first``)
     holds every mark already, and what came before the table's description and the sheet
     were read is in them: nothing is read again for it. */
  function receive(list, first) {
    var reset = false, people = false, reveal = false, fresh = [], known = first ? S.seenHead : -1;
    list.forEach(function (e) {
      if (S.entries[e.version]) return; /* never twice */
      learn(e);
      place(e);
      fresh.push(e);
      if (RESET_KINDS[e.kind] && e.version > known) reset = true;
      if ((e.kind === "character.added" || e.kind === "branch.forked") && e.version > known) people = true;
      if (e.kind === "dice.revealed") reveal = true;
      S.head = Math.max(S.head, e.version);
      var waiting = S.waiting[e.action];
      if (waiting) waiting();
    });
    draw(fresh);
    if (reveal) Object.keys(S.revealed).forEach(redrawCommitment);
    document.body.setAttribute("data-head", S.head);
    dicePanel();
    recent();
    if (reset && !first) reloadMarks();
    else steps();
    if (people) reloadTable();
    undoLabels();
    sealedLeft();
    if (!first || S.head > known) refreshSoon();
  }
  /* After an undo or redo the server says again which actions stand: every entry's mark. */
  function reloadMarks() {
    readAll(0, function (list) {
      list.forEach(function (e) {
        var old = S.entries[e.version];
        if (old && old.undone !== e.undone) place(e);
      });
      steps();
      recent();
      undoLabels();
      document.body.setAttribute("data-marked", S.head);
    });
  }
  function readAll(after, done, got) {
    got = got || [];
    request("GET", API + "/events?after=" + after).then(function (page) {
      got = got.concat(page.events);
      if (page.more && page.events.length) readAll(page.events[page.events.length - 1].version, done, got);
      else done(got, page.head);
    }, function (err) { notice(err.message); });
  }
  /* The stream, and the way back when it breaks: the page closes it and asks the server
     (a small read) after half a second, then less and less often up to every five: while
     nothing answers, the header's badge says the server is gone; once it answers, the
     stream opens again after the last version this page holds, and the sheet is read again,
     so nothing is missed or shown twice. */
  var retry = null;
  function follow() {
    if (S.source) S.source.close();
    var source = new EventSource(API + "/stream?after=" + S.head + "&lang=" + encodeURIComponent(LANG));
    S.source = source;
    source.onopen = function () {
      live("live");
      S.away = 0;
      if (S.lost) { S.lost = false; refreshSoon(); reloadTable(); } /* what was recorded while the server was away */
    };
    source.onmessage = function (m) { receive([JSON.parse(m.data)]); };
    source.onerror = function () {
      if (S.source !== source) return;
      S.lost = true;
      source.close();
      S.source = null;
      if ($("live").getAttribute("data-state") === "live") live("reconnecting");
      comeBack();
    };
    source.addEventListener("offer", function (m) { offer(JSON.parse(m.data)); });
    source.addEventListener("replaced", function (m) {
      source.close();
      S.source = null;
      live("replaced");
      notice(JSON.parse(m.data).error.message);
    });
    source.addEventListener("revoked", function (m) {
      source.close();
      S.source = null;
      live("revoked");
      notice(JSON.parse(m.data).error.message);
    });
  }
  function comeBack() {
    if (retry) return;
    var wait = Math.min(5000, 500 * Math.pow(2, S.away || 0));
    S.away = (S.away || 0) + 1;
    retry = setTimeout(function () {
      retry = null;
      fetch(API, { credentials: "same-origin", headers: { Accept: "application/json" }, cache: "no-store" }).then(function (answer) {
        if (answer.status === 401) {
          live("revoked");
          answer.json().then(function (body) { notice(say("relink", { message: body.error.message })); }, function () { /* said by the badge */ });
          return;
        }
        follow();
      }, function () {
        live("closed");
        comeBack();
      });
    }, wait);
  }

  /* --- time: the effective actions, one step each (the report's steps) --- */
  function steps() {
    var ends = [], last = null;
    S.versions.forEach(function (v) {
      var e = S.entries[v];
      if (e.undone || RESET_KINDS[e.kind]) return;
      if (last && last.action === e.action) ends[ends.length - 1] = e;
      else ends.push(e);
      last = e;
    });
    S.steps = ends;
    timeline();
  }
  function stepIndex() {
    if (S.at === null) return S.steps.length - 1;
    for (var i = S.steps.length - 1; i >= 0; i--) if (S.steps[i].version <= S.at) return i;
    return 0;
  }
  function timeline() {
    if (!isGM()) return;
    var slider = $("step-slider"), n = S.steps.length, i = stepIndex();
    slider.max = Math.max(0, n - 1);
    slider.value = Math.max(0, i);
    var step = S.steps[i];
    $("step-label").textContent = S.at === null ? say("now", { head: S.head }) : step ? say("at", {
      day: step.day === null || step.day === undefined ? "" : say("dayPart", { day: step.day }), v: step.version,
      what: told(step), i: i + 1, n: n
    }) : "";
    $("step-label").title = $("step-label").textContent;
    if (S.at !== null) gmMore(true);
    $("now").hidden = S.at === null;
    document.body.setAttribute("data-at", S.at === null ? "" : S.at);
    S.versions.forEach(function (v) { /* the log dims what comes after the point shown */
      var e = S.entries[v];
      if (e.node) e.node.classList.toggle("future", S.at !== null && v > S.at);
    });
    if (S.at !== null) { /* nothing acts in the past, not even before its sheet is read */
      Array.prototype.forEach.call(document.querySelectorAll("#me button.control, #me .form-button"), function (b) { b.disabled = true; });
    }
  }
  function goTo(i) {
    if (!S.steps.length) return;
    i = Math.max(0, Math.min(S.steps.length - 1, i));
    S.at = i === S.steps.length - 1 ? null : S.steps[i].version;
    timeline();
    refresh();
  }
  /* A day forward: the last action of the next day that has one; back: the last of the day
     before. The state a step shows is the one after its action, so its sheet says its day. */
  function moveDay(delta) {
    var i = stepIndex(), day = S.steps[i] ? S.steps[i].day : null, j;
    if (day === null || day === undefined) { goTo(delta > 0 ? S.steps.length - 1 : 0); return; }
    if (delta < 0) {
      for (j = i; j >= 0 && S.steps[j].day === day; j--);
      goTo(Math.max(j, 0));
      return;
    }
    for (j = i + 1; j < S.steps.length && S.steps[j].day === day; j++);
    if (j >= S.steps.length) { goTo(S.steps.length - 1); return; }
    var next = S.steps[j].day;
    while (j + 1 < S.steps.length && S.steps[j + 1].day === next) j++;
    goTo(j);
  }

  /* --- the sheet: the system's layout, every control in place --- */
  var timer = null;
  function refreshSoon() {
    if (timer) clearTimeout(timer);
    timer = setTimeout(function () { timer = null; refresh(); }, 30);
  }
  function when(extra) {
    var q = [];
    if (S.who !== null) q.push("character=" + encodeURIComponent(S.who));
    if (S.at !== null) q.push("at=" + S.at);
    return q.length ? "?" + q.join("&") : "";
  }
  var asking = 0;
  function refresh(early) {
    var asked = S.head, turn = ++asking;
    var drawn = (early || request("GET", API + "/sheet" + when())).then(function (data) {
      if (turn !== asking) return; /* a later read is on its way */
      S.sheet = data;
      data.head = asked;
      drawSheet(data);
      $("sheet").setAttribute("data-head", asked);
      document.body.setAttribute("data-sheet-head", asked);
      if (!document.body.hasAttribute("data-usable-ms")) document.body.setAttribute("data-usable-ms", performance.now().toFixed(0));
    }, function (err) {
      clear($("sheet")).appendChild(el("p", { "class": "empty", text: err.message }));
    });
    if (S.wide || S.pane === "table") table(turn, asked);
    return drawn;
  }
  function table(turn, asked) {
    var at = S.at !== null ? "?at=" + S.at : "";
    request("GET", API + "/sheets" + at).then(function (got) {
      if (turn !== asking) return;
      S.sheets = got.sheets;
      party(got);
      document.body.setAttribute("data-table-head", asked);
    }, function () { /* the sheets wait for the game to start */ });
    if (!S.table.map_kind) return;
    request("GET", API + "/map" + at).then(function (m) {
      if (turn !== asking) return;
      $("map-card").hidden = false;
      $("map-when").textContent = S.at === null ? "" : "v" + S.at;
      if (m.kind === "hex") { D.hexMap($("map"), m.map, { legend: m.legend }); D.hexLegend($("legend"), m.legend); }
      else if (m.kind === "zone") { D.zoneMap($("map"), m.map); D.zoneLegend($("legend")); }
      document.body.setAttribute("data-map-head", asked);
    }, function () { /* the map waits for the game to start */ });
  }
  /* Every sheet of the table, each with its title and headline (the GM picks whose sheet
     the controls act for by tapping one). */
  function party(got) {
    var box = clear($("sheets")), names = Object.keys(got.sheets);
    $("party-when").textContent = S.at === null ? "" : "v" + got.version;
    if (!names.length) { box.appendChild(el("p", { "class": "empty", text: WORDS.nobody })); return; }
    names.forEach(function (name) {
      var data = got.sheets[name];
      var card = el("article", { "class": "other" + (name === S.who ? " chosen" : ""), "data-who": name, "aria-label": name || data.view && data.view.title });
      var full = el("div", { "class": "sheet" });
      if (data.view) {
        /* each sheet in brief: its title and headline; the rest a tap away */
        full.appendChild(el("div", { "class": "sheet-title", text: data.view.title }));
        if (data.view.headline.length) full.appendChild(D.headline(el("div", { "class": "headline" }), data.view));
        if (data.view.sections.length) {
          var more = el("details", { "class": "whole" }, [el("summary", { text: WORDS.wholeSheet })]);
          D.sections(more, data.view, {});
          full.appendChild(more);
        }
      } else {
        D.sheet(full, data);
      }
      card.appendChild(full);
      if (isGM() && name && S.table.characters.indexOf(name) >= 0) {
        var pick = el("button", { type: "button", "class": "pick", "data-pick": name, "aria-pressed": name === S.who ? "true" : "false",
          text: say(name === S.who ? "asGm" : "actAs", { who: name }) });
        pick.addEventListener("click", function () { choose(name); setPane("me"); });
        card.insertBefore(pick, full);
      }
      box.appendChild(card);
    });
  }

  function ownSheet() { return S.seat.role === "player" && !!S.seat.character; }
  function controlsOf(data) {
    if (!mayAct() || !data.controls) return [];
    return data.controls.filter(function (c) { return allowed(c.command) && !gmOnly(c.command, c.args); });
  }
  /* The sheet is drawn again only when what it shows changed: a button is never replaced
     under a finger because someone else acted. */
  function drawSheet(data) {
    var sig = JSON.stringify([data.view, data.controls, data.now, data.hints, data.luck_index, S.at, S.who, S.table.commands]);
    if (sig === S.drawnSig) return;
    S.drawnSig = sig;
    var box = clear($("sheet"));
    var mine = !isGM() ? S.seat.character : S.who;
    if (!data.view) {
      D.sheet(box, data);
      clear($("sheet-rest")).hidden = true;
    } else {
      var controls = controlsOf(data), byRow = {}, placed = {};
      controls.forEach(function (c) { (byRow[c.on] = byRow[c.on] || []).push(c); });
      box.appendChild(el("div", { "class": "sheet-title", text: data.view.title }));
      /* the headline stays at the top of the page (sticky), the sheet shown's */
      var head = [];
      data.view.headline.forEach(function (r) { (byRow[r.key] || []).forEach(function (c) { head.push(c); }); placed[r.key] = 1; });
      if (head.length) box.appendChild(group("headline", head));
      /* the sections a player acts from come first, the rest after this seat's recent rolls */
      var acting = data.view.sections.filter(function (s) { return s.rows.some(function (r) { return byRow[r.key]; }); });
      var others = data.view.sections.filter(function (s) { return acting.indexOf(s) < 0; });
      D.sections(clear($("sheet-rest")), { sections: others }, {});
      $("sheet-rest").hidden = !others.length;
      D.sections(box, { sections: acting }, {
        row: function (r) {
          var here = byRow[r.key];
          if (!here) return null;
          placed[r.key] = 1;
          var covered = Array.isArray(r.value) ? here.filter(function (c) { return c.key !== null; }).length >= r.value.length :
            r.value && typeof r.value === "object" && !Array.isArray(r.value) && r.value.current === undefined ?
              here.filter(function (c) { return c.key !== null; }).length >= Object.keys(r.value).length : true;
          var node = el("div", { "class": "row-controls" });
          if (!covered) node.appendChild(D.value(r.value, r.key));
          node.appendChild(group(r.key, here));
          return node;
        }
      });
      var rest = controls.filter(function (c) { return c.on && !placed[c.on]; });
      if (rest.length) box.appendChild(el("div", { "class": "sheet-section" }, [el("h3", { text: WORDS.more }), group("more", rest)]));
      var follow = S.follow = controls.filter(function (c) { return !c.on; });
      nowBox(followUps(follow), (data.now || []).filter(function (h) {
        return !follow.some(function (c) { return h.indexOf(cap(c.label) + ":") === 0; });
      }));
    }
    if (!data.view) nowBox([], []);
    var later = (data.hints || []).filter(function (h) { return (data.now || []).indexOf(h) < 0; });
    clear($("hints")).hidden = !later.length;
    later.forEach(function (h) { $("hints").appendChild(el("li", { text: h })); });
    tracks(S.at === null || isGM() ? data : null);
    var luck = data.luck_index;
    if (luck && luck.judged) {
      box.appendChild(D.kv(_("Luck"), el("span", { "class": "val", text: n_(
        "{luck} ({successes} of {n} judged roll, {expected} expected)", "{luck} ({successes} of {n} judged rolls, {expected} expected)",
        luck.judged, { luck: luck.luck === null ? "-" : num(luck.luck, 2), successes: luck.successes, expected: num(luck.expected, 1) }) }), "luck_index"));
    }
    $("mine-title").textContent = mine ? say("mine", { who: mine }) : WORDS.ourRolls;
    forms(data);
    recent();
  }
  /* What the moment offers (a push, a panic due) and what comes next, in the page's words. */
  function nowBox(follow, hints) {
    var box = clear($("now-box"));
    if (S.at !== null) box.appendChild(el("p", { "class": "past", text: say("past", { v: S.at, head: S.head }) }));
    if (follow.length) box.appendChild(group("now", follow));
    if (hints.length) box.appendChild(el("ul", { "class": "hints", "aria-label": _("now") }, hints.map(function (h) { return el("li", { text: h }); })));
    /* a result whose control is gone from the sheet (a weapon unjammed, a panic rolled)
       stays in sight here, where the sheet begins */
    var slot = S.lastSlot, card = slot && S.cards[slot];
    if (card && !document.querySelector("[data-slot='" + slot + "']")) {
      box.appendChild(el("div", { "class": "slot", "data-slot": slot }, [card]));
    }
    box.hidden = !box.firstChild;
  }
  /* A group of controls: big buttons, then the slot where what they did shows. */
  function group(name, list, answerIn) {
    var grid = el("div", { "class": "controls", "data-group": name });
    list.forEach(function (c) {
      var b = el("button", { type: "button", "class": "control", "data-control": c.id, "data-command": c.command, "data-answer": answerIn || name,
        disabled: S.at !== null ? "disabled" : null, "aria-haspopup": needsSheet(c) ? "dialog" : null }, [
        el("span", { "class": "label", text: cap(c.label) }),
        c.detail ? el("span", { "class": "detail", text: c.detail }) : null
      ]);
      b.addEventListener("click", function () { tapControl(c, b); });
      grid.appendChild(b);
    });
    if (answerIn) return el("div", { "class": "control-group follow-up" }, [grid]);
    var slot = el("div", { "class": "slot", "data-slot": name });
    var kept = S.cards[name];
    if (kept) slot.appendChild(kept);
    return el("div", { "class": "control-group" }, [grid, slot]);
  }
  /* What follows a result (a push, luck to spend): in the card of this seat's last result,
     so it is tapped where the roll was; with none on the page, at the top. */
  function followUps(list) {
    var card = S.lastSlot ? S.cards[S.lastSlot] : null;
    Object.keys(S.cards).forEach(function (k) {
      var old = S.cards[k].querySelector(".follow-up");
      if (old) old.parentNode.removeChild(old);
    });
    if (!list.length) return [];
    if (card && card.getAttribute("data-action") && document.body.contains(card)) {
      card.appendChild(group("follow", list, S.lastSlot));
      return [];
    }
    return list;
  }
  function needsSheet(c) { return c.options.length > 0 || !c.ready || askFirst(c.command, c.args); }
  /* --- the sheet of options: a control's, or a form's fields --- */
  function tapControl(c, button) {
    if (S.at !== null) return;
    var anchor = { slot: button.getAttribute("data-answer") };
    if (!needsSheet(c)) { act(c.command, Object.assign({}, c.args), { label: c.label, anchor: anchor, rolls: c.rolls }); return; }
    openOptions({
      title: cap(c.label) + (c.detail ? " \u00b7 " + c.detail : ""),
      help: "",
      fields: mayFill(c.command, c.options.map(function (o) { return Object.assign({}, o, { required: o.required && !(o.field in c.args) }); })),
      command: c.command, go: cap(c.label), args: c.args, anchor: anchor, label: c.label, rolls: c.rolls
    }, button);
  }
  function tapForm(f, button) {
    var choices = (S.sheet && S.sheet.choices && S.sheet.choices[f.command]) || {};
    openOptions({
      title: cap(f.label), help: f.help, name: f.name,
      fields: mayFill(f.command, f.asks.map(function (a) { return Object.assign({}, a, choices[a.field] ? { choices: choices[a.field] } : {}); })),
      command: f.command, send: f.send, go: cap(f.label), args: {}, seen: f.seen, anchor: { slot: "form-" + f.group }, label: f.label, rolls: f.rolls
    }, button);
  }
  function fieldInput(f) {
    var id = "opt-" + f.field, node, shown = f.default;
    var label = f.scale > 1 ? say("unit", { label: f.label, unit: f.label }) : f.label;
    if (f.type === "boolean") {
      node = el("input", { id: id, name: f.field, type: "checkbox" });
      node.checked = f.flip ? f["default"] === false : f["default"] === true;
      return el("div", { "class": "field toggle" }, [el("label", { "for": id }, [node, el("span", { text: f.label })]),
        f.help ? el("p", { "class": "help", text: f.help }) : null]);
    }
    if (f.choices && f.type === "list") {
      var boxes = f.choices.map(function (c, i) {
        var b = el("input", { type: "checkbox", name: f.field, value: c, id: id + "-" + i });
        return el("label", { "class": "chip-check", "for": id + "-" + i }, [b, String(c)]);
      });
      return el("fieldset", { "class": "field" }, [el("legend", { text: f.label })].concat(boxes, [f.help ? el("p", { "class": "help", text: f.help }) : null]));
    }
    if (f.choices) {
      var opts = (f.required && shown !== null && shown !== undefined ? [] : [el("option", { value: "", text: WORDS.anyChoice })]).concat(
        f.choices.map(function (c) { return el("option", { value: String(c), text: String(c) }); }));
      node = el("select", { id: id, name: f.field }, opts);
      if (shown !== null && shown !== undefined) node.value = String(shown);
      else if (f.required && f.choices.length) node.value = "";
    } else if (f.type === "integer" || f.type === "number") {
      node = el("input", { id: id, name: f.field, type: "number", inputmode: f.scale > 1 ? "decimal" : "numeric",
        step: f.scale > 1 || f.type === "number" ? "any" : 1, min: f.low, max: f.high });
      if (shown !== null && shown !== undefined) node.value = f.scale > 1 ? String(shown / f.scale) : String(shown);
    } else {
      node = el("input", { id: id, name: f.field, type: "text", maxlength: 10000, autocomplete: "off",
        placeholder: f.type === "list" ? _("a, b, c") : f.type === "pairs" ? _("key=value, key=value") : "" });
      if (typeof shown === "string") node.value = shown;
    }
    var row = el("div", { "class": "field" }, [el("label", { "for": id, text: label + (f.required ? "" : "") }), node,
      f.help ? el("p", { "class": "help", text: f.help }) : null]);
    if ((f.type === "integer") && f.scale === 1 && !f.choices) {
      var less = el("button", { type: "button", "class": "step", "aria-label": _("{label}: one less", { label: f.label }), text: "\u2212" });
      var more = el("button", { type: "button", "class": "step", "aria-label": _("{label}: one more", { label: f.label }), text: "+" });
      less.addEventListener("click", function () { bump(node, -1, f); });
      more.addEventListener("click", function () { bump(node, 1, f); });
      row.insertBefore(el("div", { "class": "stepper" }, [less, node, more]), row.children[1]);
    }
    return row;
  }
  function bump(node, by, f) {
    var v = (node.value === "" ? (f.low !== null && f.low !== undefined && f.low > 0 ? f.low - by : 0) : +node.value) + by;
    if (f.low !== null && f.low !== undefined) v = Math.max(f.low, v);
    if (f.high !== null && f.high !== undefined) v = Math.min(f.high, v);
    node.value = String(v);
  }
  function openOptions(spec, from) {
    S.open = { spec: spec, from: from };
    $("options-title").textContent = spec.title;
    $("options-help").textContent = spec.help || "";
    $("options-help").hidden = !spec.help;
    $("options-confirm").textContent = WORDS.confirm;
    $("options-confirm").hidden = !askFirst(spec.command, spec.args);
    var fields = clear($("options-fields"));
    spec.fields.forEach(function (f) { fields.appendChild(fieldInput(f)); });
    if (spec.rolls && $("roll-mode")) fields.appendChild(rollModeField());
    $("options-problem").hidden = true;
    $("options-go").textContent = spec.go;
    $("options").hidden = false;
    $("panes").setAttribute("inert", "");
    $("top").setAttribute("inert", "");
    $("tabs").setAttribute("inert", "");
    $("gm-bar").setAttribute("inert", "");
    var first = fields.querySelector("select, input:not([type=checkbox])");
    (spec.fields.some(function (f) { return f.required; }) && first ? first : $("options-go")).focus();
  }
  function rollModeField() {
    /* the page's one roll mode (the dice box's), offered again where a tap rolls */
    var global = $("roll-mode"), node = global.cloneNode(true);
    node.id = "opt-roll-mode"; node.name = "roll_mode"; node.value = global.value;
    node.addEventListener("change", function () { global.value = node.value; markRollMode(); });
    return el("div", { "class": "field" }, [el("label", { "for": node.id, text: WORDS.rollMode }), node]);
  }
  function markRollMode() {
    var mode = $("roll-mode") ? $("roll-mode").value : "public";
    document.body.setAttribute("data-roll-mode", mode);
    var mark = $("roll-mode-mark");
    if (mark) { mark.hidden = mode === "public"; mark.textContent = WORDS.sealedFor[mode] || ""; }
  }
  function closeOptions() {
    var was = S.open;
    S.open = null;
    $("options").hidden = true;
    $("panes").removeAttribute("inert");
    $("top").removeAttribute("inert");
    $("tabs").removeAttribute("inert");
    $("gm-bar").removeAttribute("inert");
    if (was && was.from && document.body.contains(was.from)) was.from.focus();
  }
  function collect(spec) {
    var form = $("options-form"), args = Object.assign({}, spec.args), problem = null;
    spec.fields.forEach(function (f) {
      if (problem) return;
      if (f.type === "boolean") {
        var box = form.querySelector("[name='" + f.field + "']");
        var on = f.flip ? !box.checked : box.checked;
        if (on !== (f["default"] === true)) args[f.field] = on;
        else if (f["default"] === true || f["default"] === false) args[f.field] = on;
        return;
      }
      if (f.choices && f.type === "list") {
        var picked = Array.prototype.filter.call(form.querySelectorAll("[name='" + f.field + "']"), function (b) { return b.checked; })
          .map(function (b) { return b.value; });
        if (picked.length) args[f.field] = picked;
        else if (f.required) problem = say("required", { label: f.label });
        return;
      }
      var node = form.querySelector("[name='" + f.field + "']"), raw = node.value.trim();
      if (raw === "") { if (f.required) problem = say("required", { label: f.label }); return; }
      if (f.type === "integer" || f.type === "number") {
        var n = Number(raw) * (f.scale || 1);
        if (f.type === "integer" && Math.round(n) !== n) { problem = say("wholeMinutes", { label: f.label, value: raw, unit: f.scale > 1 ? _("minutes") : f.label }); return; }
        args[f.field] = n;
      } else if (f.type === "list") {
        args[f.field] = raw.split(",").map(function (x) { return x.trim(); }).filter(Boolean);
      } else if (f.type === "pairs") {
        var o = {};
        raw.split(",").forEach(function (pair) { var kv = pair.split("="); if (kv[0].trim()) o[kv[0].trim()] = (kv.slice(1).join("=") || "").trim(); });
        args[f.field] = o;
      } else {
        args[f.field] = f.choices && typeof f.choices[0] === "number" ? Number(raw) : raw;
      }
    });
    return { args: args, problem: problem };
  }

  /* --- acting, and showing what came of it where it was tapped --- */
  function faces() {
    if (!$("real").checked) return undefined;
    var raw = $("faces").value.trim();
    if (!raw) return undefined;
    return raw.split(/[\s,]+/).filter(Boolean).map(function (f) { return /^\d+$/.test(f) ? +f : f; });
  }
  function act(command, args, how) {
    if (isGM() && S.who && args.actor === undefined && !how.own) args.actor = S.who; /* the GM acts as the sheet shown */
    var body = { command: command, args: args };
    if (how.seen) body.expected_version = S.head; /* a command that names the state it acts on */
    var f = faces();
    if (f !== undefined) body.faces = f;
    var mode = $("roll-mode") ? $("roll-mode").value : "public";
    if (mode !== "public" && how.rolls) body.visibility = mode; /* a roll made private or blind (Foundry's roll modes) */
    var slot = how.anchor.slot, card = pendingCard(slot, how.label);
    S.lastSlot = slot;
    return request("POST", API + "/actions", body).then(function (answer) {
      if (f !== undefined) { $("faces").value = ""; $("real").checked = false; $("faces-label").hidden = true; }
      if (typeof answer.version === "number") S.head = Math.max(S.head, answer.version);
      whenEntries(answer, function (list) { resultCard(card, slot, list, answer); });
    }, function (err) {
      refusedCard(card, slot, err);
    });
  }
  function pendingCard(slot, label) {
    var card = el("div", { "class": "result pending", role: "status", text: say("sending", { label: cap(label) }) });
    put(slot, card);
    return card;
  }
  function put(slot, card) {
    S.cards[slot] = card;
    var where = document.querySelector("[data-slot='" + slot + "']");
    if (where) {
      clear(where).appendChild(card);
      if (card.scrollIntoView) card.scrollIntoView({ block: "nearest" });
    }
  }
  /* The entries an answer recorded, once the stream brought them (or read, if it is slow). */
  function whenEntries(answer, done) {
    var n = answer.events ? answer.events.length : 0, finished = false;
    function have() {
      var got = S.byAction[answer.action];
      return got && Object.keys(got).length >= n ? Object.keys(got).map(Number).sort(function (a, b) { return a - b; }).map(function (v) { return got[v]; }) : null;
    }
    function finish(list) { if (finished) return; finished = true; delete S.waiting[answer.action]; done(list); }
    var found = have();
    if (found) { finish(found); return; }
    S.waiting[answer.action] = function () { var f = have(); if (f) finish(f); };
    setTimeout(function () {
      if (finished) return;
      request("GET", API + "/events?after=" + Math.max(0, answer.version - n)).then(function (page) {
        receive(page.events);
        finish(have() || page.events.filter(function (e) { return e.action === answer.action; }));
      }, function () { finish([]); });
    }, 1500);
  }
  /* What a roll came to, in a few words of its own data: successes, a level, a total. */
  function outcome(list) {
    for (var i = 0; i < list.length; i++) {
      var top = list[i].event || {}, found = said(top) || (top.roll && typeof top.roll === "object" ? said(top.roll) : null);
      if (found) return found;
    }
    return null;
  }
  /* A d100 roll's level of success (its stable key) in words. */
  var LEVELS = { fumble: p_("d100 level", "fumble"), failure: p_("d100 level", "failure"), success: p_("d100 level", "success"),
    special: p_("d100 level", "special"), critical: p_("d100 level", "critical") };
  function said(ev) {
    if (typeof ev.successes === "number") {
      return { text: ev.successes === 0 ? WORDS.noSuccess : n_("{n} success", "{n} successes", ev.successes), good: ev.successes > 0 };
    }
    if (typeof ev.level === "string") return { text: (LEVELS[ev.level] || ev.level).toUpperCase(), good: /success|special|critical/.test(ev.level) };
    if (typeof ev.success === "boolean") {
      var verdict = ev.success ? WORDS.success : WORDS.failure;
      return { text: typeof ev.total === "number" && typeof ev.target === "number" ? say("against", { total: ev.total, target: ev.target, verdict: verdict }) : verdict, good: ev.success };
    }
    if (ev.result && typeof ev.result.total === "number") return { text: say("total", { n: ev.result.total }), good: null };
    if (typeof ev.call === "string" && typeof ev.face === "string") return { text: ev.face, good: ev.call === ev.face };
    return null;
  }
  function resultCard(card, slot, list, answer) {
    var shown = [];
    list.forEach(function (e) { facesOf(e).forEach(function (f) { shown.push(f); }); });
    var first = list[0], said = outcome(list);
    var lines = list.map(function (e) { return e.summary; });
    var fresh = el("div", { "class": "result" + (said && said.good === true ? " good" : said && said.good === false ? " bad" : ""),
      role: "status", "data-action": answer.action, "data-version": answer.version }, [
      shown.length ? dice(shown, true) : null,
      said ? el("div", { "class": "outcome", text: said.text }) : null,
      el("ul", { "class": "said" }, lines.map(function (t) { return el("li", { text: t }); })),
      el("div", { "class": "muted small", text: say("recorded", { version: answer.version }) })
    ]);
    if (card.parentNode) card.parentNode.replaceChild(fresh, card);
    S.cards[slot] = fresh;
    announce(say("youRolled", { who: first && first.who ? first.who : "", text: (said ? said.text + ". " : "") + lines.join(". ") }));
    document.body.setAttribute("data-last-action", answer.action);
    if (S.follow && S.follow.length) { S.drawnSig = null; if (S.sheet) drawSheet(S.sheet); } /* its follow-ups, if the sheet came first */
  }
  /* A refusal in the page's words: the command line's name of a fix (`ledger yz tick`, `--item`)
     becomes the page's button or field that does it. */
  function pageWords(err) {
    var e = err.body && err.body.error, text = err.message, fix = e && e.fix;
    if (fix && fix.action === "command") {
      var last = String(fix.command).split(" ").pop();
      var form = (S.table.forms || []).filter(function (f) {
        return f.name.split(" ").pop() === last && (!fix.system || f.command.indexOf(fix.system + ".") === 0);
      })[0];
      if (form) text = text.replace(/`ledger [^`]*`/, say(form.sheet ? "onSheet" : "inGroup", { label: form.label, group: form.group }));
    }
    return text.replace(/`--([a-z][a-z-]*)[^`]*`/g, function (_, name) { return say("field", { name: name }); });
  }
  function refusedCard(card, slot, err) {
    var text = err.status === 409 ? say("stale", { head: S.head }) : err.status ? say("refused", { message: pageWords(err) }) : WORDS.lost;
    var fresh = el("div", { "class": "result refused", role: "alert", text: text });
    if (card.parentNode) card.parentNode.replaceChild(fresh, card);
    S.cards[slot] = fresh;
  }

  /* --- the forms that remain, grouped by what a player is doing --- */
  function forms(data) {
    /* drawn again only when what they offer changed: a form is never replaced under a finger */
    var sig = JSON.stringify([S.table.forms, S.table.commands, S.at, S.who]);
    if (sig === S.formsSig) return;
    S.formsSig = sig;
    var box = clear($("forms")), groups = {}, order = [];
    if (!mayAct() || S.at !== null) { box.hidden = true; return; }
    (S.table.forms || []).forEach(function (f) {
      if (f.sheet || f.command === "core.Roll" || !allowed(f.command)) return;
      if (f.creates && !isGM()) return;
      if (!groups[f.group]) { groups[f.group] = []; order.push(f.group); }
      groups[f.group].push(f);
    });
    order.forEach(function (name) {
      var buttons = el("div", { "class": "form-buttons" }, groups[name].map(function (f) {
        var b = el("button", { type: "button", "class": "form-button", "data-command": f.command, "data-form": f.name, "aria-haspopup": "dialog",
          title: f.help || null, text: f.label });
        b.addEventListener("click", function () { tapForm(f, b); });
        return b;
      }));
      var details = el("details", { "class": "form-group", "data-group": name }, [el("summary", { text: name }), buttons,
        el("div", { "class": "slot", "data-slot": "form-" + name })]);
      if (S.openGroups && S.openGroups[name]) details.open = true;
      details.addEventListener("toggle", function () { (S.openGroups = S.openGroups || {})[name] = details.open; });
      var kept = S.cards["form-" + name];
      if (kept) details.querySelector(".slot").appendChild(kept);
      box.appendChild(details);
    });
    box.hidden = !order.length;
  }

  /* --- this seat's recent rolls --- */
  function recent() {
    var box = clear($("recent")), mine = isGM() ? S.who : S.seat && S.seat.character, label = S.seat && S.seat.label, shown = 0;
    for (var i = S.versions.length - 1; i >= 0 && shown < 8; i--) {
      var e = S.entries[S.versions[i]];
      if (e.undone || !facesOf(e).length) continue;
      var ours = mine ? (e.who ? e.who === mine : e.actor === mine) : e.decision && e.decision.seat === label;
      if (!ours) continue;
      box.appendChild(el("li", { "class": "entry", "data-version": e.version }, [
        el("span", { "class": "summary", text: e.summary }), dice(facesOf(e))
      ]));
      shown++;
    }
    if (!shown) box.appendChild(el("li", { "class": "empty", text: WORDS.noRolls }));
  }

  /* --- whose sheet: a player's own; the GM's pick --- */
  function who() {
    var box = clear($("who")), names = S.table.characters;
    if (S.who === null && S.seat.character) S.who = S.seat.character;
    if (S.who === null && isGM() && names.length) S.who = names[0];
    if (!isGM() || names.length < 2) { box.hidden = true; return; }
    box.hidden = false;
    names.forEach(function (n) {
      var b = el("button", { type: "button", role: "tab", "data-who": n, "aria-selected": n === S.who ? "true" : "false", text: n });
      b.addEventListener("click", function () { choose(n); });
      box.appendChild(b);
    });
  }
  function choose(name) {
    S.who = name;
    S.cards = {};
    who();
    recent();
    refresh();
  }

  /* --- the GM: undo and redo, naming what they take back --- */
  function lastStanding(undone) {
    for (var i = S.versions.length - 1; i >= 0; i--) {
      var e = S.entries[S.versions[i]];
      if (RESET_KINDS[e.kind] || e.kind === "campaign.started" || e.kind === "branch.forked") continue;
      if (!!e.undone === undone) return e;
    }
    return null;
  }
  /* An entry in a few words: who, then what, unless what says who already. */
  function told(e) {
    return e.who && e.summary.indexOf(e.who) !== 0 ? e.who + ": " + e.summary : e.summary;
  }
  /* Undo and redo name what they take back or bring back: the verb, and under it the
     action (cut to the button's width; the whole of it in the button's title and its
     accessible name). */
  function undoLabels() {
    if (!isGM()) return;
    var newest = S.versions.length ? S.entries[S.versions[S.versions.length - 1]] : null;
    /* a redo brings back what an undo took, while nothing new was recorded since */
    var u = lastStanding(false), r = newest && RESET_KINDS[newest.kind] ? lastStanding(true) : null;
    label($("undo"), u, "undoLast", WORDS.nothingToUndo, WORDS.undo);
    label($("redo"), r, "redoLast", WORDS.nothingToRedo, WORDS.redo);
  }
  function label(button, e, key, none, verb) {
    var what = e ? told(e) : "";
    clear(button);
    button.appendChild(el("span", { "class": "verb", text: verb }));
    button.appendChild(el("span", { "class": "what", text: what || none }));
    button.title = e ? say(key, { what: what }) : verb;
    button.setAttribute("aria-label", button.title);
    button.disabled = !e;
  }
  /* On a phone the GM's bar shows undo and redo; time travel and the fork open below them
     (and stay open while the page shows the past, so "Back to now" is in reach). */
  function gmMore(open) {
    $("gm-more").setAttribute("aria-expanded", open ? "true" : "false");
    if (open) $("gm-bar").setAttribute("data-open", "1");
    else $("gm-bar").removeAttribute("data-open");
  }
  function gmWrite(path, body, done) {
    var said = $("gm-said");
    said.textContent = "";
    return request("POST", API + path, body).then(function (answer) {
      if (answer && typeof answer.version === "number") S.head = Math.max(S.head, answer.version);
      said.textContent = answer && answer.version ? say("recorded", { version: answer.version }) : "";
      if (done) done(answer);
    }, function (err) {
      said.textContent = err.status === 409 ? say("stale", { head: S.head }) : say("refused", { message: pageWords(err) });
    });
  }

  /* --- the provable dice, the seats --- */
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
        el("div", {}, [el("span", { "class": "k", text: seed === undefined ? WORDS.openCommitment : WORDS.commitment }), el("code", { text: c })]),
        el("div", {}, [el("span", { "class": "k", text: WORDS.playersSeed }), el("code", { text: S.seeded[c] || WORDS.none })]),
        el("div", {}, [el("span", { "class": "k", text: WORDS.drawn }), String(drawn)]),
        seed === undefined ? el("div", { "class": "muted small", text: WORDS.pending }) :
          el("div", {}, [el("span", { "class": "k", text: WORDS.seed }), el("code", { text: seed }),
            ok === true ? el("span", { "class": "badge verified", text: WORDS.verified }) :
              ok === false ? el("span", { "class": "badge bad", text: WORDS.mismatch }) : null])
      ]));
    });
  }
  /* The seats of the table (the GM's): each seat, whether a device joined it, a revoke
     (tapped twice: a seat revoked is gone for every device it seated), and the invite
     panel, whose answer shows the link and its QR code, an image from the server's SVG
     (an <img> runs no script), never HTML. */
  function seats() {
    if (!isGM()) return;
    $("gm-card").hidden = false;
    request("GET", API + "/seats").then(seatList, function () { /* nothing to list */ });
  }
  function seatList(list) {
    var ul = clear($("seat-list")), held = list.filter(function (s) { return !s.revoked; });
    ul.setAttribute("aria-label", n_("{n} seat", "{n} seats", held.length));
    held.forEach(function (s) {
      var role = WORDS.roles[s.role] || s.role;
      var line = s.character ? say("seatOf2", { label: s.label, role: role, who: s.character }) : say("seatLine", { label: s.label, role: role });
      var state = s.label === S.seat.label ? WORDS.thisPage : s.reusable ? WORDS.reusable : s.joined ? WORDS.joined : WORDS.notJoined;
      var li = el("li", { "class": "seat-row", "data-seat": s.label, "data-joined": s.joined ? "1" : "0" }, [
        el("span", { "class": "seat-name", text: line }),
        el("span", { "class": "seat-state muted small", text: state })
      ]);
      if (s.label !== S.seat.label) {
        var b = el("button", { type: "button", "class": "revoke", "data-revoke": s.label, text: WORDS.revoke });
        b.addEventListener("click", function () { revokeSeat(s.label, b); });
        li.appendChild(b);
      }
      ul.appendChild(li);
    });
    var shown = S.invited && held.filter(function (s) { return s.label === S.invited; })[0];
    if (shown && shown.joined && !shown.reusable) {
      $("invited-joined").textContent = say("invitedJoined", { label: shown.label });
      S.invited = null;
    }
  }
  function revokeSeat(label, button) {
    if (!button.classList.contains("sure")) {
      button.classList.add("sure");
      button.textContent = say("revokeSure", { label: label });
      setTimeout(function () { if (document.body.contains(button)) { button.classList.remove("sure"); button.textContent = WORDS.revoke; } }, 4000);
      return;
    }
    button.disabled = true;
    request("DELETE", API + "/seats/" + encodeURIComponent(label)).then(function () {
      $("invite-said").hidden = true;
      $("gm-said").textContent = say("revoked2", { label: label });
      if (S.invited === label) { $("invited").hidden = true; S.invited = null; }
      seats();
    }, function (err) {
      $("invite-said").textContent = err.message;
      $("invite-said").hidden = false;
      button.disabled = false;
    });
  }
  function inviteChoices() {
    var pick = $("invite-character"), was = pick.value;
    clear(pick);
    (S.table.characters || []).forEach(function (n) { pick.appendChild(el("option", { value: n, text: n })); });
    if (was && S.table.characters.indexOf(was) >= 0) pick.value = was;
    inviteRole();
  }
  function inviteRole() {
    var player = $("invite-role").value === "player";
    $("invite-character").hidden = !player;
    $("invite-character-label").hidden = !player;
    $("invite-label").placeholder = player ? ($("invite-character").value || "") : $("invite-role").value;
  }
  function invite() {
    var body = { role: $("invite-role").value, reusable: $("invite-reusable").checked };
    if (body.role === "player") body.character = $("invite-character").value;
    if ($("invite-label").value.trim()) body.label = $("invite-label").value.trim();
    $("invite-said").hidden = true;
    $("invite-go").disabled = true;
    request("POST", API + "/seats", body).then(function (answer) {
      $("invite-go").disabled = false;
      var seat = answer.seat;
      S.invited = seat.label;
      $("invite-qr").src = "data:image/svg+xml," + encodeURIComponent(answer.qr_svg);
      $("invite-qr").alt = say("qrOf", { label: seat.label });
      var whom = seat.character || WORDS.invitedAs[seat.role] || seat.role;
      $("invited-who").textContent = say(seat.label === seat.character ? "invitedWho" : "invitedLabel", { who: whom, label: seat.label });
      $("invited-how").textContent = seat.reusable ? WORDS.invitedMany : WORDS.invitedOnce;
      $("invite-link").textContent = answer.link;
      $("invite-copy").textContent = WORDS.copy;
      $("invited-joined").textContent = "";
      $("invited").hidden = false;
      $("invite-label").value = "";
      $("invite-reusable").checked = false;
      $("invite-box").open = false;
      seats();
      watchSeats();
    }, function (err) {
      $("invite-go").disabled = false;
      $("invite-said").textContent = err.message;
      $("invite-said").hidden = false;
    });
  }
  /* While an invited link waits for its phone, the list is read again every few seconds,
     so the GM sees it joined. */
  function watchSeats() {
    if (S.seatTimer) return;
    var until = Date.now() + 10 * 60 * 1000;
    S.seatTimer = setInterval(function () {
      if (!S.invited || Date.now() > until) { clearInterval(S.seatTimer); S.seatTimer = null; return; }
      seats();
    }, 3000);
  }

  /* --- a fork takes the table along: the GM goes to it, every other seat is offered it --- */
  function offer(o) {
    S.offers = S.offers || {};
    if (!o || !o.url || S.offers[o.url] || (S.declined && S.declined[o.url])) return;
    S.offers[o.url] = o;
    var box = $("offers");
    var take = el("button", { type: "button", "class": "primary", "data-offer": o.campaign, text: say("takeOffer", { name: o.campaign }) });
    var later = el("button", { type: "button", "class": "later", text: WORDS.later });
    var card = el("div", { "class": "offer", role: "status", "data-offer": o.campaign }, [
      el("p", { text: say(o.character ? "offered" : "offeredSeat", { name: o.campaign, who: o.character }) }),
      el("div", { "class": "offer-buttons" }, [take, later])
    ]);
    take.addEventListener("click", function () {
      take.disabled = true;
      request("POST", o.url).then(function (answer) { location.assign(answer.page); }, function (err) {
        take.disabled = false;
        card.replaceChild(el("p", { "class": "problem", text: err.message }), card.firstChild);
      });
    });
    later.addEventListener("click", function () {
      (S.declined = S.declined || {})[o.url] = 1;
      box.removeChild(card);
      box.hidden = !box.firstChild;
    });
    box.appendChild(card);
    box.hidden = false;
  }

  /* --- panes: one at a time on a phone, side by side on a laptop --- */
  function setPane(name) {
    S.pane = name;
    $("panes").setAttribute("data-pane", name);
    Array.prototype.forEach.call($("tabs").children, function (b) { b.setAttribute("aria-selected", b.getAttribute("data-pane") === name ? "true" : "false"); });
    if (name === "table" && !S.wide) refresh();
    window.scrollTo(0, 0);
  }
  function layout() {
    var wide = window.matchMedia("(min-width: 1000px)").matches;
    var was = S.wide;
    S.wide = wide;
    document.body.setAttribute("data-wide", wide ? "1" : "0");
    if (wide && !was && S.table) refresh();
  }

  function wire() {
    if ($("roll-mode")) $("roll-mode").addEventListener("change", markRollMode);
    $("real").addEventListener("change", function () { $("faces-label").hidden = !$("real").checked; if ($("real").checked) $("faces").focus(); });
    $("dice-box").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var args = { notation: $("notation").value.trim() };
      if ($("roll-label").value.trim()) args.label = $("roll-label").value.trim();
      act("core.Roll", args, { label: args.label || args.notation, anchor: { slot: "dice" }, own: true, rolls: true });
    });
    $("options-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var open = S.open;
      if (!open) return;
      var got = collect(open.spec);
      if (!got.problem && gmOnly(open.spec.command, got.args)) got.problem = WORDS.gmValue;
      if (got.problem) { $("options-problem").textContent = got.problem; $("options-problem").hidden = false; return; }
      /* asked once: what cannot be taken back says so before it is sent (a value ticked
         in the sheet, as luck spent, shows it as it is ticked) */
      if (askFirst(open.spec.command, got.args) && $("options-confirm").hidden) { $("options-confirm").hidden = false; return; }
      closeOptions();
      act(open.spec.send || open.spec.command, got.args, { label: open.spec.label, anchor: open.spec.anchor, seen: open.spec.seen, rolls: open.spec.rolls });
    });
    $("options-form").addEventListener("change", function () {
      var open = S.open;
      if (open) $("options-confirm").hidden = !askFirst(open.spec.command, collect(open.spec).args);
    });
    $("options-cancel").addEventListener("click", closeOptions);
    $("options").addEventListener("click", function (ev) { if (ev.target === $("options")) closeOptions(); });
    document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && S.open) closeOptions(); });
    Array.prototype.forEach.call($("tabs").children, function (b) {
      b.addEventListener("click", function () { setPane(b.getAttribute("data-pane")); });
    });
    window.addEventListener("resize", layout);
    $("gm-more").addEventListener("click", function () { gmMore($("gm-more").getAttribute("aria-expanded") !== "true"); });
    $("undo").addEventListener("click", function () { gmWrite("/undo", { count: 1, expected_version: S.head }); });
    $("redo").addEventListener("click", function () { gmWrite("/redo", { count: 1, expected_version: S.head }); });
    $("reveal-all").textContent = WORDS.revealAll;
    $("reveal-all").addEventListener("click", function () { gmWrite("/reveal", { all: true }); });
    $("step-slider").addEventListener("input", function () { goTo(+$("step-slider").value); });
    $("prev-step").addEventListener("click", function () { goTo(stepIndex() - 1); });
    $("next-step").addEventListener("click", function () { goTo(stepIndex() + 1); });
    $("prev-day").addEventListener("click", function () { moveDay(-1); });
    $("next-day").addEventListener("click", function () { moveDay(1); });
    $("now").addEventListener("click", function () { S.at = null; timeline(); refresh(); });
    $("fork-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var body = { name: $("fork-name").value.trim() };
      if (S.at !== null) body.at = S.at;
      gmWrite("/fork", body, function (answer) {
        $("fork-name").value = "";
        $("gm-said").textContent = say("forkTaking", { name: answer.name, at: answer.at });
        /* the GM goes to the fork at once; every other seat is offered its own there */
        request("POST", answer.take).then(function (taken) { location.assign(taken.page); }, function (err) {
          $("gm-said").textContent = say("refused", { message: err.message });
        });
      });
    });
    $("invite-form").addEventListener("submit", function (ev) { ev.preventDefault(); invite(); });
    $("invite-role").addEventListener("change", inviteRole);
    $("invite-character").addEventListener("change", inviteRole);
    $("invite-copy").addEventListener("click", function () {
      var link = $("invite-link"), range = document.createRange();
      range.selectNodeContents(link); /* selected, for a copy by hand where the clipboard is closed (plain HTTP) */
      window.getSelection().removeAllRanges();
      window.getSelection().addRange(range);
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(link.textContent).then(function () { $("invite-copy").textContent = WORDS.copied; }, function () { /* selected */ });
      }
    });
    $("seed-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      request("POST", API + "/dice/seed", { client_seed: $("players-seed").value.trim() }).then(function () { $("players-seed").value = ""; },
        function (err) { notice(err.message); });
    });
    $("reveal-form").addEventListener("submit", function (ev) {
      ev.preventDefault();
      var seed = $("next-seed").value.trim();
      gmWrite("/dice/reveal", seed ? { client_seed: seed } : {}, function () { $("next-seed").value = ""; });
    });
  }
  function reloadTable() {
    request("GET", API).then(function (t) {
      S.table = t;
      header();
      who();
      if (isGM()) inviteChoices();
      (t.offers || []).forEach(offer);
    }, function (err) { notice(err.message); });
  }

  function start() {
    if (chosenElsewhere()) return;
    staticWords();
    languagePicker();
    layout();
    if (!campaign) { notice(WORDS.noCampaign); return; }
    var early = request("GET", API + "/sheet"); /* a player's own sheet, asked with the table, not after it */
    early.catch(function () { return null; });
    request("GET", API).then(function (t) {
      S.table = t;
      S.seat = t.seat;
      S.head = S.seenHead = t.head; /* the sheet read with it is of this version */
      header();
      who();
      document.body.setAttribute("data-role", S.seat.role);
      $("gm-bar").hidden = !isGM();
      $("dice").hidden = !mayAct();
      wire();
      seats();
      if (isGM()) inviteChoices();
      (t.offers || []).forEach(offer);
      /* the sheet first: the log is read once it is drawn and painted (a long campaign's
         log is hundreds of entries, which a phone need not wait for) */
      refresh(isGM() ? null : early).then(function () {
        setTimeout(function () {
          readAll(0, function (list, head) {
            receive(list, true);
            S.head = Math.max(S.head, head);
            follow();
            document.body.setAttribute("data-ready", "1");
          });
        }, 0);
      });
    }, function (err) {
      live("closed");
      notice(err.status === 401 ? say("relink", { message: err.message }) : err.message);
    });
  }
  start();
})();
