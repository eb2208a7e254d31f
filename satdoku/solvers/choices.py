"""The names the options of our DPLL and CSP solvers choose from, one list each.

Read by the solvers that implement them, by the registry (option schemas, and the names of the
``dpll-*`` and ``csp-*`` variants it registers) and by the CLI. A module of its own so the
registry, which every solve loads, names them without importing the DPLL and CSP engines
(random, their search code: about 5 million instructions a one-shot ``satdoku dpll --mode
cdcl`` would pay for nothing, issue 29). The CDCL kernel's choices (restart policies, phases)
are its parameter table's, :mod:`satdoku.solvers.cdcl.params`.
"""

from __future__ import annotations

#: DPLL's branching heuristics by name (:mod:`satdoku.solvers.dpll`).
#: ``first`` lowest unassigned variable, true first; ``random`` a random unassigned variable and
#: polarity (seeded); ``dlis`` the literal in most open clauses; ``moms`` the variable with most
#: occurrences in the shortest open clauses; ``jw`` two-sided Jeroslow-Wang (weights 2^-|c| over
#: open clauses); ``vsids`` variable activity bumped in conflict clauses and decayed over time.
HEURISTICS = ("first", "random", "dlis", "moms", "jw", "vsids")

#: CSP inference (:mod:`satdoku.solvers.csp`): ``bt`` none, ``fc`` forward checking, ``mac``
#: maintaining arc consistency
INFERENCES = ("bt", "fc", "mac")
#: CSP variable ordering: ``first`` empty cell, or ``mrv`` (fewest remaining values)
ORDERINGS = ("first", "mrv")
