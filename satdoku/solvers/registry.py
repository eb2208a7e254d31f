"""Solver names -> records: the only place solver names, classes and capabilities live.

A :class:`SolverSpec` names a factory ("module:function"), default options, the level it works
at (CNF or puzzle), its origin (ours or a reference), its plot colour, its capabilities (proofs,
incremental solving, how its time limit is enforced) and the JSON schema of its options. The
config schema's solver checks, the reports' colours and "ours vs reference" split, and the solve
path's choices all read these records. Config may define variants:
``{name: {solver: BASE, option: value, ...}}``; :func:`resolve` merges them. The factory module is
imported only when a solver is made, so heavy backends (ortools) load only where used.

Adding a solver: one module in ``satdoku/solvers/`` plus one :func:`register` call below.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from satdoku.records import factory, record
from satdoku.solvers.cdcl.params import PHASES, RESTARTS
from satdoku.solvers.choices import HEURISTICS, INFERENCES, ORDERINGS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (satdoku/records.py)
if TYPE_CHECKING:
    from typing import Any

OURS, REFERENCE = "ours", "reference"
CNF, PUZZLE = "cnf", "puzzle"
#: How a solver's deadline is enforced: it stops itself by reading the clock between slices of
#: work ("clock"), a watchdog interrupts it ("interrupt"), or its process is killed ("process":
#: it runs in a child process under the measurement backend). The one place this is said: a
#: factory with a ``limit`` parameter gets its record's.
LIMIT_KINDS = ("clock", "interrupt", "process")

#: How a solver takes its instance: formulas in memory, or a DIMACS file the solve path writes
#: outside the clock (a binary).
MEMORY, FILE = "memory", "file"

#: Options every solver accepts: ``solver`` (the base of a configured variant), ``note`` and
#: ``memory_limit`` (read by the solve path, not by the solver).
COMMON_OPTIONS: dict[str, Any] = {
    "solver": {"type": "string"},
    "note": {"type": "string", "description": "free text, shown nowhere but the config"},
    "memory_limit": {"type": "number", "exclusiveMinimum": 0,
                     "description": "MB this solver may use per instance (MEMOUT past it)"},
}
#: Options the solve path or the registry reads, never handed to a solver's factory.
PATH_OPTIONS = ("memory_limit",)


@record(frozen=True)
class SolverSpec:
    """A registered solver: how to make it, what it is and what it can do."""

    name: str
    factory: str
    options: Mapping[str, Any] = factory(dict)
    level: str = CNF  # "cnf": SAT solver on SatInput; "puzzle": works on the puzzle directly
    origin: str = OURS  # "ours" or "reference" (third-party)
    colour: str = "#7f7f7f"
    description: str = ""
    proofs: bool = False  # writes a proof for every UNSAT answer (checked by solve.py), in
    # the format its adapter's ``proof_format`` names (our solvers: option ``proof``)
    incremental: bool = False  # accepts option incremental: true (rules loaded once per shard)
    limit: str = "clock"  # one of LIMIT_KINDS
    option_schema: Mapping[str, Any] = factory(dict)  # JSON schema properties
    code: tuple[str, ...] = ()  # modules whose source is the solver (hashed into its version;
    # an entry ending in .c is a compiled extension's source file, relative to the repository)
    packages: tuple[str, ...] = ()  # distributions whose versions identify it (python-sat, ...)
    identity: str = ""  # "module:function" giving what else identifies a configured solver
    # from its options (an external binary: its version output and sha256), or ""
    required: tuple[str, ...] = ()  # options a configured solver must give (command, ...)
    input: str = MEMORY  # MEMORY or FILE: how the solve path hands it an instance
    validate: str = ""  # "module:function" raising ValueError for options a schema cannot
    # refuse (an external command without {cnf}), or ""
    model_decisions: int = 0  # decisions its counter adds to a solve call that finds a
    # model: python-sat's MiniSat 2.2 and Glucose 4 count 2 with none made (docs/solvers.md)

    def schema(self) -> dict[str, Any]:
        """The JSON schema of this solver's options (unknown options are refused)."""
        props = {**COMMON_OPTIONS, **self.option_schema}
        out: dict[str, Any] = {"type": "object", "properties": props,
                               "additionalProperties": False}
        if self.required:
            out["required"] = list(self.required)
        return out


SOLVERS: dict[str, SolverSpec] = {}


def register(spec: SolverSpec) -> SolverSpec:
    """Add a solver record (names are unique)."""
    if spec.name in SOLVERS:
        raise ValueError(f"solver {spec.name!r} is registered twice")
    if spec.level not in (CNF, PUZZLE) or spec.origin not in (OURS, REFERENCE):
        raise ValueError(f"solver {spec.name!r}: bad level {spec.level!r} or origin "
                         f"{spec.origin!r}")
    if spec.limit not in LIMIT_KINDS:
        raise ValueError(f"solver {spec.name!r}: limit must be one of {LIMIT_KINDS}")
    SOLVERS[spec.name] = spec
    return spec


_BOOL: dict[str, Any] = {"type": "boolean"}
_SEED: dict[str, Any] = {"type": "integer", "minimum": 0}
_PYSAT_OPTIONS: dict[str, Any] = {
    "incremental": {**_BOOL, "description": "load a shard's rules once, givens as assumptions"},
}
#: our solvers' proof format: LRAT (hints for every step, preprocessing's too; checked in
#: linear time, at most 0.085x drat-trim's time on the same search's DRAT,
#: benchmarks/bench_drat.py) unless a configuration asks for DRAT
_OWN_PROOF: dict[str, Any] = {
    "enum": ["lrat", "drat"], "default": "lrat",
    "description": "format of the proof of an UNSAT answer: lrat (clause ids and hints, "
                   "checked in linear time) or drat (DRUP, as drat-trim reads it)"}
_DPLL_OPTIONS: dict[str, Any] = {
    "heuristic": {"enum": list(HEURISTICS)},
    "proof": _OWN_PROOF,
    "pure_literals": _BOOL,
    "seed": _SEED,
    "max_decisions": {"type": ["integer", "null"], "minimum": 1},
}
_CDCL_OPTIONS: dict[str, Any] = {
    "restarts": {"enum": list(RESTARTS)},
    "proof": _OWN_PROOF,
    "phase": {"enum": list(PHASES)},
    "decay": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "pure": {**_BOOL, "description": "run the kernel as plain Python (slow; cross-checks)"},
    "max_conflicts": {"type": ["integer", "null"], "minimum": 1},
    "incremental": {**_BOOL, "description": "load a shard's rules once, givens as assumptions"},
    "simplify": {**_BOOL, "description": "preprocess after the first conflicts (variable "
                 "elimination, subsumption); false: the search alone"},
}
_DPLL_CODE = ("satdoku.solvers.own", "satdoku.solvers.dpll")
#: a package stands for every source file in it, Python and C (the version hash covers what is
#: added to it)
_CDCL_CODE = ("satdoku.solvers.cdcl",)
_CDCL_FACTORY = "satdoku.solvers.cdcl.adapter:make_cdcl"
_CSP_OPTIONS: dict[str, Any] = {
    "inference": {"enum": list(INFERENCES)},
    "ordering": {"enum": list(ORDERINGS)},
    "lcv": _BOOL,
}

for _backend, _colour, _text, _limit in (
    ("minisat22", "#1f77b4", "MiniSat 2.2 (python-sat)", "interrupt"),
    ("glucose4", "#2ca02c", "Glucose 4.1 (python-sat)", "interrupt"),
    ("cadical195", "#9467bd", "CaDiCaL 1.9.5 (python-sat), deadline by killing its process",
     "process"),
):
    register(SolverSpec(
        _backend, "satdoku.solvers.pysat_backends:make_pysat", {"backend": _backend}, CNF,
        REFERENCE,
        _colour, _text, incremental=_limit == "interrupt", limit=_limit,
        model_decisions=2 if _limit == "interrupt" else 0,  # MiniSat's and Glucose's counters
        option_schema=_PYSAT_OPTIONS if _limit == "interrupt" else {},
        code=("satdoku.solvers.pysat_backends",), packages=("python-sat",),
    ))
register(SolverSpec(
    "dpll", "satdoku.solvers.own:make_dpll", {}, CNF, OURS, "#d62728",
    "our DPLL (pure Python, teaching mode)", proofs=True, option_schema=_DPLL_OPTIONS,
    code=_DPLL_CODE,
))
register(SolverSpec(
    "cdcl", _CDCL_FACTORY, {}, CNF, OURS, "#ff7f0e",
    "our CDCL (C kernel built at install time; its readable Python form as fallback)", proofs=True,
    incremental=True, option_schema=_CDCL_OPTIONS, code=_CDCL_CODE,
))
for _h, _colour in zip(HEURISTICS[:-1], ("#e377c2", "#f7b6d2", "#c49c94", "#ff9896",
                                               "#dbdb8d"), strict=True):
    register(SolverSpec(
        f"dpll-{_h}", "satdoku.solvers.own:make_dpll", {"heuristic": _h}, CNF, OURS, _colour,
        f"our DPLL, branching heuristic {_h}", proofs=True, option_schema=_DPLL_OPTIONS,
        code=_DPLL_CODE,
    ))
register(SolverSpec(
    "cdcl-nosimp", _CDCL_FACTORY, {"simplify": False}, CNF, OURS, "#c5b0d5",
    "our CDCL without preprocessing (the search alone, for teaching and comparison)",
    proofs=True, incremental=True, option_schema=_CDCL_OPTIONS, code=_CDCL_CODE,
))
register(SolverSpec(
    "cdcl-luby", _CDCL_FACTORY, {"restarts": "luby"}, CNF, OURS, "#ffbb78",
    "our CDCL with Luby restarts", proofs=True, incremental=True, option_schema=_CDCL_OPTIONS,
    code=_CDCL_CODE,
))
register(SolverSpec(
    "cpsat", "satdoku.solvers.cpsat:make_cpsat", {"workers": 1}, PUZZLE, REFERENCE, "#8c564b",
    "OR-tools CP-SAT: AllDifferent per group, < relations (1 worker)",
    option_schema={"workers": {"type": "integer", "minimum": 1, "maximum": 64}, "seed": _SEED},
    code=("satdoku.solvers.cpsat",), packages=("ortools",),
))
register(SolverSpec(
    "external", "satdoku.solvers.external:make_external", {}, CNF, REFERENCE, "#7f7f7f",
    "any SAT solver binary from the configuration (satdoku/solvers/external.py)",
    limit="process", input=FILE, identity="satdoku.solvers.external:identity_of",
    required=("command",), validate="satdoku.solvers.external:check_options",
    code=("satdoku.solvers.external", "satdoku.solvers.process"),
    option_schema={
        "command": {"type": "string", "minLength": 1, "description": (
            "the binary and its arguments, split like a shell word list and run without a "
            "shell; {cnf} the instance, {proof} its proof file, {result} a result file")},
        "proof": {"enum": ["drat", "lrat"], "description": (
            "the binary writes a proof to {proof}: drat (text or binary DRAT) or lrat (text or "
            "binary LRAT, e.g. cadical --lrat)")},
        "version_command": {"type": "string", "minLength": 1},
        "reads": {"type": "array", "items": {"enum": ["gzip", "xz", "bz2"]},
                  "uniqueItems": True, "description": (
            "compressions the binary reads itself, by file suffix (cadical: gzip, xz, bz2; "
            "minisat: gzip): a DIMACS instance so compressed is handed over as it is, "
            "else decompressed into {cnf}")},
        "origin": {"enum": [OURS, REFERENCE]},
        "colour": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"},
    },
))
_CSP_COLOURS = iter(["#17becf", "#9edae5", "#bcbd22", "#dbdb8d", "#7f7f7f", "#c7c7c7",
                     "#393b79", "#5254a3", "#6b6ecf", "#9c9ede", "#637939", "#8ca252"])
for _inf in INFERENCES:
    for _order in ORDERINGS:
        for _lcv in (False, True):
            register(SolverSpec(
                f"csp-{_inf}-{_order}{'-lcv' if _lcv else ''}", "satdoku.solvers.csp:make_csp",
                {"inference": _inf, "ordering": _order, "lcv": _lcv}, PUZZLE, OURS,
                next(_CSP_COLOURS),
                f"CSP backtracking, inference {_inf}, variable order {_order}"
                + (", least-constraining value" if _lcv else ""),
                option_schema=_CSP_OPTIONS, code=("satdoku.solvers.csp",),
            ))


def resolve(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None
            ) -> tuple[str, dict[str, Any]]:
    """(registered base name, merged options) for a solver name or a configured variant."""
    variants = variants or {}
    options: dict[str, Any] = {}
    base = name
    if name in variants:
        opts = dict(variants[name] or {})
        base = opts.pop("solver", name)
        opts.pop("note", None)
        options.update(opts)
    if base not in SOLVERS:
        known = ", ".join(sorted(SOLVERS))
        raise KeyError(f"unknown solver {base!r} (for {name!r}); known: {known}")
    return base, {**SOLVERS[base].options, **options}


def spec(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None
         ) -> SolverSpec:
    """The record of a solver name or configured variant (a variant shares its base's)."""
    return SOLVERS[resolve(name, variants)[0]]


def level(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None) -> str:
    """ "cnf" or "puzzle" for a solver name or variant."""
    return spec(name, variants).level


def is_incremental(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None
                   ) -> bool:
    """Whether a solver name or variant runs incrementally (its options say so)."""
    return bool(resolve(name, variants)[1].get("incremental"))


def colour(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None) -> str:
    """The plot colour of a solver: its record's; a configured variant gets a shade of its
    base's colour (fixed by its name, so it is the same in every plot and run)."""
    if name in SOLVERS:
        return SOLVERS[name].colour
    try:
        base_name, options = resolve(name, variants)
        if options.get("colour"):
            return str(options["colour"])
    except KeyError:
        stem = name.split("-")[0]
        base = SOLVERS[stem].colour if stem in SOLVERS else "#7f7f7f"
        return _shade(base, _hash_step(name))
    # configured variants of one base, in configuration order, take the steps of the ladder
    siblings = [n for n in (variants or {}) if n not in SOLVERS
                and resolve(n, variants)[0] == base_name]
    step = siblings.index(name) if name in siblings else _hash_step(name)
    return _shade(SOLVERS[base_name].colour, step)


#: Lightness steps of a solver's variants: lighter, darker, much lighter, much darker (far
#: enough from the base and from each other to tell apart in a legend; lighter first, as a
#: darkened orange or red turns into the brown of cpsat).
_SHADES = (1.55, 0.45, 1.8, 0.3)


def _hash_step(name: str) -> int:
    import hashlib

    return int(hashlib.sha256(name.encode()).hexdigest(), 16) % len(_SHADES)


def _shade(hex_colour: str, step: int) -> str:
    """A darker or lighter version of a colour: step ``step`` of :data:`_SHADES`."""
    factor = _SHADES[step % len(_SHADES)]
    rgb = [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]
    if factor < 1:
        rgb = [round(c * factor) for c in rgb]
    else:
        rgb = [round(c + (255 - c) * (factor - 1)) for c in rgb]
    return "#" + "".join(f"{min(255, c):02x}" for c in rgb)


def origin(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None) -> str:
    """ "ours" or "reference" for a solver name or variant (its ``origin`` option, else its
    record's; unknown names: ours)."""
    try:
        base, options = resolve(name, variants)
        return str(options.get("origin") or SOLVERS[base].origin)
    except KeyError:
        stem = name.split("-")[0]
        return SOLVERS[stem].origin if stem in SOLVERS else OURS


def is_reference(run: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None
                 ) -> bool:
    """True for a run (``solver`` or ``solver/encoding``) of a reference (third-party) solver,
    False for ours: the origin of the run's solver (a configured variant shares its base's)."""
    return origin(run.split("/")[0], variants) == REFERENCE


def model_decisions(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None
                    ) -> int:
    """The decisions a solver's counter adds to every solve call that finds a model (2 for
    python-sat's MiniSat and Glucose, which count them with no decision made; 0 for the
    others and for unknown names): a run decided with zero decisions reads this many."""
    try:
        return spec(name, variants).model_decisions
    except KeyError:
        return 0


def make_solver(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None
                ) -> Any:
    """An instance of the solver ``name`` (a registered name or a configured variant)."""
    base, options = resolve(name, variants)
    record = SOLVERS[base]
    module, func = record.factory.split(":")
    factory = getattr(importlib.import_module(module), func)
    kwargs = {k: v for k, v in options.items() if k not in PATH_OPTIONS}
    if "limit" in _parameters(factory):  # how its deadline is enforced
        kwargs["limit"] = record.limit
    return factory(name=name, **kwargs)


def _parameters(function: Any) -> tuple[str, ...]:
    """The names of a factory's parameters, read from a plain function's code object; a class,
    a partial or a wrapped function is asked through :func:`inspect.signature`. (Importing
    inspect costs a one-shot ``satdoku dpll`` about 40 million instructions.)"""
    code = getattr(function, "__code__", None)
    if code is None or hasattr(function, "__wrapped__"):
        import inspect

        return tuple(inspect.signature(function).parameters)
    return code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]  # type: ignore[no-any-return]


def solver_version(name: str, variants: Mapping[str, Mapping[str, Any] | None] | None = None
                   ) -> str:
    """What identifies a solver's behaviour: its base, options, a hash of its source modules and
    the versions of the packages it wraps. Rule params use it, so editing one solver's options or
    code reruns only that solver's jobs. Computed without making the solver (no heavy import)."""
    import hashlib
    import importlib.util
    from importlib.metadata import PackageNotFoundError, version
    from pathlib import Path

    base, options = resolve(name, variants)
    record = SOLVERS[base]
    digest = hashlib.sha256()
    for module in record.code:
        found = importlib.util.find_spec(module)
        if found is not None and found.submodule_search_locations:  # a package: all of it
            for folder in found.submodule_search_locations:
                for source in sorted(p for p in Path(folder).rglob("*")
                                     if p.suffix in (".py", ".c", ".h")):
                    digest.update(source.read_bytes())
        elif found is not None and found.origin and found.origin.endswith(".py"):
            with open(found.origin, "rb") as fh:
                digest.update(fh.read())
    packages = []
    for dist in record.packages:
        try:
            packages.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            packages.append(f"{dist} (not installed)")
    opts = ",".join(f"{k}={options[k]}" for k in sorted(options))
    extra = []
    if record.identity:
        module, func = record.identity.split(":")
        extra.append(str(getattr(importlib.import_module(module), func)(options)))
    return " ".join([f"{base}[{opts}]", f"code {digest.hexdigest()[:12]}", *packages, *extra])
