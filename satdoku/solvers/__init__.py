"""Solvers behind one interface; ``registry`` is the only place solver names live."""
