"""The live table: ``ledger serve``'s web server over the same library the command line uses.

Starlette routes (``api``) answer the page at ``/t/<campaign>`` and any other client with
the JSON the command line prints with ``--json``; seats (``auth``, over ``ledger.trust.seats``)
say who may do what; Server-Sent Events (``stream``) carry every new event to every open
page; refusals become the command line's ``--json`` error object (``errors``); ``schema``
describes the commands and the API (JSON Schema, OpenAPI 3.1); ``affordances`` says what
the page offers a seat from what each system declares (a sheet's controls, its forms by
their command-line names, with the command line's help). It may import the kernel, the
systems, the read side (``ledger.projections``) and the command line's words (a fix's,
a command's name and help: ``ledger.cli``); nothing below it imports it.
"""
