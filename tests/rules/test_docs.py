"""The documentation states what the code does."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

from muggins.rules import events
from muggins.rules.preset_table import preset_table

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_presets_doc_embeds_the_current_table() -> None:
    text = (DOCS / "presets.md").read_text()
    start = text.index("-->\n", text.index("preset-table:start")) + 4
    end = text.index("<!-- preset-table:end")
    assert text[start:end].strip() == preset_table().strip(), (
        "docs/presets.md is out of date: paste preset_table() between the markers"
    )


def test_events_doc_lists_every_event_type() -> None:
    text = (DOCS / "events.md").read_text()
    for event_type in get_args(events.AnyEvent):
        assert f"`{event_type.__name__}`" in text
        for field in event_type.__struct_fields__:
            assert f"`{field}`" in text, f"{event_type.__name__}.{field} is not documented"
