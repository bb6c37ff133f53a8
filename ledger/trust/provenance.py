"""Provenance: who exported a file, as an Ed25519 signature over its header.

The hash chain is unkeyed: it proves that nothing changed since a hash you
trust, not who wrote it. So every ledger has its own Ed25519 key pair,
created on first use, and signs the header of each export: the header names
the head version and its hash, and that hash commits to every event before
it, so one signature covers the whole file.

The private key lives in the store's ``ledger_keys`` table (SQLite or
PostgreSQL alike), beside the events but never in them: no export, log,
warehouse or query reads that table. The same table keeps the public keys
this ledger trusts, by name. An import or ``verify`` of a file then says
whether it was signed by this ledger, by a trusted key, by an unknown key,
or not at all; a signature that does not match is tampering and is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

from ledger.errors import (
    DropOption,
    Fix,
    GiveOption,
    Input,
    LedgerError,
    PublicKeyError,
    RunCommand,
    SignatureError,
    StoreError,
)
from ledger.i18n import _
from ledger.text import check_name
from ledger.trust import admission
from ledger.trust.integrity import import_campaign

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from ledger.campaign import Ledger
    from ledger.log.records import Campaign
    from ledger.log.store import Store

KEY_PREFIX = "ed25519:"
SIGNED_BY = "signed_by"
SIGNATURE = "signature"
SIGNING_STREAM = "signing-key"
TRUSTED_STREAM = "trusted-keys"
CONTEXT = b"campaign-ledger export header, ed25519, v1\n"
"""Prefixed to every signed statement, so a signature made for an export can
never be replayed as a signature over anything else."""
MAX_HEADER = 64 * 1024
"""The longest header line `ledger key trust FILE` reads."""

Status = Literal["own", "trusted", "unknown", "unsigned"]


# --- keys as text -----------------------------------------------------------------


def key_text(raw: bytes) -> str:
    return KEY_PREFIX + raw.hex()


def parse_key(text: str) -> bytes:
    """The 32 raw bytes of ``ed25519:<64 hex digits>`` (the prefix may be left out)."""
    body = text.strip()
    if body.lower().startswith(KEY_PREFIX):
        body = body[len(KEY_PREFIX) :]
    if len(body) != 64 or any(ch not in "0123456789abcdefABCDEF" for ch in body):
        raise PublicKeyError(
            _("a public key is ed25519: followed by 64 hex digits"),
            fix=RunCommand(text=_("as `key show` prints it; check what you pasted"), command="key show"),
        )
    return bytes.fromhex(body)


def fingerprint(key: str) -> str:
    """A short name for a public key: 128 bits of its sha256, in groups of four hex digits."""
    digest = hashlib.sha256(parse_key(key)).hexdigest()[:32]
    return ":".join(digest[i : i + 4] for i in range(0, 32, 4))


def statement(header: Mapping[str, Any]) -> bytes:
    """The bytes a signature covers: every header field but the signature itself
    (format, version, campaign id, name, system, head, head hash and the signer's
    key), as sorted, compact, ASCII-only JSON after a fixed context line."""
    fields = {k: v for k, v in header.items() if k != SIGNATURE}
    try:
        body = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        raise SignatureError(
            _("the export header holds a value that cannot be signed"), fix=admission.export_file()
        ) from e
    return CONTEXT + body.encode()


# --- who signed -----------------------------------------------------------------------


def _own_words(fix: Fix) -> str:
    return fix.text


class Signer(msgspec.Struct, frozen=True):
    """Who signed an export, as far as this ledger knows."""

    status: Status
    key: str | None = None
    name: str | None = None

    @property
    def fingerprint(self) -> str | None:
        return fingerprint(self.key) if self.key else None

    @property
    def known(self) -> bool:
        return self.status in ("own", "trusted")

    def describe(self, file: str | None = None, *, word: Callable[[Fix], str] = _own_words) -> str:
        """One line: whose signature, and what to do about an unknown one (a :class:`Fix`
        that ``word`` says in the reader's words; its own text by default)."""
        if self.status == "own":
            return _("signed by this ledger's key {fingerprint}", fingerprint=self.fingerprint)
        if self.status == "trusted":
            return _(
                "signed by trusted key {name!r} ({fingerprint})", name=self.name, fingerprint=self.fingerprint
            )
        if self.status == "unknown":
            source = file if file else self.key
            return _(
                "signed by an unknown key {fingerprint}; if it is the sender's, {fix}",
                fingerprint=self.fingerprint,
                fix=word(trust_fix(source)),
            )
        return _("unsigned: its chain is whole, but nothing says who exported it")

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "key": self.key, "fingerprint": self.fingerprint, "name": self.name}


# --- the key table --------------------------------------------------------------------


def trust_fix(source: str, if_sender: bool = False) -> Fix:
    """Trusting the key of ``source`` (a file or key) under a name: the fix of an unknown signer
    (``if_sender``: worded as what to do if the key is the sender's)."""
    return RunCommand(
        text=_("if it is the sender's, trust it with `key trust`")
        if if_sender
        else _("trust it with `key trust`"),
        command="key trust",
        arguments=(source,),
        options=(Input("name", "NAME"),),
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _private(raw: bytes) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(raw)


def _public_raw(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def _read_signing(store: Store) -> tuple[Ed25519PrivateKey, str] | None:
    rows = store.key_records(SIGNING_STREAM)
    if not rows:
        return None
    record = json.loads(rows[0].state)
    return _private(bytes.fromhex(record["private_key"])), record["created"]


def signing_key(store: Store, *, create: bool = True) -> Ed25519PrivateKey | None:
    """This ledger's private key, made on first use (the first writer wins a race)."""
    found = _read_signing(store)
    if found is not None or not create:
        return found[0] if found else None

    key = Ed25519PrivateKey.generate()
    record = {
        "algorithm": "ed25519",
        "private_key": key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()).hex(),
        "public_key": key_text(_public_raw(key)),
        "created": _now(),
    }
    try:
        store.put_key(SIGNING_STREAM, 1, "key.signing", json.dumps(record).encode())
    except StoreError as e:
        raise StoreError(
            _("{problem}; the ledger's signing key is made on first export", problem=e.message),
            e.path,
            fix=GiveOption(
                text=_("so export with `unsigned` until it can be written"), inputs=(Input("unsigned"),)
            ),
        ) from e
    found = _read_signing(store)  # this call's key, or that of the writer that won a race
    if found is None:
        raise StoreError(
            _("the signing key could not be stored in {value}; try again", value=store.describe())
        )
    return found[0]


class OwnKey(msgspec.Struct, frozen=True):
    key: str
    created: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


def own_key(store: Store, *, create: bool = True) -> OwnKey | None:
    """This ledger's public key (never the private one)."""
    found = _read_signing(store)
    if found is None and create:
        signing_key(store)
        found = _read_signing(store)
    return OwnKey(key_text(_public_raw(found[0])), found[1]) if found else None


class TrustedKey(msgspec.Struct, frozen=True):
    key: str
    name: str
    since: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


def trusted_keys(store: Store) -> list[TrustedKey]:
    """The keys this ledger trusts: the last record for each key wins, a forgotten one drops out."""
    current: dict[str, TrustedKey | None] = {}
    for row in store.key_records(TRUSTED_STREAM):
        record = json.loads(row.state)
        current[record["key"]] = (
            TrustedKey(record["key"], record["name"], record["at"]) if record["trusted"] else None
        )
    return [k for k in current.values() if k is not None]


def _append_trust(store: Store, record: dict[str, Any]) -> None:
    for __ in range(50):
        version = len(store.key_records(TRUSTED_STREAM)) + 1
        if store.put_key(TRUSTED_STREAM, version, "key.trusted", json.dumps(record).encode()):
            return
    raise LedgerError(_("the ledger's key list is busy; try again"))


def trust(store: Store, key: str, name: str) -> TrustedKey:
    """Trust a public key under a name; refuses this ledger's own key and a name given to another key."""
    key = key_text(parse_key(key))
    check_name(name, "key")
    own = own_key(store, create=False)
    if own is not None and own.key == key:
        raise PublicKeyError(
            _("key {value} is this ledger's own; it is always known", value=fingerprint(key))
        )
    for k in trusted_keys(store):
        if k.name == name and k.key != key:
            raise PublicKeyError(
                _("the name {name!r} is given to key {fingerprint}", name=name, fingerprint=k.fingerprint),
                fix=RunCommand(
                    text=_("choose another `name` or `key forget` first"),
                    command="key forget",
                    arguments=(name,),
                ),
            )
        if k.key == key and k.name == name:
            return k
    record = {"key": key, "name": name, "trusted": True, "at": _now()}
    _append_trust(store, record)
    return TrustedKey(key, name, record["at"])


def forget(store: Store, who: str) -> TrustedKey:
    """Stop trusting a key, named by its trusted name or its fingerprint."""
    wanted = who.strip().lower().replace(":", "")
    for k in trusted_keys(store):
        if k.name == who or k.fingerprint.replace(":", "") == wanted:
            _append_trust(store, {"key": k.key, "name": k.name, "trusted": False, "at": _now()})
            return k
    names = ", ".join(repr(k.name) for k in trusted_keys(store)) or "none"
    raise PublicKeyError(
        _("no trusted key named or fingerprinted {who!r} (trusted: {names})", who=who, names=names),
        fix=RunCommand(text=_("see `key list`"), command="key list"),
    )


def known_keys(store: Store | None) -> dict[str, Signer]:
    """Every key this ledger knows, own and trusted, as the signer it stands for."""
    if store is None:
        return {}
    known = {k.key: Signer("trusted", k.key, k.name) for k in trusted_keys(store)}
    own = own_key(store, create=False)
    if own is not None:
        known[own.key] = Signer("own", own.key)
    return known


def signer_of(store: Store | None, key: str | None, known: dict[str, Signer] | None = None) -> Signer:
    """How this ledger knows a signer's public key."""
    if key is None:
        return Signer("unsigned")
    known = known_keys(store) if known is None else known
    return known.get(key, Signer("unknown", key))


# --- signing and checking headers -------------------------------------------------------


def sign(store: Store, header: dict[str, Any]) -> dict[str, Any]:
    """The header with this ledger's public key and its signature over :func:`statement`."""
    key = signing_key(store)
    if key is None:  # pragma: no cover - signing_key makes one or raises
        raise StoreError(_("{store} has no signing key", store=store.describe()))
    signed = {k: v for k, v in header.items() if k not in (SIGNED_BY, SIGNATURE)}
    signed[SIGNED_BY] = key_text(_public_raw(key))
    signed[SIGNATURE] = key.sign(statement(signed)).hex()
    return signed


def check_signature(header: Mapping[str, Any]) -> str | None:
    """The public key whose signature the header carries, None when it carries none;
    raises :class:`SignatureError` when a signature is there but does not hold."""
    signer, signature = header.get(SIGNED_BY), header.get(SIGNATURE)
    if signer is None and signature is None:
        return None
    refused = _(
        "the export's signature does not match its header: the file was edited after it was signed; nothing was recorded, ask its sender for a fresh export"
    )
    if not isinstance(signer, str) or not isinstance(signature, str):
        raise SignatureError(refused)
    try:
        raw_key = parse_key(signer)
        raw_signature = bytes.fromhex(signature)
    except (PublicKeyError, ValueError) as e:
        raise SignatureError(refused) from e

    try:
        Ed25519PublicKey.from_public_bytes(raw_key).verify(raw_signature, statement(header))
    except (InvalidSignature, ValueError) as e:
        raise SignatureError(refused, fingerprint(signer)) from e
    return key_text(raw_key)


def check_header(
    store: Store | None, header: Mapping[str, Any], *, require_signed: bool = False, file: str | None = None
) -> Signer:
    """Who signed an export header; refuses a bad signature, and with
    ``require_signed`` an unsigned file or one signed by an unknown key (known to
    ``store``'s ledger; None: no key is known)."""
    signer = signer_of(store, check_signature(header))
    if require_signed and not signer.known:
        source = file if file else "FILE"
        if signer.status == "unsigned":
            raise SignatureError(
                _("refused: the export is unsigned and `require_signed` is set"),
                field="require_signed",
                fix=DropOption(
                    text=_(
                        "ask its sender to export it again with a current campaign-ledger, or drop `require_signed`"
                    ),
                    inputs=("require_signed",),
                ),
            )
        raise SignatureError(
            _(
                "refused: the export is signed by an unknown key {fingerprint} and `require_signed` is set",
                fingerprint=signer.fingerprint,
            ),
            signer.fingerprint,
            field="require_signed",
            fix=trust_fix(source, if_sender=True),
        )
    return signer


def of_campaign(book: Ledger, campaign: Campaign) -> Signer | None:
    """Who signed the export a campaign came from: None for one recorded here."""
    if not campaign.imported:
        return None
    return signer_of(book.store, campaign.signed_by)


def of_campaigns(book: Ledger, names: list[str]) -> dict[str, Signer]:
    """The signers of the imported campaigns among ``names`` (other names are left out)."""
    campaigns = {c.name: c for c in book.campaigns()}
    imported = [campaigns[n] for n in names if n in campaigns and campaigns[n].imported]
    known = known_keys(book.store) if imported else {}
    return {c.name: signer_of(book.store, c.signed_by, known) for c in imported}


# --- reading keys and files ---------------------------------------------------------------


def read_header(path: str) -> dict[str, Any]:
    """The first line of an export file, read without loading the rest."""
    try:
        with open(path, "rb") as f:
            line = f.readline(MAX_HEADER + 1)
    except OSError as e:
        raise PublicKeyError(
            _("cannot read {path}: {strerror}; check the path", path=path, strerror=e.strerror)
        ) from e
    if len(line) > MAX_HEADER:
        raise PublicKeyError(
            _("{path} is not a campaign-ledger export (its first line is too long)", path=path)
        )
    try:
        header = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        header = None
    if not isinstance(header, dict) or header.get("format") != admission.EXPORT_FORMAT:
        raise PublicKeyError(
            _("{path} is not a campaign-ledger export", path=path), fix=admission.export_file()
        )
    return header


def key_from(source: str) -> tuple[str, str | None]:
    """A public key from an export file (its signer, checked), a file holding a key,
    or the key itself; with the name the file suggests (its campaign's)."""
    path = Path(source)
    if not path.is_file():
        try:
            return key_text(parse_key(source)), None
        except PublicKeyError:
            shown = source if source.isprintable() and len(source) <= 80 else "FILE_OR_KEY"
            raise PublicKeyError(
                _(
                    "{shown!r} is neither an export file nor a public key (ed25519: followed by 64 hex digits)",
                    shown=shown,
                ),
                fix=RunCommand(
                    text=_("as `key show` prints a key; check the path or what you pasted"),
                    command="key show",
                ),
            ) from None
    try:
        with path.open("rb") as f:
            head = f.read(200)
    except OSError as e:
        raise PublicKeyError(
            _("cannot read {source}: {strerror}; check the path", source=source, strerror=e.strerror)
        ) from e
    text = head.decode("ascii", "replace").strip()
    if not text.startswith("{"):
        return key_text(parse_key(text)), None
    header = read_header(source)
    key = check_signature(header)
    if key is None:
        raise PublicKeyError(_("{source} is unsigned; there is no key in it to trust", source=source))
    name = header.get("name")
    return key, name if isinstance(name, str) else None


class FileReport(msgspec.Struct, frozen=True):
    """What ``ledger verify FILE`` found in an export."""

    file: str
    name: str
    system: str
    head: int
    head_hash: str
    signer: Signer

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": True,
            "file": self.file,
            "name": self.name,
            "system": self.system,
            "head": self.head,
            "head_hash": self.head_hash,
            "signer": self.signer.as_dict(),
        }


def verify_file(
    book: Ledger | None, data: IO[bytes], path: str, *, require_signed: bool = False
) -> FileReport:
    """Check the export ``data`` (read from ``path``, open from its start and seekable:
    ``ledger.trust.infile.opened``) as an import would (chain, head, every event, signature)
    without recording anything; ``book`` supplies the known keys and the campaigns a fork
    may name as its parent (None: none known)."""

    def signer(header: Mapping[str, Any]) -> str | None:
        return check_header(store, header, require_signed=require_signed, file=path).key

    store = book.store if book is not None else None
    # With a ledger, a fork that names one of its campaigns as its parent is checked
    # against it, as the import would check it; nothing is recorded (dry run).
    registry = book.registry if book is not None else None
    camp = import_campaign(registry, data, signer=signer, dry_run=True)
    data.seek(0)
    header, __ = admission.read_header(data)
    return FileReport(
        path,
        camp.name,
        camp.system,
        header.head,
        header.head_hash,
        signer_of(store, camp.signed_by),
    )
