"""The d20 system's folds: its state, ``evolve`` and the sheet (``state``)."""
