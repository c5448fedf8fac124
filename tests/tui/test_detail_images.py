"""The detail pane says an image's pixel size and the tokens its provider charges."""

from __future__ import annotations

from ctxtui.core.session.models import PartKind


def test_the_detail_pane_names_an_images_pixels_and_tokens() -> None:
    from ctxtui.core.planning.plan import Zone
    from ctxtui.core.session.models import ContentPart, Message
    from ctxtui.tui.widgets.detail import DetailInfo, describe

    image = ContentPart(
        kind=PartKind.IMAGE, media_type="image/png", byte_size=4_000, width=1000, height=1000,
        token_estimate=1334,
    )  # fmt: skip
    message = Message(role="user", content="look", parts=(image,))
    info = DetailInfo(index=0, message=message, zone=Zone.KEPT, tokens=1340, effective=1340)
    assert "<image image/png 4,000 bytes, 1,000×1,000 px, 1,334 tok by its provider's rule>" in (
        describe(info).plain
    )
