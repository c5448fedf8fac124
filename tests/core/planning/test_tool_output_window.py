"""``ToolOutputs.window``: a replay's live context indexed without counting a stub again.

It must give exactly what ``index_tool_outputs`` builds for the window as a session of its own
(with a stand-in summary before it or not): the replay plans each compaction with it.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.planning.prune import StubCost, index_tool_outputs
from ctxtui.core.session.models import Message, Session
from ctxtui.core.tokens.counts import SessionCounts
from tests.core.planning.test_plan_properties import TOKENIZER, sessions


@settings(max_examples=150, deadline=None)
@given(sessions(), st.data(), st.booleans())
def test_a_window_is_the_index_of_the_window_as_a_session(
    case: tuple[Session, SessionCounts], data: st.DataObject, stand_in: bool
) -> None:
    session, counts = case
    n = len(session)
    start = data.draw(st.integers(0, n))
    stop = data.draw(st.integers(start, n))
    stub = StubCost(TOKENIZER.count_message)
    messages = session.messages
    whole = index_tool_outputs(session, counts.message_tokens, lambda i: stub(messages[i]))

    head = (Message(role="user", content="summary", is_summary=True),) if stand_in else ()
    live = Session(messages=(*head, *messages[start:stop]), meta=session.meta)
    tokens = [7] * len(head) + list(counts.message_tokens[start:stop])
    expected = index_tool_outputs(live, tokens, lambda i: stub(live.messages[i]))

    got = whole.window(start, stop, len(head) - start)
    assert got == expected
