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
"""

from __future__ import annotations

P_LUBY_UNIT, P_LBDQ_LEN, P_GLUCOSE_K_PCT, P_BLOCK_R_PCT, P_TRAILQ_LEN, P_BLOCK_MIN = range(6)
P_REDUCE_FIRST, P_REDUCE_INC, P_KEEP_LBD, P_SWITCH, P_SIZE = 6, 7, 8, 9, 10
DEFAULTS = (100, 50, 80, 140, 5000, 10000, 2000, 300, 2, 5000)
PARAM_NAMES = ("luby_unit", "lbdq_len", "glucose_k_pct", "block_r_pct", "trailq_len",
               "block_min", "reduce_first", "reduce_inc", "keep_lbd", "switch")  # fmt: skip
