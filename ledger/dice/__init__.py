"""The dice: where faces come from and what a roll means.

``sources`` (the CSPRNG, seeded, physical and committed dice, and the notation roller),
``notation`` (dice notation parsed into a tree and written back), ``odds`` (a roll's exact
chances), ``legacy`` (the notation's first rules, kept so old rolls read as recorded) and
``provable`` (commitments, the seed table, the next nonce, ``verify --dice``).

It may import the log (``ledger.log``) and the base modules (``ledger.errors``,
``ledger.i18n``, ``ledger.text``): it never decides a command. Its refusals are said in
the language of the moment (:mod:`ledger.i18n`); the notation itself is the same in every
language.
"""
