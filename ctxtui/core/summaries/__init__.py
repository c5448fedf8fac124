"""Compaction summaries: their text rules, templates, prompts and the facts they keep."""
