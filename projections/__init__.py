"""Pure folds over the log: ``evolve(state, event) -> state``.

Projections never roll dice and never refuse; they rebuild what the events
say. ``ledger.log.state`` folds the events every campaign shares and hands
each system's events to that system's fold.
"""
