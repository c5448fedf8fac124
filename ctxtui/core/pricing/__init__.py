"""Dollars: prices of recorded usage, cache misses, carry cost, what-if pricing."""
