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
import inspect
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from projections.core import CampaignState, CoreState

if TYPE_CHECKING:
    from ledger.systems import System

EVERY = 500
"""A snapshot is kept at every version that is a multiple of this."""

_ALLOWED = ("projections.", "ledger.")


class _Stored(msgspec.Struct, frozen=True):
    hash: str
    type: str
    core: CoreState
    game: msgspec.Raw


_stored = msgspec.json.Decoder(_Stored)
_encoder = msgspec.json.Encoder()


_fingerprints: dict[str, str] = {}


def fingerprint(system: System) -> str:
    """A hash of the source of every module whose code shapes the folded state."""
    if system.name in _fingerprints:
        return _fingerprints[system.name]
    files = {Path(inspect.getfile(CampaignState))}
    for fn in (system.evolve, system.initial):
        module = inspect.getmodule(fn)
        if module is not None and getattr(module, "__file__", None):
            files.add(Path(module.__file__))  # type: ignore[arg-type]
    root = Path(inspect.getfile(CampaignState)).parents[1]
    files.update((root / "projections").glob(f"{system.name}*.py"))
    files.update((root / "ledger" / "events").glob(f"{system.name}*.py"))
    files.add(root / "ledger" / "events" / "__init__.py")
    digest = hashlib.sha256()
    for path in sorted(files):
        if path.exists():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    _fingerprints[system.name] = digest.hexdigest()[:16]
    return _fingerprints[system.name]


def key(stream: str, system: System) -> str:
    return f"{stream}:{fingerprint(system)}"


@cache
def _decoder(type_name: str) -> msgspec.json.Decoder[Any] | None:
    module_name, _, qualname = type_name.partition(":")
    if not module_name.startswith(_ALLOWED):
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
