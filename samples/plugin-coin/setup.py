"""The plugin's build step that pyproject.toml cannot say: its translation catalogs
(``campaign_ledger_coin/locale/<lang>/LC_MESSAGES/campaign_ledger_coin.po``) are compiled
to ``.mo`` by Babel into the built package, as the ledger's own wheel does, so an installed
plugin reads compiled catalogs and nobody compiles one by hand."""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in Path(self.build_lib).glob("campaign_ledger_coin/locale/*/LC_MESSAGES/*.po"):
            with po.open("rb") as f:
                catalog = read_po(f)
            with po.with_suffix(".mo").open("wb") as f:
                write_mo(f, catalog, use_fuzzy=False)


setup(cmdclass={"build_py": BuildWithCatalogs})
