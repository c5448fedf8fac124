"""Tuning: the values an agent is configured with, the trigger it was seen to use, and the
search for better knob values over a fleet (the search space, scores, the Pareto front)."""
