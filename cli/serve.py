"""``ledger serve``: the live table, a web server over this ledger (``ledger.web``)."""

from __future__ import annotations

import io
import ipaddress
import logging
import socket
import sys
from typing import Any

import click

from ledger import docs
from ledger.cli import systems as on_cli
from ledger.cli.options import CommandHelpLater, Ctx, common, pass_ctx
from ledger.cli.root import cli
from ledger.i18n import N_, _
from ledger.log.store import resolve_target

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})
PROBE = ("192.0.2.1", 9)
"""An address no packet is sent to (TEST-NET-1): the route to it names the LAN address."""


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_unspecified(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's address on its local network (the one its default route leaves
    from), None when it has none but the loopback."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(PROBE)  # a datagram socket's connect sends nothing
            found = str(probe.getsockname()[0])
    except OSError:
        return None
    return None if is_loopback(found) or is_unspecified(found) else found


def trusted_proxies(given: str | None) -> list[str] | None:
    """The ``--forwarded-allow-ips`` list, each an address or a network; a malformed one
    is refused (uvicorn would quietly trust nothing by that name)."""
    if given is None:
        return None
    found = [item.strip() for item in given.split(",") if item.strip()]
    for item in found:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise click.BadParameter(
                _(
                    "{item!r} is no address or network; name each proxy as 127.0.0.1 or 10.0.0.0/8",
                    item=item[:60],
                ),
                param_hint="--forwarded-allow-ips",
            ) from None
    if not found:
        raise click.BadParameter(_("name at least one proxy address"), param_hint="--forwarded-allow-ips")
    return found


def qr_text(url: str) -> str:
    """A QR code of ``url`` for the terminal, drawn with half blocks (two rows a line)."""
    # lazy: only a command that draws a code imports the QR library (tests/test_cli_startup.py)
    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


SERVE_HELP = N_(
    "Serve the live table: each seat's page at /t/CAMPAIGN and the API under /api.\n"
    "\n"
    "Invite the table with `ledger table invite` (its links point where this server listens);\n"
    "each link seats one device. It listens on the loopback unless --host or --lan says\n"
    "otherwise; --lan listens on this machine's LAN address and prints the address to share,\n"
    "with a QR code. On any other address than the loopback put TLS in front of it (a reverse\n"
    "proxy; then name it with --forwarded-allow-ips), or give --certfile and --keyfile. On\n"
    "PostgreSQL several processes may serve one ledger side by side. The API, its errors, its\n"
    "limits and the live feed: {doc}."
)


def _serve_help() -> str:
    return _(SERVE_HELP, doc=docs.path("api.md"))


@click.command("serve", cls=CommandHelpLater, help=_serve_help)
@click.option(
    "--db", default=None, metavar="PATH|URL", help=N_("The ledger to serve (default: the root --db).")
)
@click.option("--host", default=None, help=N_("The address to listen on.  [default: 127.0.0.1]"))
@click.option(
    "--lan",
    is_flag=True,
    help=N_("Listen on this machine's LAN address; print the URL to share and its QR code."),
)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help=N_("The port."))
@click.option(
    "--certfile",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help=N_("Serve HTTPS with this certificate (PEM); give --keyfile too."),
)
@click.option(
    "--keyfile",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help=N_("The certificate's key (PEM)."),
)
@click.option(
    "--forwarded-allow-ips",
    default=None,
    metavar="ADDRESSES",
    help=N_(
        "Read X-Forwarded-For and X-Forwarded-Proto from these proxies only (comma-separated "
        "addresses or networks); by default from none."
    ),
)
@click.option(
    "--max-connections",
    type=click.IntRange(8, None),
    default=None,
    help=N_("The most connections held at once (default: the open-file limit less 64)."),
)
@common
@pass_ctx
def serve(
    c: Ctx,
    db: str | None,
    host: str | None,
    lan: bool,
    port: int,
    certfile: str | None,
    keyfile: str | None,
    forwarded_allow_ips: str | None,
    max_connections: int | None,
) -> None:
    """Serve the live table (the help text is SERVE_HELP)."""
    if (certfile is None) != (keyfile is None):
        raise click.UsageError(_("give --certfile and --keyfile together, or neither"))
    if lan and host is not None:
        raise click.UsageError(_("give --lan or --host, not both"))
    proxies = trusted_proxies(forwarded_allow_ips)
    if lan:
        host = lan_address()
        if host is None:
            raise click.UsageError(
                _("this machine has no LAN address (is it on a network?); give --host ADDRESS")
            )
    host = host or "127.0.0.1"
    if db is not None:
        c.db = db
    target = resolve_target(c.db)
    where = c.ledger.store.describe()  # a missing or unreadable ledger is refused here
    c.close()
    scheme = "https" if certfile else "http"
    if not is_loopback(host) and certfile is None:
        click.echo(
            _(
                "warning: {host} is reachable from other machines: put TLS in front of it "
                "(a reverse proxy with HTTPS), or give --certfile and --keyfile",
                host=host,
            ),
            err=True,
        )
    # lazy: `ledger serve --help` imports no web framework (tests/test_web_cli.py)
    from ledger.web import announce, commands
    from ledger.web.app import create_app
    from ledger.web.server import serve as run

    faults = logging.getLogger("ledger.web")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    faults.addHandler(handler)
    faults.propagate = False

    def url_of(address: str, bound: int) -> str:
        shown = f"[{address}]" if ":" in address else address
        return f"{scheme}://{shown}:{bound}/"

    def listening(sockets: list[tuple[str, int]]) -> None:
        bound = sockets[0][1] if sockets else port
        click.echo(_("serving {ledger} at {url} (Ctrl-C stops)", ledger=where, url=url_of(host, bound)))
        reached = (lan_address() or "127.0.0.1") if is_unspecified(host) else host
        shared = url_of(reached, bound)
        if lan:
            click.echo(_("share {url} with the table; a phone's camera opens it from this code:", url=shared))
            click.echo(qr_text(shared), nl=False)
        try:
            announce.announce(target, shared.rstrip("/"))
        except OSError as e:
            click.echo(
                _(
                    "note: cannot record where this server listens ({reason}); "
                    "give `ledger table invite --url` the address",
                    reason=e.strerror or e,
                ),
                err=True,
            )
        sys.stdout.flush()
        app.state.table.shared_url = shared

    commands.install(command_line())
    app = create_app(target)
    run(
        app,
        host=host,
        port=port,
        certfile=certfile,
        keyfile=keyfile,
        forwarded_allow_ips=proxies,
        max_connections=max_connections,
        listening=listening,
        closing=app.state.table.feeds.close,
        stopped=lambda: announce.withdraw(target),
    )


class TableCommandLine:
    """The command line as the live table reads it (ledger.web.commands.CommandLine): its
    root group, each system's group and name, and its hints."""

    @property
    def root(self) -> click.Group:
        return cli

    def command_name(self, system: str) -> str:
        return on_cli.command_name(system)

    def system_group(self, system: str) -> click.Command | None:
        return on_cli.system_group(system)

    def hints(self, system: Any, state: Any) -> list[str]:
        return on_cli.hints(system, state)


def command_line() -> TableCommandLine:
    """The command line the live table names its forms, help and hints by."""
    return TableCommandLine()
