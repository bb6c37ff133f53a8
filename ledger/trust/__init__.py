"""Trust: what proves the log whole and who wrote it, and what an import accepts.

``admission`` (an import accepts exactly what the ledger could have recorded), ``sharing``
(a second process deciding most of its actions again, where a core is idle), ``integrity``
(verify, export and import), ``provenance`` (the export's Ed25519 signature and the keys a
ledger trusts), ``seats`` (who may act at the live table: a seat's secret, of which only
its sha256 is kept) and ``outfile`` (the one way a file a user names is written, never one of
the ledger's own).

It may import deciding, the dice, the log and the base modules.
"""
