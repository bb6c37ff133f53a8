"""The coin system, a sample plugin for campaign-ledger: call heads or tails, flip a coin.

Sample content: the smallest complete rule system, written the way any plugin is
(docs/plugins.md). ``system.SYSTEM`` is what the entry point publishes.
"""
