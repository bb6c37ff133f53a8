"""Deciding: a command becomes events, or is refused.

``authority`` (who may issue a command: whom it reaches, declared beside each command
class), ``commands`` (the core commands, their decider and their stable names), ``decider`` (the one
decider every system uses: a handler per command class, and the draft of events it folds)
and ``action`` (one action on a branch's head: who acts, the dice it draws, the rules
versions in force and the decision it keeps). Nothing here writes: the campaign facade
records what is decided (``ledger.campaign``).

It may import the dice (``ledger.dice``), the log (``ledger.log``) and the base modules
(``ledger.errors``, ``ledger.i18n``, ``ledger.text``).
"""
