"""Carrying out a compaction, for real or simulated inside a replay."""
