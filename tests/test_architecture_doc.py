"""docs/architecture.md stays true to the tree: every module and folder it names exists,
and every module of the kernel, every package and every command line module is named."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "architecture.md"

FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)
SEGMENT = r"[\w<>*.-]+"
ENTRY = re.compile(rf"^( *)({SEGMENT}(?:/{SEGMENT})*/?)(?: {{2,}}|$)")
"""A tree line: its indentation, then a name followed by two spaces (its description) or
nothing. A line indented deeper than a child of the folder above it continues a description."""
FILE = re.compile(r"\.(py|toml|md|jsonl|txt|css|html|js)$")
TOP = r"(?:ledger|projections|cli|samples|bench|tests|docs|\.ci)"
MENTION = re.compile(rf"(?:^|(?<=[\s`(\"']))({TOP}/(?:{SEGMENT}/?)*)", re.M)
"""A path named in the text (backticked or not): it starts with one of the checkout's folders."""


def is_path(name: str) -> bool:
    return name.endswith("/") or FILE.search(name) is not None


def tree_entries(doc: str) -> list[str]:
    """The paths the doc's tree blocks name, each joined to the folders above it: a
    fenced block without a language whose first line starts with a file or folder."""
    found: list[str] = []
    for lang, body in FENCE.findall(doc):
        lines = body.splitlines()
        first = ENTRY.match(lines[0]) if lines else None
        if lang.strip() or first is None or first.group(1) or not is_path(first.group(2)):
            continue
        folders: list[tuple[int, str]] = []  # (indentation, path) of the open folders
        for line in lines:
            m = ENTRY.match(line)
            if m is None or not is_path(m.group(2)):
                continue
            indent, name = len(m.group(1)), m.group(2)
            if indent > (folders[-1][0] + 2 if folders else 0):
                continue  # deeper than a child of the open folder: a description's line
            while folders and folders[-1][0] >= indent:
                folders.pop()
            path = (folders[-1][1] if folders else "") + name
            found.append(path)
            if name.endswith("/"):
                folders.append((indent, path))
    return found


def mentions(doc: str) -> list[str]:
    """Paths named anywhere in the doc's text (and its blocks), without trailing punctuation."""
    return [m.rstrip(".") for m in MENTION.findall(doc) if m.rstrip(".")]


def exists(root: Path, path: str) -> bool:
    """Whether a named path is in the checkout; ``<name>`` (or ``*``) stands for any one
    name and must match at least one."""
    pattern = re.sub(r"<[^>]*>", "*", path.rstrip("/"))
    if "*" in pattern:
        hits = list(root.glob(pattern))
        return any(h.is_dir() for h in hits) if path.endswith("/") else bool(hits)
    target = root / pattern
    return target.is_dir() if path.endswith("/") else target.exists()


def required(root: Path) -> list[str]:
    """What the doc must name: every module of the kernel (``ledger/*.py`` and the modules of
    its packages, ``ledger/log/*.py`` ...; the systems' folders are named as folders), every
    package (a folder with ``__init__.py``) under ``ledger/`` and ``projections/``, every
    ``cli/*.py``."""
    kernel = [
        p for p in sorted((root / "ledger").rglob("*.py")) if "systems" not in p.relative_to(root).parts
    ]
    paths = [p.relative_to(root).as_posix() for p in kernel]
    for top in ("ledger", "projections"):
        for init in sorted((root / top).rglob("__init__.py")):
            paths.append(init.parent.relative_to(root).as_posix() + "/")
    paths += [p.relative_to(root).as_posix() for p in sorted((root / "cli").glob("*.py"))]
    return paths


def problems(doc: str, root: Path) -> list[str]:
    """Each way the doc and the tree disagree, one line each; none when the doc is true."""
    named = tree_entries(doc) + mentions(doc)
    out = [
        f"the doc names {p}, which is not in the checkout"
        for p in dict.fromkeys(named)
        if not exists(root, p)
    ]
    literal = {p.rstrip("/") for p in named if "<" not in p and "*" not in p}
    out += [f"the doc does not name {p}" for p in required(root) if p.rstrip("/") not in literal]
    return out


def test_the_architecture_doc_is_true_to_the_tree() -> None:
    assert problems(DOC.read_text(), ROOT) == []


def test_the_doc_names_the_modules_the_issue_found_missing() -> None:
    named = set(tree_entries(DOC.read_text()))
    for module in ("log/records", "deciding/action", "dice/legacy", "play/autoplay", "tables/file"):
        assert f"ledger/{module}.py" in named
    assert {"projections/stats/", "projections/warehouse/", "bench/", "samples/plugin-coin/"} <= named


# --- the checker itself can fail: a planted tree and docs that disagree with it ---


def plant(root: Path) -> Path:
    for path in (
        "ledger/__init__.py",
        "ledger/alpha.py",
        "ledger/beta.py",
        "ledger/systems/__init__.py",
        "ledger/systems/one/__init__.py",
        "projections/__init__.py",
        "projections/one/__init__.py",
        "projections/one/state.py",
        "cli/__init__.py",
        "cli/main.py",
    ):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text('"""planted"""\n')
    return root


TRUE_TREE = """\
# Planted

```
ledger/             the kernel
  __init__.py       its names
  alpha.py          one module
  beta.py           another
  systems/
    __init__.py     the registry
    one/            the one system
projections/        the read side
  __init__.py       folds
  one/              the one fold
    state.py        its state
cli/                the command line
  __init__.py       the package
  main.py           the root group
```

The kernel's first module is `ledger/alpha.py`; each fold is `projections/<name>/state.py`.
"""


def test_the_checker_passes_a_planted_doc_true_to_its_tree(tmp_path: Path) -> None:
    assert problems(TRUE_TREE, plant(tmp_path)) == []


def test_the_checker_refuses_a_tree_line_naming_a_missing_module(tmp_path: Path) -> None:
    doc = TRUE_TREE.replace(
        "  beta.py           another\n", "  beta.py           another\n  gone.py           none\n"
    )
    assert problems(doc, plant(tmp_path)) == ["the doc names ledger/gone.py, which is not in the checkout"]


def test_the_checker_refuses_a_missing_module_named_in_the_text(tmp_path: Path) -> None:
    doc = TRUE_TREE + "\nImports are checked in `ledger/trust/admission.py`.\n"
    assert problems(doc, plant(tmp_path)) == [
        "the doc names ledger/trust/admission.py, which is not in the checkout"
    ]


def test_the_checker_refuses_a_placeholder_that_matches_nothing(tmp_path: Path) -> None:
    doc = TRUE_TREE + "\nEach system's facts are in `ledger/systems/<name>/facts.py`.\n"
    assert problems(doc, plant(tmp_path)) == [
        "the doc names ledger/systems/<name>/facts.py, which is not in the checkout"
    ]


def test_the_checker_refuses_a_kernel_module_left_out(tmp_path: Path) -> None:
    doc = TRUE_TREE.replace("  beta.py           another\n", "")
    assert problems(doc, plant(tmp_path)) == ["the doc does not name ledger/beta.py"]


def test_the_checker_refuses_a_package_left_out(tmp_path: Path) -> None:
    doc = TRUE_TREE.replace("  one/              the one fold\n    state.py        its state\n", "")
    assert problems(doc, plant(tmp_path)) == ["the doc does not name projections/one/"]


def test_the_checker_refuses_a_command_line_module_left_out(tmp_path: Path) -> None:
    root = plant(tmp_path)
    (root / "cli" / "extra.py").write_text('"""planted"""\n')
    assert problems(TRUE_TREE, root) == ["the doc does not name cli/extra.py"]


def test_a_placeholder_does_not_name_the_packages_it_stands_for(tmp_path: Path) -> None:
    doc = TRUE_TREE.replace("    one/            the one system\n", "    <name>/         each system\n")
    assert problems(doc, plant(tmp_path)) == ["the doc does not name ledger/systems/one/"]


def test_a_description_line_is_not_read_as_a_tree_entry(tmp_path: Path) -> None:
    doc = TRUE_TREE.replace(
        "  beta.py           another\n",
        "  beta.py           another, which reads the file\n                    gone.py\n",
    )
    assert problems(doc, plant(tmp_path)) == []
