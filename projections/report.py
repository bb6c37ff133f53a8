"""The campaign report: everything the HTML report shows, folded from the log once.

:func:`build` walks a campaign's whole branch forward a single time, keeping
the state after every version (states are frozen and share their parts, so
this is cheap). Undo and redo are resets to an earlier version's state, so the
state after a reset is simply the one already kept for its target. From those
states it projects, for every step of the effective history (the end of each
effective action): the sheet of each character (``ReadModel.sheet``), the map, the
journal (``ReadModel.journal``), the tracks (every meter of a sheet, and what the
system adds) and the rolls against their exact probability of success
(``ReadModel.facts``). What a system draws beyond that (its map, tracks, charts,
meters and legend) comes from its ``ReadModel.report`` hooks. The branch's full
log, with undone actions, resets and forks, and the chain hash of its last event
come along.

Repeated values (a hex that did not change, a journal line, a sheet that an
action left alone) are stored once in ``pool`` and referred to by index, so a
long campaign stays small. :func:`render` turns the data into one
self-contained HTML page (see ``projections/report_assets``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ledger import i18n
from ledger.deciding.commands import told_actions
from ledger.errors import Fix, Input, RunCommand, TamperError
from ledger.facts import judged_rolls
from ledger.i18n import N_, _
from ledger.log.events import RESETS, BranchForked, CampaignStarted, Envelope, Event
from ledger.log.state import CampaignState, evolve, told_as, told_party
from ledger.projections import sheets as sheets_view
from ledger.projections.stats.maths import luck_index
from ledger.systems import System, Track
from ledger.trust import outfile
from ledger.trust.integrity import verify_dice

if TYPE_CHECKING:
    from ledger.campaign import Campaign, Ledger

ASSETS = Path(__file__).resolve().parent / "report_assets"
Segments = list[tuple[int, int]]


class Pool(msgspec.Struct):
    """Interned JSON values: each distinct value is kept once, referred to by index."""

    values: list[Any] = msgspec.field(default_factory=list)
    index: dict[str, int] = msgspec.field(default_factory=dict)

    def add(self, value: Any) -> int:
        key = json.dumps(value, sort_keys=True, default=str)
        found = self.index.get(key)
        if found is None:
            found = self.index[key] = len(self.values)
            self.values.append(value)
        return found


# --- folding the branch once -------------------------------------------------------------


def fold(
    envelopes: Iterable[Envelope[Any]], system: System, name: str = ""
) -> tuple[dict[int, Envelope[Any]], dict[int, CampaignState]]:
    """Every envelope of the branch and the effective state after each version.

    One forward pass: an event folds onto the state of the version before it;
    an undo or redo takes the state kept for its target (an earlier version, and
    ``last_reset`` names an undo or redo at or before the event, so every walk
    over resets goes down; a log breaking that is refused as tampered)."""
    envs: dict[int, Envelope[Any]] = {}
    states: dict[int, CampaignState] = {0: CampaignState()}
    previous = CampaignState()
    for env in envelopes:
        envs[env.v] = env
        r = env.v if isinstance(env.event, RESETS) else env.last_reset
        if r and not (r in envs and isinstance(envs[r].event, RESETS) and 0 < envs[r].event.target < r):
            raise TamperError(
                name,
                env.v,
                _("its last undo or redo is out of place"),
                fix=RunCommand(text=_("verify the campaign"), command="verify"),
            )
        if isinstance(env.event, RESETS):
            previous = states[env.event.target]
        else:
            previous = evolve(previous, env, system)
            if name and previous.core.name != name:  # imported under another name
                previous = msgspec.structs.replace(
                    previous, core=msgspec.structs.replace(previous.core, name=name)
                )
        states[env.v] = previous
    return envs, states


def segments(envs: dict[int, Envelope[Any]], version: int) -> Segments:
    """The (after, upto] version ranges whose events make the state at ``version``."""
    segs: Segments = []
    v = version
    while v > 0:
        env = envs[v]
        r = v if isinstance(env.event, RESETS) else env.last_reset
        if r == 0:
            segs.append((0, v))
            break
        segs.append((r, v))
        v = envs[r].event.target
    segs.reverse()
    return segs


def effective(envs: dict[int, Envelope[Any]], segs: Segments) -> list[Envelope[Any]]:
    return [envs[v] for lo, hi in segs for v in range(lo + 1, hi + 1)]


def version_at_day(history: list[Envelope[Any]], day: int) -> int | None:
    """The last version whose game day is ``day`` or earlier, an action kept whole
    (the same rule as ``Ledger.version_at_day``)."""
    version, latest, action = 0, None, None
    for env in history:
        if env.day is not None and env.day > day and env.action != action:
            break
        if env.day is not None and env.day <= day:
            latest = env.day
        version, action = env.v, env.action
    return None if latest is None else version


def action_ends(history: list[Envelope[Any]]) -> list[Envelope[Any]]:
    """The last event of each action in an effective history."""
    ends: list[Envelope[Any]] = []
    for env in history:
        if ends and ends[-1].action == env.action:
            ends[-1] = env
        else:
            ends.append(env)
    return ends


# --- what each system shows --------------------------------------------------------------


UNNAMED = "(unnamed)"
"""The key of a solo game's sheet while its one character has no name (no name can be
this: a name starts with a letter or digit)."""


def sheets(system: System, state: CampaignState) -> dict[str, dict[str, Any]]:
    """One sheet per character (the system picks the actor); without one, a solo game's
    sheet of its unnamed character, else the party sheet (keyed "": no one's yet)."""
    names = list(state.core.characters)
    if not names:
        return {UNNAMED if system.rules.solo else "": system.read.sheet(state, None)}
    out = {name: system.read.sheet(state, name) for name in names}
    first = json.dumps(out[names[0]], sort_keys=True, default=str)
    if all(json.dumps(out[n], sort_keys=True, default=str) == first for n in names[1:]):
        return {names[0]: out[names[0]]}  # a system with one sheet for everyone (a solo game)
    return out


def map_view(system: System, state: CampaignState, pool: Pool) -> Any:
    """The system's map of the state (``ReportHooks.map``), interned: a list entry by entry,
    anything else whole; None without a map or before the game starts."""
    hook = system.read.report.map
    if state.game is None or hook is None:
        return None
    found = hook(state)
    if isinstance(found, list):
        return pool.add([pool.add(entry) for entry in found])
    return pool.add(found)


def pack(pool: Pool, sheet: dict[str, Any]) -> int:
    """A sheet as [its keys, its values], each part interned: an action changes a
    few fields, so consecutive sheets share the rest."""
    return pool.add([pool.add(list(sheet)), [pool.add(v) for v in sheet.values()]])


def pack_view(pool: Pool, system: System, sheet: dict[str, Any]) -> int | None:
    """The sheet as the system's layout reads it (:func:`ledger.projections.sheets.view`),
    as [title, headline, [section...]], each part interned; None without a layout."""
    if system.read.sheet_layout is None:
        return None
    v = sheets_view.view(system.read.sheet_layout, sheet)
    return pool.add([pool.add(v["title"]), pool.add(v["headline"]), [pool.add(s) for s in v["sections"]]])


def view_at(data: dict[str, Any], step: dict[str, Any], who: str) -> dict[str, Any] | None:
    """The laid-out sheet a step shows for one character, unpacked (None without a layout)."""
    pool = data["pool"]
    packed = step["views"][who]
    if packed is None:
        return None
    title, headline, sections = pool[packed]
    return {"title": pool[title], "headline": pool[headline], "sections": [pool[i] for i in sections]}


def sheet_at(data: dict[str, Any], step: dict[str, Any], who: str) -> dict[str, Any]:
    """The sheet a step shows for one character, unpacked (what the page draws)."""
    pool = data["pool"]
    keys, values = pool[step["sheets"][who]]
    return {k: pool[i] for k, i in zip(pool[keys], values, strict=True)}


def map_at(data: dict[str, Any], step: dict[str, Any]) -> Any:
    """The map a step shows, unpacked (None without a map)."""
    pool = data["pool"]
    if step["map"] is None:
        return None
    found = pool[step["map"]]
    return [pool[i] for i in found] if isinstance(found, list) else found


def journal_lines(system: System, state: CampaignState) -> list[dict[str, Any]] | None:
    hook = system.read.journal
    return None if hook is None or state.game is None else list(hook(state))


def _meter(value: Any) -> int | None:
    if isinstance(value, dict) and isinstance(value.get("current"), int):
        return int(value["current"])
    return None


def tracks_of(system: System, sheet: dict[str, Any]) -> dict[str, Track]:
    """The numbers worth drawing over time: name -> (value, maximum). Every meter of the
    sheet (a ``{"current", "max"}`` value), then what the system adds (``ReportHooks.tracks``)."""
    found: dict[str, Track] = {}
    for name, value in sheet.items():
        current = _meter(value)
        if current is not None:
            found[name] = (current, value.get("max"))
    hook = system.read.report.tracks
    if hook is not None:
        found.update(hook(sheet))
    return found


def charts(system: System, tracks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Which tracks share a chart, with a title for each: the system's own charts
    (``ReportHooks.charts``) first, then one per character of the tracks they leave out."""
    hook = system.read.report.charts
    out: list[dict[str, Any]] = list(hook(tracks)) if hook is not None else []
    charted = {i for chart in out for i in chart["series"]}
    for who in dict.fromkeys(t["character"] for t in tracks):
        series = [i for i, t in enumerate(tracks) if t["character"] == who and i not in charted]
        title = f"{who}: " if who else ""
        out.append({"title": title + ", ".join(tracks[i]["name"] for i in series), "series": series})
    return [c for c in out if c["series"]]


# --- rolls against expectation ---------------------------------------------------------


def rolls(
    system: System,
    history: list[Envelope[Any]],
    step_of: dict[int, int],
    thrown: Iterable[Envelope[Any]] = (),
) -> dict[str, Any]:
    """Every roll with a probability of success, with running sums and the kept luck (the
    rolls that stayed), and beside them the luck index over every die ``thrown`` (undone
    rolls included, as ``ledger stats`` and the sheet count it; docs/statistics.md). Each
    event's rolls are read once: the kept ones are among those thrown."""
    judged = {env.v: judged_rolls(system.read.facts, env) for env in thrown}
    points: list[dict[str, Any]] = []
    s = e = var = 0.0
    per_actor: dict[str, list[float]] = {}
    for env in history:
        kept = judged[env.v] if env.v in judged else judged_rolls(system.read.facts, env)
        for fact in kept:  # an opponent's luck is not a character's
            p = float(fact.p_success)  # type: ignore[arg-type]
            s, e, var = s + fact.success, e + p, var + p * (1 - p)
            who = fact.character or env.actor or ""
            acc = per_actor.setdefault(who, [0.0, 0.0, 0.0, 0.0])
            acc[0] += 1
            acc[1] += fact.success
            acc[2] += p
            acc[3] += p * (1 - p)
            luck = luck_index(s, e, var)
            points.append(
                {
                    "step": step_of[env.v],
                    "v": env.v,
                    "day": env.day,
                    "who": who,
                    "purpose": fact.purpose,
                    "p": round(p, 4),
                    "ok": bool(fact.success),
                    "s": s,
                    "e": round(e, 4),
                    "sd": round(math.sqrt(var), 4),
                    "luck": None if luck is None else round(luck, 3),
                }
            )
    actors = [
        {
            "who": who,
            "rolls": int(n),
            "successes": int(ok),
            "expected": round(p, 2),
            "luck": None if (lk := luck_index(ok, p, v)) is None else round(lk, 2),
        }
        for who, (n, ok, p, v) in per_actor.items()
    ]
    total = luck_index(s, e, var)
    n_all = s_all = e_all = var_all = 0.0
    for facts in judged.values():
        for fact in facts:
            p = float(fact.p_success)  # type: ignore[arg-type]
            n_all, s_all, e_all, var_all = n_all + 1, s_all + fact.success, e_all + p, var_all + p * (1 - p)
    every = luck_index(s_all, e_all, var_all)
    return {
        "points": points,
        "successes": int(s),
        "expected": round(e, 2),
        "luck": None if total is None else round(total, 2),
        "actors": actors,
        "every": {
            "rolls": int(n_all),
            "undone": int(n_all) - len(points),
            "successes": int(s_all),
            "expected": round(e_all, 2),
            "luck": None if every is None else round(every, 2),
        },
    }


# --- the branch's log ------------------------------------------------------------------------


def unnamed_rows(system: System, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A solo game's log rows of play recorded before its one character was named are
    that character's: their "who" is :data:`UNNAMED`, as the sheet's key is."""
    if not system.rules.solo:
        return rows
    for row in rows:
        played = row["status"] in ("live", "undone") and row["day"] is not None
        if played and row["actor"] is None and not row["kind"].startswith(("dice.", "campaign.", "branch.")):
            row["actor"] = UNNAMED
    return rows


def log_rows(
    envs: dict[int, Envelope[Any]],
    live: Segments,
    children: list[tuple[str, int]],
    dice: dict[int, str] | None = None,
    summary: Callable[[Event], str] | None = None,
    told: dict[int, tuple[bool, str | None]] | None = None,
) -> list[dict[str, Any]]:
    """Every event of the branch: effective, undone (struck), resets and forks marked,
    and each action that drew dice with whether they are proven, pending, physical,
    seeded or unproven (``dice``, see ledger.dice.provable); ``told`` says, by version,
    whether its action is the party's and the seat it was recorded from."""
    forks_at: dict[int, list[str]] = {}
    for name, at in children:
        forks_at.setdefault(at, []).append(name)
    rows = []
    for v in sorted(envs):
        env = envs[v]
        ev = env.event
        if isinstance(ev, RESETS):
            status = "reset"
        elif isinstance(ev, BranchForked):
            status = "fork"
        elif any(lo < v <= hi for lo, hi in live):
            status = "live"
        else:
            status = "undone"
        rows.append(
            {
                "v": v,
                "day": env.day,
                "actor": told_as(env.event, env.actor, *(told or {}).get(v, (False, None))),
                "kind": ev.kind,
                "text": ev.summary() if summary is None else summary(ev),
                "status": status,
                "action": env.action,
                "forks": forks_at.get(v, []),
                "dice": (dice or {}).get(v),
            }
        )
    return rows


def dice_marks(book: Ledger, c: Campaign) -> dict[int, str]:
    """Per version whose action drew dice, how far its dice are proven; a branch whose
    dice do not verify marks none (``ledger verify --dice`` names the roll)."""
    try:
        return dict(verify_dice(book, c.name)[c.name].marks)
    except TamperError:
        return {}


# --- the whole report --------------------------------------------------------------------------


def _own_words(fix: Fix) -> str:
    return fix.text


def build(
    book: Ledger,
    campaign: str | None = None,
    focus: str | None = None,
    word: Callable[[Fix], str] = _own_words,
) -> dict[str, Any]:
    """The report's data for one campaign, JSON-ready; ``focus`` is the character
    whose sheet the page opens on (default: the first). The page tells how to verify the
    campaign: the operation that does it, as ``word`` says it (its own words by default;
    the command line gives its command)."""
    c = book.campaign(campaign)
    system = book.system(c)
    envs, states = fold(list(book.envelopes(c)), system, c.name)  # read whole before folding
    told = {
        env.v: (party, seat) for env, party, seat in told_actions(system, (envs[v] for v in sorted(envs)))
    }
    head = max(envs) if envs else 0
    live = segments(envs, head)
    history = effective(envs, live)
    ends = action_ends(history)
    pool = Pool()
    steps: list[dict[str, Any]] = []
    step_of: dict[int, int] = {}
    raw_tracks: dict[tuple[str, str], dict[str, Any]] = {}
    hooked = system.read.journal is not None
    characters = bool(states[head].core.characters) if envs else False
    step = 0
    for env in history:
        step += env.v > ends[step].v
        step_of[env.v] = step
    for i, end in enumerate(ends):
        state = states[end.v]
        sheet_map = sheets(system, state) if state.game is not None else {}
        lines = journal_lines(system, state) if hooked else None
        steps.append(
            {
                "v": end.v,
                "day": end.day,
                "what": book.summary(end.event)
                if not isinstance(end.event, CampaignStarted)
                else _("campaign started"),
                "actor": told_party(told[end.v][1]) if told[end.v][0] else end.actor,
                "sheets": {who: pack(pool, s) for who, s in sheet_map.items()},
                "views": {who: pack_view(pool, system, s) for who, s in sheet_map.items()},
                "map": map_view(system, state, pool),
                "journal": None if lines is None else [pool.add(row) for row in lines],
                "segments": segments(envs, end.v),
            }
        )
        for who, s in sheet_map.items():
            if who in ("", UNNAMED) and characters:
                continue  # the party sheet before anyone joined: not a character's track
            for name, (value, top) in tracks_of(system, s).items():
                track = raw_tracks.setdefault(
                    (who, name), {"character": who, "name": name, "max": top, "values": {}}
                )
                track["values"][i] = value
                if top is not None:
                    track["max"] = max(track["max"] or 0, top)
    tracks = [{**t, "values": [t["values"].get(i) for i in range(len(steps))]} for t in raw_tracks.values()]
    children = [(k.name, k.parent_version or 0) for k in book.campaigns() if k.parent_id == c.id]
    days = sorted({env.day for env in history if env.day is not None})
    last = envs[head] if envs else None
    tables = states[head].core.tables if envs else {}
    return {
        "format": 1,
        "campaign": c.name,
        "system": system.name,
        "description": i18n.translate(system.description),
        "characters": list(states[head].core.characters) if envs else [],
        "focus": focus,
        "parent": _parent(book, c),
        "steps": steps,
        "days": {str(d): version_at_day(history, d) for d in days},
        "pool": pool.values,
        "tracks": tracks,
        "charts": charts(system, tracks),
        "rolls": rolls(system, history, step_of, (envs[v] for v in sorted(envs))),
        "log": unnamed_rows(system, log_rows(envs, live, children, dice_marks(book, c), book.summary, told)),
        "map_kind": system.read.report.map_kind if system.read.report.map is not None else None,
        "meters": dict(system.read.report.meters),
        "legend": system.read.report.legend(tables) if system.read.report.legend is not None else {},
        "chain": {
            "head": head,
            "hash": last.hash if last else "",
            "prev": last.prev if last else "",
            "verify": word(
                RunCommand(
                    text=f"verify campaign {c.name!r}", command="verify", options=(Input("campaign", c.name),)
                )
            ),
        },
    }


def _parent(book: Ledger, c: Campaign) -> dict[str, Any] | None:
    if c.parent_id is None:
        return None
    parent = next((k for k in book.campaigns() if k.id == c.parent_id), None)
    return {"name": parent.name if parent else c.parent_id, "at": c.parent_version}


# --- the page ------------------------------------------------------------------------------------


def embed(data: dict[str, Any]) -> str:
    """The data as JSON safe inside a <script> element (every "/" escaped, so no
    "</script>" and no "//" can appear)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
    return (
        text.replace("/", "\\/")
        .replace("<", "\\u003c")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def drawing_module() -> bytes:
    """The drawing module the report inlines and the live table serves (``draw.js``: the
    sheet, the tracks, the hex map and the Zone), one file for both."""
    return (ASSETS / "draw.js").read_bytes()


def render(data: dict[str, Any]) -> str:
    """One self-contained HTML page: the template with its style, its scripts (the drawing
    module, then the report's own) and its data inlined."""
    page = (ASSETS / "report.html").read_text(encoding="utf-8")
    style = (ASSETS / "report.css").read_text(encoding="utf-8")
    script = (ASSETS / "report.js").read_text(encoding="utf-8")
    draw = drawing_module().decode("utf-8")
    title = _("{campaign} ({system}) - campaign report", campaign=data["campaign"], system=data["system"])
    parts = {
        "title": _escape(title),
        "style": style,
        "data": embed(data),
        "draw": draw,
        "script": script,
        "lang": i18n.language() if i18n.language() != i18n.PSEUDO else i18n.LANGUAGES[0],
        "words": _escape(json.dumps(page_words(), ensure_ascii=False, separators=(",", ":"))),
    }
    page = re.sub(r"\{\{t:([^{}]*)\}\}", lambda m: _escape(i18n.translate(m.group(1))), page)
    return re.sub(r"\{\{(title|style|data|draw|script|lang|words)\}\}", lambda m: parts[m.group(1)], page)


PAGE_WORDS = (
    # report.html's, written there as {{t:...}}
    N_("Campaign report"),
    N_("timeline"),
    N_("previous day (Page Up)"),
    N_("previous action (left arrow)"),
    N_("point in the campaign"),
    N_("next action (right arrow)"),
    N_("next day (Page Down)"),
    N_("Map"),
    N_("Sheet"),
    N_("Over time"),
    N_("Rolls against expectation"),
    N_("Journal"),
    N_("The log"),
    N_("every event of the branch: undone actions struck through, undo/redo and forks marked"),
    # report.js's, said there with t(...)
    N_("day {day}"),
    N_("forked from {name} at v{version}"),
    N_("<b>{n}</b> days"),
    N_("<b>{n}</b> events"),
    N_("<b>{n}</b> actions"),
    N_("<b>{n}</b> undone"),
    N_("Chain head: event <b>v{head}</b>, sha256 {hash}"),
    N_(
        "Each event's hash covers its stored bytes, which include the previous event's hash, so this one hash "
        "seals the whole branch. To check it, run {verify} on the ledger (it re-hashes every event and prints "
        "the head) or import the export with {import} (refused if any byte was edited); the head it reports "
        "must equal the hash above."
    ),
    N_("no sheet yet"),
    N_("hex map at {when}"),
    N_("the Zone at {when}"),
    N_("day"),
    N_("version"),
    N_("days"),
    N_("value"),
    N_("at {when}: {values}"),
    N_("roll number"),
    N_("successes"),
    N_("success"),
    N_("failure"),
    N_("who"),
    N_("rolls"),
    N_("expected"),
    N_("luck"),
    N_(
        "luck index over every die thrown, {rolls} ({undone} undone): {successes} where {expected} were expected"
    ),
    N_(
        "kept luck {luck} over the {rolls} that stayed: {successes} where {expected} were expected (the chart)"
    ),
    N_("successes against expectation"),
    N_("successes so far"),
    N_("expected (sum of p), band: one standard deviation"),
    N_(
        "Luck index = (successes - sum of p) / sqrt(sum of p(1-p)), with p the exact probability of success of "
        "each roll, recorded when it was rolled. About 0 is average luck; beyond +2 or -2 is rare."
    ),
    N_("at {when}: no roll yet"),
    N_("at {when}: {rolls} rolls, {successes} successes, {expected} expected, luck index {luck}"),
    N_("undone"),
    N_("redo"),
    N_("undo"),
    N_("fork"),
    N_("branch {name} forks here"),
    N_("{kind} dice"),
    N_("event"),
    N_("only around this step"),
    N_("whole log ({n} events)"),
    N_("showing v{from} to v{to} of {n} events"),
    N_("as of {when}"),
    N_("nothing yet"),
    N_("{i} of {n}"),
)
"""The report page's words: report.html's and report.js's, put into the page in its language."""

PAGE_PLURALS = (("{n} roll", "{n} rolls"), ("{n} success", "{n} successes"))
"""The counts report.js agrees with their nouns (:func:`_page_plurals` marks them)."""


def _page_plurals(n: int) -> None:  # pragma: no cover - never called: it marks PAGE_PLURALS
    i18n.n_("{n} roll", "{n} rolls", n)
    i18n.n_("{n} success", "{n} successes", n)


def page_words(lang: str | None = None) -> dict[str, Any]:
    """The report page's words in ``lang`` (default: the language of the moment), each under
    its English, a count's two forms under ``one|many``, and the decimal sign under ``.``;
    English needs none (the page's own words are English)."""
    lang = lang or i18n.language()
    if lang == i18n.LANGUAGES[0]:
        return {}
    words: dict[str, Any] = {msgid: i18n.translate(msgid, lang=lang) for msgid in PAGE_WORDS}
    for one, many in PAGE_PLURALS:
        words[f"{one}|{many}"] = [
            i18n.CATALOG.say(lang, None, one, many, 1),
            i18n.CATALOG.say(lang, None, one, many, 2),
        ]
    words["."] = i18n.number(0.5, lang, 1)[1]
    return words


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def write(
    book: Ledger,
    campaign: str | None,
    out: Path,
    focus: str | None = None,
    word: Callable[[Fix], str] = _own_words,
) -> dict[str, Any]:
    """Build and write the report (replacing a file of that name, never one of the ledger's
    own: :func:`ledger.trust.outfile.write_file`); returns the data it embeds (``word``: as in
    :func:`build`)."""
    outfile.check_target(out, outfile.own_files(book.store))  # before the work of building it
    data = build(book, campaign, focus, word)
    outfile.write_text(out, render(data), protected=outfile.own_files(book.store), replace=True)
    return data
