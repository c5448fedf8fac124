"""The session model: what an agent's model saw, and what reading it left out."""
