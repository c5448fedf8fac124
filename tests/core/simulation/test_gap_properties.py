"""Properties of the one gap sentence: its parts add up, its lines keep the same figures."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxtui.core.session.models import Message, Session, SessionMeta, Usage
from ctxtui.core.simulation.reported import PromptCount, gap_of
from ctxtui.core.tokens.calibration import session_fit


@st.composite
def sessions(draw: st.DrawFn) -> Session:
    turns = draw(st.integers(1, 12))
    cpt = draw(st.floats(1.0, 8.0))
    offset = draw(st.integers(0, 20_000))
    messages: list[Message] = []
    chars = 0
    for _ in range(turns):
        text = "x" * draw(st.integers(1, 4_000))
        messages.append(Message(role="user", content=text))
        chars += len(text)
        reported = round(chars / cpt + offset + draw(st.integers(-50, 50)))
        usage = Usage(prompt_total=max(1, reported)) if draw(st.booleans()) else None
        messages.append(Message(role="assistant", content="ok", usage=usage))
        chars += 2
    return Session(messages=tuple(messages), meta=SessionMeta(model="claude-sonnet-4-5"))


@settings(max_examples=150, deadline=None)
@given(sessions(), st.integers(0, 5_000), st.integers(20, 400))
def test_the_parts_add_up_and_every_line_carries_the_figures(
    session: Session, fixed: int, width: int
) -> None:
    tokens = [len(m.content) // 4 + 3 for m in session.messages]
    gap = gap_of(session, PromptCount(tokens, fixed, "plan"), session_fit(session), 32_768)
    if gap is None:
        assert all(m.usage is None for m in session.messages)
        return
    fit = session_fit(session)
    assert gap.fit == fit
    if fit.plausible:
        assert gap.lacks is not None and gap.lacks >= 0
        assert gap.estimator_error is not None
        assert gap.lacks + gap.estimator_error == gap.gap
    else:
        assert gap.lacks is None and gap.estimator_error is None
        assert fit.problem in gap.sentence()
    for line in gap.lines():
        assert f"{gap.reported:,}" in line and f"{gap.estimated:,}" in line
    shown = gap.line_for(width)
    assert len(shown) <= width or shown == gap.lines()[-1]
    assert gap.request == max(k for k, p in enumerate(session.index.requests)
                              if session.messages[p].usage is not None)  # fmt: skip
