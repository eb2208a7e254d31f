"""What an encoding lets inference decide alone, with no search (``satdoku analyze``).

- :mod:`.propagation` — unit propagation (UP) and failed-literal probing (FL) of a puzzle under
  an encoding, on the CDCL kernel's propagation with the layout's rules loaded once;
- :mod:`.run` — a whole set: UP, FL and the human singles of :mod:`satdoku.heuristics` per
  instance and encoding, and the per-encoding counts.

The files it writes are stage files (:mod:`satdoku.stagefiles.propagation`); the table and
chart are drawn by :mod:`satdoku.report.propagation`.
"""
