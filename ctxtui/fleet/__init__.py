"""The fleet: every session at once, one row each (``ctxtui fleet`` and the app's fleet view).

``job`` is the per-session pure function, ``index`` the SQLite store of past rows, ``run``
what drives the jobs on an executor. The figures over the rows are ``ctxtui.core.fleet``.
"""
