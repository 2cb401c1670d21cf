"""auditor: compliance auditor for casino table games under Andorra's Decret 455/2025."""

__version__ = "0.1.0"
