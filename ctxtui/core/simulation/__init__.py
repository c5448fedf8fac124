"""Replay, the live context, the report and the gap to what the API counted."""
