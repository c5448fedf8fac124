"""Each agent's summary template is keyed by the policy's own ``SummaryTemplate``."""

from __future__ import annotations

import pytest

from ctxtui.core.policies.policy import KNOBS, Policy
from ctxtui.core.session.models import Message, Session
from ctxtui.core.summaries.summary import build_structured_summary
from ctxtui.core.summaries.summary_template import SummaryTemplate
from ctxtui.core.summaries.templates import (
    SUMMARY_CAPS,
    render_for,
    summary_estimate,
    template_prompt,
)


def test_the_knob_and_the_templates_name_one_type() -> None:
    assert KNOBS["summary_template"].choices == tuple(t.value for t in SummaryTemplate)
    assert Policy().summary_template is SummaryTemplate.PLAN
    assert set(SUMMARY_CAPS) == set(SummaryTemplate)
    assert all(type(key) is SummaryTemplate for key in SUMMARY_CAPS)


@pytest.mark.parametrize("template", list(SummaryTemplate))
def test_every_template_has_a_size_and_only_the_agents_have_a_prompt(
    template: SummaryTemplate,
) -> None:
    session = Session(
        messages=(
            Message(role="user", content="fix the build"),
            Message(role="assistant", content="ok"),
        )
    )
    assert summary_estimate(template, 100_000) > 0
    prompt = template_prompt(template, session, 0, 1)
    agents = {SummaryTemplate.OPENCODE, SummaryTemplate.CODEX, SummaryTemplate.CLAUDE_CODE}
    assert (prompt is not None) == (template in agents)
    text = render_for(template, build_structured_summary(session, 0, 1))
    assert text.startswith("<summary>") == (template is SummaryTemplate.CLAUDE_CODE)
