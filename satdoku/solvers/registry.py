"""Solver names -> implementations: the only place solver names live.

A name maps to a factory ("module:function") and default options. Config may define variants:
``{name: {solver: BASE, option: value, ...}}``; ``make_solver`` merges them. The factory module is
imported only when a solver is made, so heavy backends (ortools, numba) load only where used.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SolverSpec:
    """A registered solver: factory path, default options, and whether it reads CNF or puzzles."""

    factory: str
    options: dict[str, Any] = field(default_factory=dict)
    level: str = "cnf"  # "cnf": SAT solver on SatInput; "puzzle": works on the puzzle directly
    description: str = ""


SOLVERS: dict[str, SolverSpec] = {
    "minisat22": SolverSpec(
        "satdoku.solvers.reference:make_pysat",
        {"backend": "minisat22"},
        description="MiniSat 2.2 (python-sat)",
    ),
    "glucose4": SolverSpec(
        "satdoku.solvers.reference:make_pysat",
        {"backend": "glucose4"},
        description="Glucose 4.1 (python-sat)",
    ),
    "cadical195": SolverSpec(
        "satdoku.solvers.reference:make_pysat",
        {"backend": "cadical195"},
        description="CaDiCaL 1.9.5 (python-sat), hard deadline by process",
    ),
    "dpll": SolverSpec(
        "satdoku.solvers.own:make_dpll", {}, description="our DPLL (pure Python, teaching mode)"
    ),
    "cdcl": SolverSpec(
        "satdoku.solvers.own:make_cdcl", {}, description="our CDCL (numba-compiled inner loops)"
    ),
    **{
        f"dpll-{h}": SolverSpec(
            "satdoku.solvers.own:make_dpll",
            {"heuristic": h},
            description=f"our DPLL, branching heuristic {h}",
        )
        for h in ("first", "random", "dlis", "moms", "jw")
    },
    "cdcl-luby": SolverSpec(
        "satdoku.solvers.own:make_cdcl",
        {"restarts": "luby"},
        description="our CDCL with Luby restarts",
    ),
    "cpsat": SolverSpec(
        "satdoku.solvers.cpsat:make_cpsat",
        {"workers": 1},
        level="puzzle",
        description="OR-tools CP-SAT: AllDifferent per group, < relations (1 worker)",
    ),
    **{
        f"csp-{inf}-{order}{'-lcv' if lcv else ''}": SolverSpec(
            "satdoku.solvers.csp:make_csp",
            {"inference": inf, "ordering": order, "lcv": lcv},
            level="puzzle",
            description=f"CSP backtracking, inference {inf}, variable order {order}"
            + (", least-constraining value" if lcv else ""),
        )
        for inf in ("bt", "fc", "mac")
        for order in ("first", "mrv")
        for lcv in (False, True)
    },
}


def resolve(name: str, variants: dict[str, dict[str, Any]] | None = None) -> tuple[str, dict]:
    """(registered base name, merged options) for a solver name or a configured variant."""
    variants = variants or {}
    options: dict[str, Any] = {}
    base = name
    if name in variants:
        opts = dict(variants[name] or {})
        base = opts.pop("solver", name)
        options.update(opts)
    if base not in SOLVERS:
        known = ", ".join(sorted(SOLVERS))
        raise KeyError(f"unknown solver {base!r} (for {name!r}); known: {known}")
    return base, {**SOLVERS[base].options, **options}


def level(name: str, variants: dict[str, dict[str, Any]] | None = None) -> str:
    """ "cnf" or "puzzle" for a solver name or variant."""
    return SOLVERS[resolve(name, variants)[0]].level


def make_solver(name: str, variants: dict[str, dict[str, Any]] | None = None) -> Any:
    """An instance of the solver ``name`` (a registered name or a configured variant)."""
    base, options = resolve(name, variants)
    module, func = SOLVERS[base].factory.split(":")
    factory = getattr(importlib.import_module(module), func)
    return factory(name=name, **options)


def solver_version(name: str, variants: dict[str, dict[str, Any]] | None = None) -> str:
    """What identifies a solver's behaviour: its code version plus its options. Rule params use
    it, so editing one solver's options or code reruns only that solver's jobs."""
    base, options = resolve(name, variants)
    solver = make_solver(name, variants)
    opts = ",".join(f"{k}={options[k]}" for k in sorted(options))
    return f"{base}[{opts}] {solver.version}"
