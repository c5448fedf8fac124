"""Finding text in message contents, for the ``/`` search of the main screen."""

from __future__ import annotations

from ctxtui.core.models import Session


def find_matches(session: Session, query: str) -> list[int]:
    """Indices of the messages whose content, tool calls or reasoning contain ``query``.

    Case-insensitive; matching is on the literal text, so searching for ``[bold]`` or an
    escape sequence's visible part (``[31m``) finds it.
    """
    needle = query.casefold()
    if not needle:
        return []
    out: list[int] = []
    for i, m in enumerate(session.messages):
        if (
            needle in m.content.casefold()
            or any(
                needle in c.arguments.casefold() or needle in c.name.casefold()
                for c in m.tool_calls
            )
            or (m.reasoning and needle in m.reasoning.casefold())
        ):
            out.append(i)
    return out
