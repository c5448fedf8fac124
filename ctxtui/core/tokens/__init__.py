"""Counting: tokenizers, a session's counts, the count cache and calibration."""
