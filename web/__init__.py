"""The live table: ``ledger serve``'s web server over the same library the command line uses.

Starlette routes (``api``) answer the page at ``/t/<campaign>`` and any other client with
the JSON the command line prints with ``--json``; seats (``auth``, over ``ledger.trust.seats``)
say who may do what; Server-Sent Events (``stream``) carry every new event to every open
page; refusals become the command line's ``--json`` error object (``errors``); ``schema``
describes the commands and the API (JSON Schema, OpenAPI 3.1); ``affordances`` says what
the page offers a seat from what each system declares (a sheet's controls, its forms by
their command-line names, with the command line's help); ``language`` says each request
and each stream in its seat's language, and serves the page's words (the ``page`` catalog).
It may import the kernel, the systems and the read side (``ledger.projections``); a
refusal's fix is worded by the library (``ledger.fixes``), as the command line words it.
Of the command line it imports nothing but what ``affordances`` reads of its command groups
(a command's name, help and options), the one exception its import contract names
(pyproject.toml); nothing below it imports it.
"""
