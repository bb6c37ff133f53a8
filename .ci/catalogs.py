"""The translation catalogs: extract, update and check them (Babel).

    python .ci/catalogs.py update   # extract every marked sentence, add the new ones to each
                                    # language's .po (untranslated), drop what is gone
    python .ci/catalogs.py check    # fail on a sentence not in a catalog, untranslated, fuzzy,
                                    # or whose translation names other {fields}

Domains: ``ledger`` (the Python sources, babel.cfg), ``page`` (the live page's script,
babel-page.cfg), and each sample plugin's own (samples/plugin-coin).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = ["-k", "_", "-k", "n_:1,2", "-k", "p_:1c,2", "-k", "N_", "-k", "np_:1c,2,3", "-k", "NP_:1c,2"]
DOMAINS = [
    # (domain, mapping file, input dirs, locale dir)
    ("ledger", "babel.cfg", ["."], ROOT / "ledger" / "locale"),
    ("page", "babel-page.cfg", ["."], ROOT / "ledger" / "locale"),
    (
        "campaign_ledger_coin",
        None,
        ["samples/plugin-coin/campaign_ledger_coin"],
        ROOT / "samples" / "plugin-coin" / "campaign_ledger_coin" / "locale",
    ),
]
LANGUAGES = ["es"]  # English is the sources' own language
NAMES = {"es": "Spanish"}
FIELD = re.compile(r"\{([^{}:!]*)[^{}]*\}")


def extract(domain: str, mapping: str | None, inputs: list[str]) -> Catalog:
    with tempfile.TemporaryDirectory() as tmp:
        pot = Path(tmp) / f"{domain}.pot"
        args = [sys.executable, "-m", "babel.messages.frontend", "extract", "--no-default-keywords"]
        args += [*KEYWORDS, "--omit-header", "--no-wrap", "-o", str(pot)]
        if mapping:
            args += ["-F", str(ROOT / mapping)]
        subprocess.run(args + inputs, cwd=ROOT, check=True, capture_output=True)
        with pot.open("rb") as f:
            return read_po(f)


def po_path(locale_dir: Path, lang: str, domain: str) -> Path:
    return locale_dir / lang / "LC_MESSAGES" / f"{domain}.po"


def read(path: Path, lang: str, domain: str) -> Catalog:
    if not path.exists():
        return Catalog(locale=lang, domain=domain)
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=domain)


def update() -> int:
    for domain, mapping, inputs, locale_dir in DOMAINS:
        template = extract(domain, mapping, inputs)
        for lang in LANGUAGES:
            path = po_path(locale_dir, lang, domain)
            catalog = read(path, lang, domain)
            catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
            catalog.obsolete.clear()
            catalog.project, catalog.version = "campaign-ledger", ""
            catalog.fuzzy = False
            catalog.copyright_holder = "the campaign-ledger authors"
            catalog.msgid_bugs_address = ""
            catalog.last_translator = "the campaign-ledger authors"
            catalog.language_team = NAMES[lang]
            catalog.header_comment = (
                f"# {NAMES[lang]} words of campaign-ledger ({domain}).\n"
                "# Updated by `python .ci/catalogs.py update`; see docs/languages.md."
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            out = io.BytesIO()
            write_po(out, catalog, width=0, omit_header=False, sort_output=False, ignore_obsolete=True)
            path.write_bytes(out.getvalue())
            print(f"{path.relative_to(ROOT)}: {sum(1 for m in catalog if m.id)} sentences")
    return 0


def fields(text: str) -> set[str]:
    return set(FIELD.findall(text))


def check() -> int:
    problems: list[str] = []
    for domain, mapping, inputs, locale_dir in DOMAINS:
        template = extract(domain, mapping, inputs)
        for lang in LANGUAGES:
            path = po_path(locale_dir, lang, domain)
            catalog = read(path, lang, domain)
            for message in template:
                if not message.id:
                    continue
                where = ", ".join(f"{f}:{n}" for f, n in message.locations[:2])
                ids = message.id if isinstance(message.id, tuple) else (message.id,)
                found = catalog.get(message.id, message.context)
                name = ids[0] if message.context is None else f"{message.context}|{ids[0]}"
                if found is None:
                    problems.append(f"{path.relative_to(ROOT)}: not in the catalog: {name!r} ({where})")
                    continue
                strings = found.string if isinstance(found.string, tuple) else (found.string,)
                if found.fuzzy:
                    problems.append(f"{path.relative_to(ROOT)}: fuzzy: {name!r} ({where})")
                elif not all(strings):
                    problems.append(f"{path.relative_to(ROOT)}: untranslated: {name!r} ({where})")
                else:
                    want = set().union(*(fields(i) for i in ids)) - {"n"}
                    for s in strings:
                        got = fields(s) - {"n"}
                        if got != want and not (got <= want and len(ids) > 1):
                            problems.append(
                                f"{path.relative_to(ROOT)}: the translation of {name!r} names "
                                f"{sorted(got)}, the source {sorted(want)} ({where})"
                            )
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} catalog problems: run `python .ci/catalogs.py update`, then translate")
        return 1
    print("catalogs: every sentence translated")
    return 0


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "check"
    sys.exit({"update": update, "check": check}[command]())
