"""Policy parameters of the CDCL kernel, in the order of its ``P`` array, and their one set of
defaults: ``_cdcl.c`` keeps the same order (a test checks the size) and holds no values of its
own, the driver passes them at construction. A module of its own so the driver can read them
without importing a kernel.

Luby unit (conflicts); glucose restarts: window of recent LBDs and K in percent (restart when
the recent average LBD * K exceeds the global average); restart blocking: R in percent (no
restart while the trail is R% longer than its average over the last P_TRAILQ_LEN conflicts,
from P_BLOCK_MIN conflicts on); clause-database reduction: the first after P_REDUCE_FIRST
conflicts, the k-th P_REDUCE_FIRST + k * P_REDUCE_INC conflicts after the previous one;
learnt clauses of LBD <= P_KEEP_LBD are never deleted; mixed restarts: the k-th phase (focused
glucose restarts first, then stable Luby restarts, alternating) lasts k * P_SWITCH conflicts.

Preprocessing (MiniSat 2's SimpSolver, SatELite style; run once): on when P_SIMPLIFY is 1, at
level 0 once the search has met P_SIMP_DELAY conflicts (0: before it starts), so a formula the
search decides at once (a 9x9 Sudoku with its givens) pays nothing for it; the long learnt
clauses of those first conflicts are dropped then; a variable is eliminated only when its non-
tautological resolvents number at most its clauses + P_ELIM_GROW and none is longer than
P_ELIM_CLAUSE_LIM literals; backward subsumption skips candidate clauses longer than
P_SUBSUME_LIM; P_SIMP_EFFORT bounds the whole pass in steps (literals visited by resolution and
subsumption checks), so a huge formula gets a bounded pass rather than a long one.
"""

from __future__ import annotations

P_LUBY_UNIT, P_LBDQ_LEN, P_GLUCOSE_K_PCT, P_BLOCK_R_PCT, P_TRAILQ_LEN, P_BLOCK_MIN = range(6)
P_REDUCE_FIRST, P_REDUCE_INC, P_KEEP_LBD, P_SWITCH = 6, 7, 8, 9
P_SIMPLIFY, P_ELIM_CLAUSE_LIM, P_ELIM_GROW, P_SUBSUME_LIM, P_SIMP_EFFORT = range(10, 15)
P_SIMP_DELAY, P_SIZE = 15, 16
DEFAULTS = (100, 50, 80, 140, 5000, 10000, 2000, 300, 2, 5000, 1, 20, 0, 1000, 300_000_000,
            2000)
PARAM_NAMES = ("luby_unit", "lbdq_len", "glucose_k_pct", "block_r_pct", "trailq_len",
               "block_min", "reduce_first", "reduce_inc", "keep_lbd", "switch", "simplify",
               "elim_clause_lim", "elim_grow", "subsume_lim", "simp_effort",
               "simp_delay")  # fmt: skip
