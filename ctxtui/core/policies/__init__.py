"""The policy: its knobs, the presets, model windows and compaction reasons."""
