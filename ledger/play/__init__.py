"""Play without players: ``autoplay`` (what every system's autoplayer shares: a campaign
played a command at a time) and ``simulate`` (``ledger simulate``: campaigns played by a
system's autoplayer, each recorded whole through the bulk path).

It sits on top of the kernel: it may import the campaign facade and everything below it.
"""
