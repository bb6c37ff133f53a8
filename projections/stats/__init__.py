"""Campaign statistics over the warehouse: luck, rates, costs, survival, fair dice.

The read side of the statistics, one idea a module: :mod:`.maths` (the luck index,
the chi-square test of fair dice, the Kaplan-Meier curve), :mod:`.reports` (the SQL
reports over the warehouse, ``ledger.projections.warehouse``), :mod:`.tables` (their
rows as aligned text, shared by the command line and the systems' own reports) and
:mod:`.sheet` (the luck a character sheet shows, read from the log). Their text is the
command line's (``ledger.cli.stats_text``); the simulator records, so it is no part of
the read side (``ledger.play.simulate``).

The luck index of a set of rolls with known probabilities of success is
``(successes - sum p) / sqrt(sum p (1 - p))``: how many standard deviations
the successes ran above (lucky) or below (unlucky) their expectation. It counts
every die thrown, undone ones included: undoing is a choice made after seeing
the dice, so luck over the kept rolls alone ("kept luck") measures the
mulligans as much as the dice.
"""
