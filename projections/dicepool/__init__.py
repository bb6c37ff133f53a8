"""The dicepool system's folds: its state, ``evolve`` and the sheet (``state``)."""
