"""``python -m ctxtui``: the same entry point as the ``ctxtui`` console script."""

from ctxtui.cli.main import entry

entry()
