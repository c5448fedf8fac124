"""The Textual shell: renders a ``Plan`` and dispatches the user's actions to the core."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxtui.tui.start import Start


def run_app(session: str | None, start: Start, llm: dict[str, Any] | None = None) -> int:
    """Open the app on ``session`` (``None``: the bundled demo, or the sessions picker with
    ``start.pick``) and return the exit code; ``llm`` holds the LLM flags given, over the
    config's."""
    from ctxtui.tui.app import make_app

    app = make_app(session, start, llm=llm)
    app.run()
    if app.internal_error is not None:
        raise app.internal_error  # the CLI's catch-all turns it into one line, exit 3
    return app.return_code or 0
