"""The main screen's widgets; each renders part of a ``Plan`` and computes none of it."""
