"""Sample content: tables and campaigns for each built-in system, installed as package data.

Everything here is sample content, marked as such in each file: a user replaces any table with a
file of their own (``ledger new SYSTEM NAME --tables FILE``).
"""
