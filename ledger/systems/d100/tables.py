"""The d100 tables: skill base values, derived points, recovery, settings.

The Spanish text names the skills but does not print their base values nor
how the points derive from the characteristics: those are data, read from a
TOML file (``samples/d100/tables.toml`` by default) and embedded in the
campaign's first event so replay never reads files.
"""

from __future__ import annotations

import re
import tomllib
import unicodedata
from importlib import resources
from pathlib import Path
from typing import Any

from ledger.errors import TableError

CHARACTERISTICS = ("TAM", "CON", "FUE", "INT", "EDU", "DES", "CAR", "POD")
POINTS = ("hp", "valor", "fatigue", "luck")
SAMPLE = resources.files("ledger.samples") / "d100" / "tables.toml"
_NOTATION = re.compile(r"^\s*(\d+|\d*d\d+([+-]\d+)?)\s*$", re.IGNORECASE)


def fold(name: str) -> str:
    """A skill name for matching: no accents, no case, ``_``/``-`` as spaces."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return " ".join(plain.replace("_", " ").replace("-", " ").lower().split())


def load_tables(path: str | None) -> tuple[dict[str, Any], str]:
    """Read and validate a tables file; None reads the sample tables."""
    file = SAMPLE if path is None else Path(path)
    where = "sample tables" if path is None else str(path)
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TableError(f"tables file {str(file)!r} does not exist; give an existing TOML file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise TableError(f"tables file {str(file)!r} cannot be read ({e}); check the file") from None
    except tomllib.TOMLDecodeError as e:
        raise TableError(f"tables file {str(file)!r} is not valid TOML ({e}); fix the syntax") from None
    return validate(data, where), (str(file) if path is not None else "samples/d100/tables.toml")


def _need(cond: bool, where: str, problem: str) -> None:
    if not cond:
        raise TableError(f"{where}: {problem}; see samples/d100/tables.toml for the layout")


def validate(data: dict[str, Any], where: str = "tables") -> dict[str, Any]:
    for key in ("derived", "recovery", "tests", "skills"):
        _need(isinstance(data.get(key), dict), where, f"missing table [{key}]")
    derived = data["derived"]
    for point in POINTS:
        spec = derived.get(point)
        _need(isinstance(spec, dict), where, f"missing table [derived.{point}]")
        of = spec.get("of")
        _need(
            isinstance(of, list) and bool(of) and all(c in CHARACTERISTICS for c in of),
            where,
            f"[derived.{point}] of = {of!r} must list characteristics among {', '.join(CHARACTERISTICS)}",
        )
        for k in ("times", "divide"):
            v = spec.get(k, 1)
            _need(
                isinstance(v, int) and not isinstance(v, bool) and v > 0,
                where,
                f"[derived.{point}] {k} = {v!r} must be a whole number above 0",
            )
    for key in ("hp_per_week", "valor_per_day"):
        v = data["recovery"].get(key)
        _need(
            isinstance(v, str | int) and not isinstance(v, bool) and bool(_NOTATION.match(str(v))),
            where,
            f'[recovery] {key} = {v!r} must be a whole number or dice such as "1d3"',
        )
    rules = data.get("rules", {})
    _need(
        isinstance(rules, dict) and isinstance(rules.get("luck_buys_fumble", False), bool),
        where,
        "[rules] luck_buys_fumble must be true or false",
    )
    for name, spec in data["tests"].items():
        _need(
            isinstance(spec, dict) and spec.get("characteristic") in CHARACTERISTICS,
            where,
            f"[tests] {name!r} needs characteristic = one of {', '.join(CHARACTERISTICS)}",
        )
        t = spec.get("times")
        _need(
            isinstance(t, int) and not isinstance(t, bool) and t > 0,
            where,
            f"[tests] {name!r} times = {t!r} must be a whole number above 0",
        )
    skills = data["skills"]
    _need(bool(skills), where, "[skills] is empty")
    for name, base in skills.items():
        _need(
            isinstance(base, int) and not isinstance(base, bool) and 0 <= base <= 100,
            where,
            f"[skills] {name!r} = {base!r} must be a whole number from 0 to 100",
        )
    folded = [fold(n) for n in [*skills, *data["tests"]]]
    _need(
        len(set(folded)) == len(folded), where, "two skills or tests share a name (ignoring accents and case)"
    )
    return {
        "sample": bool(data.get("sample", False)),
        "derived": {
            p: {
                "of": list(derived[p]["of"]),
                "times": derived[p].get("times", 1),
                "divide": derived[p].get("divide", 1),
            }
            for p in POINTS
        },
        "recovery": {k: str(data["recovery"][k]) for k in ("hp_per_week", "valor_per_day")},
        "rules": {"luck_buys_fumble": bool(rules.get("luck_buys_fumble", False))},
        "tests": {
            n: {"characteristic": s["characteristic"], "times": s["times"]} for n, s in data["tests"].items()
        },
        "skills": dict(skills),
    }


def listing(data: dict[str, Any]) -> list[Any]:
    """The d100 reference tables: skills with their base chance, characteristic tests, derived points."""
    from ledger.browse import Row, Table

    def derived(rule: dict[str, Any]) -> str:
        of = " + ".join(rule["of"])
        times = f" x {rule['times']}" if rule["times"] != 1 else ""
        divide = f" / {rule['divide']}" if rule["divide"] != 1 else ""
        return f"({of}){times}{divide}" if len(rule["of"]) > 1 else f"{of}{times}{divide}"

    return [
        Table(
            "skills",
            "Skills and their base chance (d100 under)",
            tuple(Row(n, f"{base}%", {"base": base}) for n, base in data["skills"].items()),
        ),
        Table(
            "tests",
            "Characteristic tests",
            tuple(Row(n, f"{t['characteristic']} x {t['times']}", dict(t)) for n, t in data["tests"].items()),
        ),
        Table(
            "derived",
            "Derived points",
            tuple(Row(n, derived(rule), dict(rule)) for n, rule in data["derived"].items()),
        ),
    ]
