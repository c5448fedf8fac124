"""ctxtui: see where an LLM agent's context window goes, and tune the policy that manages it."""

__version__ = "0.1.0"
