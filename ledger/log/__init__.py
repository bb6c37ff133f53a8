"""The log: what is stored, and how it is read back.

``events`` (the vocabulary, the :class:`~ledger.log.events.Envelope` and its Decision),
``chain`` (the sha256 chain over the stored bytes), ``store`` (the eventsourcing recorders,
SQLite and PostgreSQL), ``state`` (the campaign state every system shares, and the core
fold), ``snapshots`` (folded states kept every few hundred versions) and ``records``
(what the ledger hands out: a campaign, a tip, a recorded action, a log entry).

It may import ``ledger.errors``, ``ledger.i18n``, ``ledger.text`` and the systems registry
(``ledger.systems``) only: it never rolls, decides or checks an import.
"""
