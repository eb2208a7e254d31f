"""The CDCL kernel's one table of policy parameters (MiniSat's options table in spirit: name,
default, range, meaning), and the codes both kernels share (restart policies, proof modes,
status). ``P_*`` (a parameter's index in the kernels' ``P`` array), ``DEFAULTS`` and
``PARAM_NAMES`` derive from :data:`PARAMS`. The C kernel holds no values of its own: the
driver passes them at construction; its enum of ``P_*`` names and its ``#define`` codes
(``kernel.h``) are checked against this module by tests/test_cdcl.py. A module of its own so
the driver can read them without importing a kernel.

Preprocessing (MiniSat 2's SimpSolver, SatELite style; run once) is on when ``simplify`` is 1,
at level 0 once the search has met ``simp_delay`` conflicts (0: before it starts), so a formula
the search decides at once (a 9x9 Sudoku with its givens) pays nothing for it; the long learnt
clauses of those first conflicts are dropped then.
"""

from __future__ import annotations

from satdoku.records import record


@record(frozen=True)
class Param:
    """One policy parameter: its name (lower case; ``P_`` + upper case in the kernels), default,
    range (inclusive; None: unbounded above) and meaning."""

    name: str
    default: int
    low: int
    high: int | None
    meaning: str


PARAMS: tuple[Param, ...] = (
    Param("luby_unit", 100, 1, None, "Luby restarts: conflicts per unit of the sequence"),
    Param("lbdq_len", 50, 1, None, "glucose restarts: window of recent learnt clauses' LBDs"),
    Param("glucose_k_pct", 80, 1, None, "glucose restarts: K in percent (restart when the "
          "recent average LBD * K exceeds the global average)"),
    Param("block_r_pct", 140, 1, None, "restart blocking: no restart while the trail is R% "
          "longer than its average over the last trailq_len conflicts"),
    Param("trailq_len", 5000, 1, None, "restart blocking: window of recent trail lengths"),
    Param("block_min", 10000, 0, None, "restart blocking: from this many conflicts on"),
    Param("reduce_first", 2000, 1, None, "clause-database reduction: the first after this many "
          "conflicts"),
    Param("reduce_inc", 300, 0, None, "clause-database reduction: the k-th reduce_first + "
          "k * reduce_inc conflicts after the previous one"),
    Param("keep_lbd", 2, 0, None, "learnt clauses of LBD <= keep_lbd are never deleted"),
    Param("switch", 5000, 1, None, "mixed restarts: the k-th phase (focused glucose first, "
          "then stable Luby, alternating) lasts k * switch conflicts"),
    Param("simplify", 1, 0, 1, "preprocessing on (1) or off (0)"),
    Param("elim_clause_lim", 20, 1, None, "variable elimination: no resolvent longer than "
          "this many literals"),
    Param("elim_grow", 0, 0, None, "variable elimination: at most the variable's clauses + "
          "elim_grow non-tautological resolvents"),
    Param("subsume_lim", 1000, 1, None, "backward subsumption skips candidate clauses longer "
          "than this"),
    Param("simp_effort", 300_000_000, 1, None, "bound of the whole preprocessing pass in steps "
          "(literals visited by resolution and subsumption checks)"),
    Param("simp_delay", 2000, 0, None, "preprocess once the search has met this many "
          "conflicts (0: before it starts)"),
    Param("reduce_per_var", 10, 0, None, "clause-database reduction on small formulas: the "
          "first after at most this many conflicts per variable, reduce_inc scaled alike "
          "(MiniSat bounds its learnt clauses by the formula's size; 0: off)"),
    Param("elim_lits_pct", 200, 0, None, "variable elimination: the resolvents hold at most "
          "this percentage of the literals of the clauses they replace (0: no bound; a "
          "pigeon's at-most-one binary clauses would become long clauses)"),
)
PARAM_NAMES = tuple(p.name for p in PARAMS)
DEFAULTS = tuple(p.default for p in PARAMS)
P_SIZE = len(PARAMS)


def _index(name: str) -> int:
    return PARAM_NAMES.index(name)


P_LUBY_UNIT, P_LBDQ_LEN, P_GLUCOSE_K_PCT = _index("luby_unit"), _index("lbdq_len"), \
    _index("glucose_k_pct")
P_BLOCK_R_PCT, P_TRAILQ_LEN, P_BLOCK_MIN = _index("block_r_pct"), _index("trailq_len"), \
    _index("block_min")
P_REDUCE_FIRST, P_REDUCE_INC, P_KEEP_LBD = _index("reduce_first"), _index("reduce_inc"), \
    _index("keep_lbd")
P_SWITCH, P_SIMPLIFY, P_ELIM_CLAUSE_LIM = _index("switch"), _index("simplify"), \
    _index("elim_clause_lim")
P_ELIM_GROW, P_SUBSUME_LIM, P_SIMP_EFFORT = _index("elim_grow"), _index("subsume_lim"), \
    _index("simp_effort")
P_SIMP_DELAY, P_REDUCE_PER_VAR = _index("simp_delay"), _index("reduce_per_var")
P_ELIM_LITS_PCT = _index("elim_lits_pct")

#: Restart policies (the kernels' ``restart_mode``): none; Luby (unit luby_unit conflicts);
#: glucose (recent LBDs against the average, with blocking); mixed (default): focused glucose
#: phases and stable Luby phases alternating, each phase longer than the last
RESTARTS = {"none": 0, "luby": 1, "glucose": 2, "mixed": 3}
#: The polarity a decision tries first (negative: MiniSat's default)
PHASES = ("negative", "positive")
#: Proof modes (the kernels' ``proof``): none, or the format it writes
PROOFS = {"none": 0, "drat": 1, "lrat": 2}
#: The kernels' answer codes (``status``): UNSAT_ASSUMED is UNSAT under the assumptions only
STATUS_CODES = {"UNKNOWN": 0, "SAT": 10, "UNSAT": 20, "UNSAT_ASSUMED": 30}


def check_values(values: list[int]) -> None:
    """ValueError naming the first parameter outside its range."""
    for p, v in zip(PARAMS, values, strict=True):
        if v < p.low or (p.high is not None and v > p.high):
            bound = f"{p.low}..{p.high}" if p.high is not None else f">= {p.low}"
            raise ValueError(f"cdcl parameter {p.name}={v} out of range ({bound})")
