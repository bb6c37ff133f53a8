"""Snapshots: folded states kept every few hundred versions, so time travel and
the first command on a long campaign do not replay the whole history.

A snapshot is a cache, never the truth:

- it is keyed by the stream that owns its version and by a fingerprint of
  the fold's source code, so a change to a projection never reuses a state
  folded by older code;
- it records the chain hash of the event at its version, and is used only
  while that event is still the one stored there;
- it is written only when the state survives an encode/decode round trip
  unchanged, and it can always be deleted: ``ledger verify`` re-folds the
  history and reports any snapshot that disagrees.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import inspect
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.log.state import CampaignState, CoreState
from ledger.systems import GROUP

if TYPE_CHECKING:
    from ledger.systems import System

EVERY = 500
"""A snapshot is kept at every version that is a multiple of this."""

_ALLOWED = ("ledger.",)


class _Stored(msgspec.Struct, frozen=True):
    hash: str
    type: str
    core: CoreState
    game: msgspec.Raw


_stored = msgspec.json.Decoder(_Stored)
_encoder = msgspec.json.Encoder()


_fingerprints: dict[str, str] = {}


def _source(path: Path) -> bytes:
    """A module's source, as the fingerprint reads it."""
    return path.read_bytes()


_FROM_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)", re.M)
_IMPORT = re.compile(
    rb"^[ \t]*import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)", re.M
)


@cache
def _imported(path: Path, module: str) -> tuple[str, ...]:
    """Every module name an import statement of this source names, wherever it stands (a
    function's own imports too): ``from a.b import c`` names ``a.b`` and ``a.b.c``. Read
    with two regular expressions rather than a parse, to stay cheap: a line in a string that
    looks like an import only adds a module to the fingerprint. ``from ledger import i18n``
    names ``ledger.i18n`` alone: a top-level package's ``__init__`` is its facade (the
    ledger's imports every part of it), not code of the fold."""
    try:
        source = _source(path)
    except OSError:
        return ()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: list[str] = []
    for line in _IMPORT.finditer(source):
        names.extend(part.split()[0] for part in line.group(1).decode().split(","))
    for line in _FROM_IMPORT.finditer(source):
        base = line.group(1).decode()
        dots = len(base) - len(base.lstrip("."))
        if dots:
            parts = package.split(".")
            parts = parts[: len(parts) - dots + 1]
            base = ".".join([*parts, *([base[dots:]] if base[dots:] else [])])
        aliases = [a.split("#")[0].strip() for a in line.group(2).decode().strip("()").split(",")]
        named = [f"{base}.{a.split()[0]}" for a in aliases if a and a != "*"]
        modules = [n for n in named if _module_file(n) is not None]
        names.extend(named)
        if "." in base or len(modules) < len(named) or not named:
            names.append(base)  # a package's own code, or a name defined in it
    return tuple(names)


@cache
def _spec(module: str) -> importlib.machinery.ModuleSpec | None:
    """A module's spec, found by the import system without running the module itself (its
    packages are imported): None for what is not a module, such as a class named in
    ``from a import Class``. Only a package can hold a module, so ``a.Class`` is looked
    for only when ``a`` is a package: the module ``a`` is never run to find it out."""
    parent, _, _ = module.rpartition(".")
    if parent:
        above = _spec(parent)
        if above is None or above.submodule_search_locations is None:
            return None
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError, AttributeError):
        return None


def _module_file(module: str) -> Path | None:
    """The source file of a module (see :func:`_spec`), None for what is not a module."""
    spec = _spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def dependencies(modules: Iterable[str]) -> dict[str, Path]:
    """The modules named, and every module of their packages (and of the ledger's) that
    they import, transitively: all the code a fold or a decider can run."""
    start = list(modules)
    packages = {"ledger", *(m.split(".")[0] for m in start)}
    found: dict[str, Path] = {}
    todo = start
    while todo:
        module = todo.pop()
        if module in found or module.split(".")[0] not in packages:
            continue
        path = _module_file(module)
        if path is None:
            continue
        found[module] = path
        todo.extend(_imported(path, module))
    return found


def code_fingerprint(functions: Iterable[Any], modules: Iterable[str] = (), size: int = 16) -> str:
    """A hash of the source of the modules the functions live in and the modules named,
    with every module they import, transitively, each under its module name (so the hash
    is the same wherever the package is installed)."""
    names = set(modules)
    for fn in functions:
        module = inspect.getmodule(fn)
        if module is not None:
            names.add(module.__name__)
    digest = hashlib.sha256()
    for name, path in sorted(dependencies(names).items()):
        digest.update(name.encode() + b"\0" + _source(path) + b"\0")
    return digest.hexdigest()[:size]


def fingerprint(system: System) -> str:
    """A hash of the source of every module whose code shapes the folded state: the system's
    fold and the core fold, with everything they import (rule tables, dice helpers, event
    classes), found by reading the modules' import statements."""
    if system.name not in _fingerprints:
        _fingerprints[system.name] = code_fingerprint(
            (system.rules.evolve, system.rules.initial, *system.rules.events), [CampaignState.__module__]
        )
    return _fingerprints[system.name]


def key(stream: str, system: System) -> str:
    return f"{stream}:{fingerprint(system)}"


@cache
def _plugin_packages() -> frozenset[str]:
    """The top-level packages of the installed systems: a snapshot's state type is looked up
    only there (and in the ledger), never in a module the stored text names at will."""
    return frozenset(p.value.split(".")[0] for p in importlib.metadata.entry_points(group=GROUP))


@cache
def _decoder(type_name: str) -> msgspec.json.Decoder[Any] | None:
    module_name, _, qualname = type_name.partition(":")
    if not module_name.startswith(_ALLOWED) and module_name.split(".")[0] not in _plugin_packages():
        return None
    try:
        cls = getattr(importlib.import_module(module_name), qualname)
    except (ImportError, AttributeError):
        return None
    return msgspec.json.Decoder(cls)


def encode(state: CampaignState, event_hash: str) -> bytes | None:
    """The snapshot bytes, or None when the state would not read back the same."""
    game = state.game
    if game is None:
        return None
    cls = type(game)
    type_name = f"{cls.__module__}:{cls.__qualname__}"
    try:
        raw = _encoder.encode({"hash": event_hash, "type": type_name, "core": state.core, "game": game})
        back = decode(raw)
    except (msgspec.MsgspecError, TypeError, ValueError):
        return None
    if back is None or back[1] != state:
        return None
    return raw


def decode(raw: bytes) -> tuple[str, CampaignState] | None:
    """(event hash, state) from snapshot bytes, or None when unreadable."""
    try:
        stored = _stored.decode(raw)
        decoder = _decoder(stored.type)
        if decoder is None:
            return None
        return stored.hash, CampaignState(stored.core, decoder.decode(stored.game))
    except (msgspec.MsgspecError, TypeError, ValueError):
        return None
