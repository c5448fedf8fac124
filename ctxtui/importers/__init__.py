"""Importers: turn each transcript format into the core's ``Session``. No Textual here.

Contract: ``load_session(path, format=None) -> Session`` detects the format (or uses the one
given), reads the file read-only and raises ``SessionLoadError`` with one clear line on bad
input. ``FORMATS`` lists every importer with its name and a one-line description.
"""
