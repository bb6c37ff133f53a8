"""An evening at the live table, as a group plays it: a GM on a laptop and three players on
phones, each in their own browser context (tests/helpers_browser.py), against a real
``ledger serve`` process, in two systems (yearzero, d20), more than twenty actions each,
taps at the same moment included. Each test asserts what each person sees: their own
result where they tapped (faces, what it came to, in the rules' words), a refusal in the
same place, the tracks at the top of their phone, the log on every page.

Four seats tapping at once are all recorded, in some order, and each player sees their own
result (no "someone acted first": a roll names no state it acts on). The coin plugin's
sheet gets its controls too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ledger import Ledger
from ledger.systems.d20.commands import Create
from ledger.trust.seats import seats_of
from tests.helpers_browser import LIVE, Seat, at_once, browser, shots
from tests.helpers_web import serving

__all__ = ["browser"]

MUTANTS = {
    "Mira": {
        "strength": "4",
        "agility": "3",
        "wits": "2",
        "empathy": "4",
        "skill.fight": "2",
        "skill.heal": "2",
        "gear.club": "1",
        "shield.car_door": "3",
    },
    "Vesna": {
        "strength": "3",
        "agility": "4",
        "wits": "4",
        "empathy": "2",
        "skill.shoot": "2",
        "skill.scout": "2",
        "gear.bow": "2",
        "suit.rot_suit": "3",
    },
    "Grit": {
        "strength": "4",
        "agility": "3",
        "wits": "4",
        "empathy": "2",
        "skill.jury_rig": "2",
        "skill.fight": "1",
        "gear.wrench": "1",
        "armor.scrap_armor": "2",
    },
}


def table(tmp_path: Path, system: str, make: Any) -> tuple[str, str, dict[str, str]]:
    """A campaign 'Evening' of ``system``, its characters made by ``make(book)``: (db, the
    GM's secret, each character's player's secret)."""
    db = str(tmp_path / "evening.ledger")
    with Ledger(db) as book:
        book.new_campaign(system, "Evening", seed=36)
        make(book)
        c = book.campaign("Evening")
        seats = seats_of(book)
        gm = seats.invite(c.id, "gm", label="gm-laptop")[1]
        players = {
            name: seats.invite(c.id, "player", name, label=f"{name.lower()}-phone")[1]
            for name in book.state("Evening").core.characters
        }
    return db, gm, players


def head(db: str) -> int:
    with Ledger(db) as book:
        return book.head(book.campaign("Evening"))


def test_four_seats_tap_at_once_and_each_sees_their_own_result(browser: Any, tmp_path: Path) -> None:
    def make(book: Ledger) -> None:
        for name, attrs in MUTANTS.items():
            book.create_character(name, "Evening", attrs)

    db, gm_secret, secrets = table(tmp_path, "yearzero", make)
    with serving(db) as base:
        gm = Seat(browser, base, gm_secret, phone=False, shots=shots(tmp_path))
        phones = {
            name: Seat(browser, base, secret, shots=shots(tmp_path)) for name, secret in secrets.items()
        }
        before = head(db)
        slots = {name: phones[name].prepare("Empathy") for name in phones}
        gm.page.fill("#notation", "1d20")
        gm.page.fill("#roll-label", "encounter")
        at_once([(seat, "#options-go") for seat in phones.values()] + [(gm, "#roll")])
        for name, seat in phones.items():
            card = seat.answered(*slots[name])
            text = card.inner_text()
            assert f"{name} rolls empathy" in text, text
            assert "someone acted first" not in text.lower()
            assert card.locator(".faces.big .die").count() == int(MUTANTS[name]["empathy"])
            assert re.search(r"successes|success", card.locator(".outcome").inner_text())
        assert "encounter" in gm.page.locator("[data-slot='dice'] > .result").inner_text()
        assert head(db) == before + 4, "every roll is recorded"
        for seat in [gm, *phones.values()]:
            seat.tab("Log")
            for name in phones:
                seat.seen(f"{name} rolls empathy")
            seat.seen("encounter")
        phones["Mira"].shoot("at-once-mira-phone")
        gm.shoot("at-once-gm-laptop")
        for seat in [gm, *phones.values()]:
            seat.clean()
            seat.close()


def test_an_evening_in_the_zone(browser: Any, tmp_path: Path) -> None:
    def make(book: Ledger) -> None:
        for name, attrs in MUTANTS.items():
            book.create_character(name, "Evening", attrs)

    db, gm_secret, secrets = table(tmp_path, "yearzero", make)
    start = head(db)
    with serving(db) as base:
        gm = Seat(browser, base, gm_secret, phone=False, shots=shots(tmp_path))
        mira, vesna, grit = (
            Seat(browser, base, secrets[n], shots=shots(tmp_path)) for n in ("Mira", "Vesna", "Grit")
        )
        assert mira.page.locator("#title").inner_text() == "Mira"
        assert mira.track("strength") == "4" and vesna.track("agility") == "4"

        # the GM leads the party into the Zone (as Mira, the first character)
        assert "the party enters G8" in gm.form("Travel", "Enter", sector="G8", rot_level=1).inner_text()
        for seat in (mira, vesna, grit):
            seat.tab("Log")
            seat.seen("the party enters G8")
        # each player rolls from their own sheet, options filled where the rules have them
        fight = mira.tap("fight", faces=[6, 2, 3, 1, 6, 1])
        assert (
            "Mira rolls fight" in fight.inner_text()
            and fight.locator(".outcome").inner_text() == "2 successes"
        )
        assert fight.locator(".die").all_inner_texts() == ["6", "2", "3", "1", "6", "1"]
        # Mira pushes her roll, from the result where she tapped: the result becomes the push
        mira.press(fight.get_by_role("button", name=re.compile("^Push the roll")))
        # a push is a player's to confirm once (only the GM can take it back): the sheet asks
        confirm = mira.page.locator("#options-confirm")
        confirm.wait_for(timeout=LIVE)
        assert "only the GM can undo it" in confirm.inner_text()
        mira.press(mira.page.locator("#options-go"))
        mira.page.locator("[data-slot='skills'] > .result", has_text="Mira pushes").wait_for(timeout=LIVE)
        shot = vesna.tap("shoot", item="bow", helpers=1)
        assert (
            "Vesna rolls shoot" in shot.inner_text() and shot.locator(".faces.big .die").count() == 4 + 3 + 2
        )
        assert "Grit rolls wits" in grit.tap("Wits").inner_text()
        gm.seen("Vesna rolls shoot")
        # the GM feeds the party and lets time pass, in hours as the command line asks them
        assert gm.form("Food, water and rest", "Eat", everyone=True).inner_text().count("ration of grub") == 3
        gm.form("Food, water and rest", "Drink", everyone=True)
        ticked = gm.form("Travel", "Tick", minutes="1.5")
        assert "1.5 hours pass" in ticked.inner_text()
        with Ledger(db) as book:
            assert book.state("Evening").game.minute % 60 == 30
        # harm lands on a phone's sticky tracks
        gm.press(gm.page.locator("#who").get_by_role("tab", name="Grit"))
        gm.page.wait_for_function(
            "() => document.querySelector('#sheet .sheet-title').textContent.startsWith('Grit')"
        )
        gm.form("Harm", "Damage", kind="fatigue", amount=2, armor=True)
        grit.page.wait_for_function(
            "() => document.querySelector(\"#tracks [data-key='agility'] .val\").textContent === '1'",
            timeout=LIVE,
        )
        gm.press(gm.page.locator("#who").get_by_role("tab", name="Vesna"))
        gm.page.wait_for_function(
            "() => document.querySelector('#sheet .sheet-title').textContent.startsWith('Vesna')"
        )
        rot = gm.form("Harm", "Rot", points=1)
        assert "Vesna" in rot.inner_text() and "Rot" in rot.inner_text()
        # the players again, at once: every tap recorded
        before = head(db)
        slots = {
            seat: seat.prepare("fight" if seat is not vesna else "scout") for seat in (mira, vesna, grit)
        }
        at_once([(seat, "#options-go") for seat in slots])
        for seat, slot in slots.items():
            assert "rolls" in seat.answered(*slot).inner_text()
        assert head(db) == before + 3
        # a refusal shows where it was tapped, in the rules' words
        refused = grit.form("Food, water and rest", "Wash")
        assert "refused" in (refused.get_attribute("class") or "") and "Rot-free" in refused.inner_text()
        # initiative, a dice box roll, the party sleeps with a watch
        assert "initiative" in mira.form("Fight", "Initiative").inner_text().lower()
        assert "climb" in vesna.roll("2d6+1", "climb").inner_text()
        gm.form("Food, water and rest", "Sleep", hours=6, watch=["Grit"])
        for seat in (mira, vesna, grit):
            seat.seen("Mira, Vesna sleep 6 hours")
        # the GM undoes the last action, naming it; every phone strikes it through
        undo = gm.page.locator("#undo")
        said = undo.get_attribute("title") or ""
        assert said.startswith("Undo: ") and "sleep" in said, said
        gm.press(undo)
        for seat in (mira, vesna, grit):
            struck = seat.page.locator("#log li.entry.undone", has_text="Mira, Vesna sleep 6 hours")
            struck.wait_for(state="attached", timeout=LIVE)
        # the GM steps back one action and comes back to now
        gm.press(gm.page.locator("#prev-step"))
        gm.page.wait_for_function("() => document.body.dataset.at !== ''")
        assert gm.page.locator("#sheet button.control").first.is_disabled()
        gm.press(gm.page.locator("#now"))
        gm.page.wait_for_function("() => document.body.dataset.at === ''")
        assert "explores" in gm.form("Travel", "Explore", terrain="open").inner_text()
        assert "rolls" in grit.tap("fight").inner_text()
        assert "rolls" in vesna.tap("Agility").inner_text()
        for seat, name, label in (
            (mira, "Mira", "Empathy"),
            (vesna, "Vesna", "Wits"),
            (grit, "Grit", "Strength"),
        ):
            assert f"{name} rolls {label.lower()}" in seat.tap(label).inner_text()
        with Ledger(db) as book:
            actions = {e.action for e in book.effective(book.campaign("Evening")) if e.v > start}
        assert len(actions) >= 20, f"{len(actions)} actions"
        for seat, name in ((mira, "zone-mira-phone"), (vesna, "zone-vesna-phone"), (gm, "zone-gm-laptop")):
            seat.tab("Sheet")
            seat.shoot(name)
        for seat in (gm, mira, vesna, grit):
            seat.clean(422)
            seat.close()


CREW = [
    (
        Create(
            name="Ripley",
            cls="marine",
            assign={"fue": 18, "des": 15, "con": 13, "int": 12, "sab": 9, "car": 8},
        ),
        [6, 5, 4, 3, 3, 2, 1, 1, 2, 6, 6, 6, 4, 4, 4, 5, 5, 3, 2, 3, 4],
    ),
    (
        Create(
            name="Parker",
            cls="technician",
            skills=("technology", "precision", "athletics"),
            assign={"fue": 12, "des": 13, "con": 12, "int": 16, "sab": 7, "car": 11},
        ),
        [5, 4, 3, 6, 5, 5, 2, 2, 3, 4, 4, 5, 1, 2, 2, 3, 4, 4, 6, 3, 3],
    ),
    (
        Create(
            name="Bishop",
            cls="synthetic",
            assign={"fue": 15, "des": 16, "con": 12, "int": 17, "sab": 12, "car": 9},
        ),
        [5, 5, 5, 4, 4, 4, 3, 3, 3, 6, 6, 4, 2, 2, 1, 3, 4, 5, 6, 5, 6],
    ),
]


def test_an_evening_aboard_the_derelict(browser: Any, tmp_path: Path) -> None:
    def make(book: Ledger) -> None:
        for command, faces in CREW:
            book.execute(command, "Evening", faces=faces)

    db, gm_secret, secrets = table(tmp_path, "d20", make)
    start = head(db)
    with Ledger(db) as book:
        state = book.state("Evening")
        system = book.system(book.campaign("Evening"))
        scores = {
            n: dict(
                zip(
                    ("fue", "des", "con", "int", "sab", "car"),
                    system.read.sheet(state, n)["scores"],
                    strict=True,
                )
            )
            for n in ("Ripley", "Parker", "Bishop")
        }
    with serving(db) as base:
        gm = Seat(browser, base, gm_secret, phone=False, shots=shots(tmp_path))
        ripley, parker, bishop = (
            Seat(browser, base, secrets[n], shots=shots(tmp_path)) for n in ("Ripley", "Parker", "Bishop")
        )
        calm = parker.track("calm")
        # checks from the sheet: a plain tap, a difficulty picked, a calm point spent
        check = ripley.tap(scores["Ripley"]["fue"], dc="hard")
        assert "Ripley" in check.inner_text() and re.search(
            r"success|failure", check.locator(".outcome").inner_text()
        )
        tech = parker.tap("Technology", attribute="int", push=True)
        assert "technology" in tech.inner_text()
        parker.page.wait_for_function(
            f"() => document.querySelector(\"#tracks [data-key='calm'] .val\").textContent === '{int(calm) - 1}'",
            timeout=LIVE,
        )
        assert "Bishop" in bishop.tap(scores["Bishop"]["int"]).inner_text()
        # three usage dice at once: each player sees their own
        before = head(db)
        dice = {
            ripley: ("Ripley", "Oxygen"),
            parker: ("Parker", "Oxygen"),
            bishop: ("Bishop", "Med supplies"),
        }
        slots, taps = {}, []
        for seat, (_name, label) in dice.items():
            button = seat.control(label)
            slots[seat] = (button.get_attribute("data-answer"), None)
            taps.append((seat, f"#me button.control[data-control='{button.get_attribute('data-control')}']"))
        at_once(taps)
        for seat, (name, label) in dice.items():
            assert f"{name} uses {label.lower()}" in seat.answered(*slots[seat]).inner_text()
        assert head(db) == before + 3
        # initiative, an attack that jams, the weapon cleared from the sheet
        gm.form("Fight", "Initiative")
        attack = ripley.tap("Pulse rifle", faces=[1], defense=14)
        assert "Ripley attacks with pulse rifle" in attack.inner_text()
        unjam = ripley.control("Unjam pulse rifle")
        unjam.wait_for(timeout=LIVE)
        cleared = ripley.tap("Unjam pulse rifle", faces=[14])
        assert "Ripley" in cleared.inner_text() and "pulse rifle" in cleared.inner_text()
        ripley.control("Unjam pulse rifle").wait_for(state="detached", timeout=LIVE)
        # stress fumbled: a panic roll is due, and Parker taps it on the sheet
        gm.press(gm.page.locator("#who").get_by_role("tab", name="Parker"))
        gm.page.wait_for_function(
            "() => document.querySelector('#sheet .sheet-title').textContent.startsWith('Parker')"
        )
        stressed = gm.form("Stress and harm", "Stress", faces=[1, 3], difficulty="17")
        assert "Parker stress 17+" in stressed.inner_text()
        panic = parker.control("Panic roll")
        panic.wait_for(timeout=LIVE)
        assert "Parker panics" in parker.tap("Panic roll", faces=[5, 1, 3]).inner_text()
        # harm, repairs from one player to another, a refusal where it was tapped
        gm.press(gm.page.locator("#who").get_by_role("tab", name="Bishop"))
        gm.page.wait_for_function(
            "() => document.querySelector('#sheet .sheet-title').textContent.startsWith('Bishop')"
        )
        gm.form("Stress and harm", "Damage", amount=3, cause="claws")
        bishop.page.wait_for_function(
            "() => +document.querySelector(\"#tracks [data-key='hp'] .val\").textContent < 8", timeout=LIVE
        )
        healed = parker.form("Rest and healing", "Heal", target="Bishop", kit=True)
        assert "Parker repair on Bishop" in healed.inner_text()
        # six months of therapy move everyone's clock: the GM's, never offered to a player
        resting = ripley.page.locator("#forms details[data-group='Rest and healing']")
        assert resting.locator("[data-command='d20.Heal']").count() == 1
        assert ripley.page.locator("#forms [data-command='d20.Treat']").count() == 0
        gm.press(gm.page.locator("#who").get_by_role("tab", name="Ripley"))
        gm.page.wait_for_function(
            "() => document.querySelector('#sheet .sheet-title').textContent.startsWith('Ripley')"
        )
        refused = gm.form("Rest and healing", "Therapy")
        assert "refused" in (refused.get_attribute("class") or "")
        assert "Ripley has no trauma to treat" in refused.inner_text()
        # the crew's dice and more rolls
        assert "ataque" in ripley.roll("1d20+5", "ataque").inner_text()
        assert "Parker uses rations" in parker.tap("Rations").inner_text()
        for seat, label in (
            (ripley, scores["Ripley"]["des"]),
            (parker, "Precision"),
            (bishop, scores["Bishop"]["sab"]),
        ):
            fields = {"attribute": "des"} if label == "Precision" else {}
            assert re.fullmatch(
                r"\d+ vs \d+: (success|failure)", seat.tap(label, **fields).locator(".outcome").inner_text()
            )
        for seat, name, label in ((ripley, "Ripley", "Rifle rounds"), (bishop, "Bishop", "Rations")):
            assert f"{name} uses {label.lower()}" in seat.tap(label).inner_text()
        assert "athletics" in parker.tap("Athletics", attribute="fue", dc="easy").inner_text()
        gm.form("Rest and healing", "Rest")
        for seat in (ripley, parker, bishop):
            seat.tab("Log")
            seat.seen("a day of rest")
        gm.press(gm.page.locator("#who").get_by_role("tab", name="Bishop"))
        gm.page.wait_for_function(
            "() => document.querySelector('#sheet .sheet-title').textContent.startsWith('Bishop')"
        )
        gm.form("Gear", "Supply", resource="med supplies", die="d8")
        # the GM undoes the supply and steps back through time
        undo = gm.page.locator("#undo")
        assert "med supplies" in (undo.get_attribute("title") or "")
        gm.press(undo)
        ripley.page.locator("#log li.entry.undone", has_text="med supplies").first.wait_for(
            state="attached", timeout=LIVE
        )
        gm.press(gm.page.locator("#prev-step"))
        gm.page.wait_for_function("() => document.body.dataset.at !== ''")
        gm.press(gm.page.locator("#now"))
        with Ledger(db) as book:
            actions = {e.action for e in book.effective(book.campaign("Evening")) if e.v > start}
        assert len(actions) >= 20, f"{len(actions)} actions"
        for seat, name in ((parker, "derelict-parker-phone"), (gm, "derelict-gm-laptop")):
            seat.tab("Sheet")
            seat.shoot(name)
        for seat in (gm, ripley, parker, bishop):
            seat.clean(422)
            seat.close()


def test_the_coin_plugins_sheet_gets_its_controls(browser: Any, tmp_path: Path) -> None:
    pytest.importorskip("campaign_ledger_coin")
    db = str(tmp_path / "coin.ledger")
    with Ledger(db) as book:
        book.new_campaign("coin", "Toss")
        book.add_character("Ana", "Toss")
        c = book.campaign("Toss")
        seats = seats_of(book)
        gm_secret = seats.invite(c.id, "gm", label="gm")[1]
        ana_secret = seats.invite(c.id, "player", "Ana", label="ana")[1]
    with serving(db) as base:
        gm = Seat(browser, base, gm_secret, phone=False)
        ana = Seat(browser, base, ana_secret, shots=shots(tmp_path))
        heads = ana.tap("Call heads", faces=[1])
        assert heads.locator(".outcome").inner_text() == "heads"
        assert "good" in (heads.get_attribute("class") or "")
        assert "flip: called heads, heads: won (physical coin)" in heads.inner_text()
        tails = ana.tap("Call tails", faces=[1])
        assert "bad" in (tails.get_attribute("class") or "")
        gm.seen("flip: called tails, heads: lost")
        ana.page.wait_for_function(
            "() => document.querySelector(\"#sheet\").textContent.includes('flips 2, calls won 1')"
        )
        ana.shoot("coin-player-phone")
        gm.clean()
        ana.clean()
        gm.close()
        ana.close()


def test_a_command_the_seat_must_confirm_asks_once_before_it_is_sent(browser: Any, tmp_path: Path) -> None:
    """The table's ``confirm`` (the commands a seat confirms before sending) makes a plain
    tap ask first: cancelled, nothing is recorded; confirmed, it is recorded once."""

    def make(book: Ledger) -> None:
        book.create_character("Mira", "Evening", MUTANTS["Mira"])

    db, _gm, secrets = table(tmp_path, "yearzero", make)

    def confirming(context: Any) -> None:
        def answer(route: Any) -> None:
            found = route.fetch()
            info = found.json()
            info["confirm"] = ["yearzero.Wear"]
            route.fulfill(response=found, json=info)

        context.route(re.compile(r".*/api/c/Evening$"), answer)

    with serving(db) as base:
        mira = Seat(browser, base, secrets["Mira"], before=confirming)
        before = head(db)
        mira.press(mira.control("Take off car_door"))
        dialog = mira.page.get_by_role("dialog")
        dialog.wait_for()
        assert "only the GM can undo it" in dialog.inner_text()
        mira.press(dialog.get_by_role("button", name="Cancel"))
        assert head(db) == before, "nothing is sent before it is confirmed"
        card = mira.tap("Take off car_door")
        assert "Mira takes off the shield" in card.inner_text()
        assert head(db) == before + 1
        mira.clean()
        mira.close()
