"""``ledger serve``: the live table, a web server over this ledger (``ledger.web``)."""

from __future__ import annotations

import ipaddress

import click

from ledger import docs
from ledger.cli.options import Ctx, common, pass_ctx

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


SERVE_HELP = """Serve the live table: each seat's page at /t/CAMPAIGN and the API under /api.

Invite the table with `ledger table invite`; each link opens one seat. It listens on
the loopback unless --host says otherwise; on any other address put TLS in front of it
(a reverse proxy), or give --certfile and --keyfile. On PostgreSQL several processes
may serve one ledger side by side. The API, its errors and the live feed: {doc}."""


@click.command("serve", help=SERVE_HELP.format(doc=docs.path("api.md")))
@click.option("--db", default=None, metavar="PATH|URL", help="The ledger to serve (default: the root --db).")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="The port.")
@click.option(
    "--certfile",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Serve HTTPS with this certificate (PEM); give --keyfile too.",
)
@click.option(
    "--keyfile",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="The certificate's key (PEM).",
)
@common
@pass_ctx
def serve(c: Ctx, db: str | None, host: str, port: int, certfile: str | None, keyfile: str | None) -> None:
    """Serve the live table (the help text is SERVE_HELP)."""
    from ledger.store import resolve_target

    if (certfile is None) != (keyfile is None):
        raise click.UsageError("give --certfile and --keyfile together, or neither")
    if db is not None:
        c.db = db
    target = resolve_target(c.db)
    where = c.ledger.store.describe()  # a missing or unreadable ledger is refused here
    c.close()
    scheme = "https" if certfile else "http"
    if not is_loopback(host) and certfile is None:
        click.echo(
            f"warning: {host} is reachable from other machines: put TLS in front of it "
            "(a reverse proxy with HTTPS), or give --certfile and --keyfile",
            err=True,
        )
    import uvicorn

    from ledger.web.app import create_app

    shown = f"[{host}]" if ":" in host else host
    click.echo(f"serving {where} at {scheme}://{shown}:{port}/ (Ctrl-C stops)")
    uvicorn.run(
        create_app(target),
        host=host,
        port=port,
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,  # open streams do not hold Ctrl-C up
    )
