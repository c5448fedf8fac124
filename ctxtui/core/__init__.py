"""The functional core: session model, tokenizers, policy, planner, compaction.

Nothing under ``ctxtui.core`` imports Textual (``tests/test_import_hygiene.py`` proves it):
the app and the CLI are two shells over the same pure functions.
"""
