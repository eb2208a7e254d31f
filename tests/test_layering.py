"""The layering DESIGN.md promises, counting imports inside functions too: no import cycle
between modules, nor between the subpackages (and top-level modules) of satdoku/; every import
points down the floors (FLOORS), with DESIGN.md's named rules checked one by one; no two
modules outside commands/ share a file name; and our own modules are imported at the top of a
file (its header shows its dependencies), but for a commented allow-list."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "satdoku"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every satdoku module a file imports, wherever the import statement stands."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("satdoku"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            if mod.startswith("satdoku"):
                out.add(mod)
                out.update(f"{mod}.{a.name}" for a in node.names)  # `from pkg import module`
    return out


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        graph[name] = {m for m in _imports(path, name) if m in files and m != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of a directed graph (as a list of nodes), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m):], m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def _unit(module: str) -> str:
    """The layer unit of a module: its subpackage, or itself for a top-level module."""
    parts = module.split(".")
    return ".".join(parts[:2])


def test_no_cycle_between_modules() -> None:
    cycle = _cycle({n: {m for m in deps if not n.startswith(m + ".")}  # a package's own
                    for n, deps in _graph().items()})                    # __init__ aside
    assert cycle is None, " -> ".join(cycle or [])


def test_no_cycle_between_subpackages() -> None:
    units: dict[str, set[str]] = {}
    for n, deps in _graph().items():
        units.setdefault(_unit(n), set()).update(_unit(m) for m in deps if _unit(m) != _unit(n))
    cycle = _cycle(units)
    assert cycle is None, " -> ".join(cycle or [])


def test_puzzle_imports_nothing_of_ours() -> None:
    assert _graph()["satdoku.puzzle"] == set()


#: The floors of DESIGN.md ("Layers"), lowest first: a unit (subpackage or top-level module of
#: satdoku/) imports only units of lower floors, wherever the import stands. A new unit must be
#: given its floor here (and in DESIGN.md) before it may import or be imported.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("records",),
    ("satdoku", "puzzle", "progress", "size_limits", "paired_stats", "plain_schema"),
    ("sources", "heuristics"),
    ("identity",),
    ("cnf",),
    ("formats", "solvers"),
    ("display", "set_plans", "generate", "stagefiles", "solver_run"),
    ("config", "solve"),
    ("analysis", "report", "runs", "ltn", "fuzz"),
    ("pipeline",),
    ("commands",),
    ("cli",),  # wires up the commands
    ("__main__",),
)
FLOOR = {f"satdoku.{u}" if u != "satdoku" else u: k for k, units in enumerate(FLOORS)
         for u in units}


def _unit_edges() -> set[tuple[str, str, str]]:
    """(importing unit, imported unit, importing module) of every import between units."""
    return {(_unit(n), _unit(m), n) for n, deps in _graph().items() for m in deps
            if _unit(m) != _unit(n)}


def test_every_unit_has_a_floor() -> None:
    units = {_unit(n) for n in _graph()}
    assert sorted(units - set(FLOOR)) == [], "give each new unit its floor in FLOORS"
    assert sorted(set(FLOOR) - units) == [], "FLOORS names a unit that no longer exists"


def test_imports_only_point_down() -> None:
    up = sorted(f"{n} imports {b} (floor {FLOOR[b]} >= {FLOOR[a]})"
                for a, b, n in _unit_edges() if FLOOR[b] >= FLOOR[a])
    assert up == []


# the rules DESIGN.md names, each its own check (they follow from FLOORS; a failure here says
# which promise broke)
NEVER = (
    ("satdoku.solvers", "satdoku.solve"),
    ("satdoku.stagefiles", "satdoku.report"),
    ("satdoku.runs", "satdoku.report"),
    ("satdoku.config", "satdoku.pipeline"),
    ("satdoku.solve", "satdoku.pipeline"),
    ("satdoku.report", "satdoku.pipeline"),
)


def test_named_direction_rules() -> None:
    broken = sorted(f"{n} imports {b}" for a, b, n in _unit_edges() if (a, b) in NEVER)
    assert broken == []


def test_rules_check_real_edges() -> None:
    """The checker itself: a known downward import is seen, and an upward one would be caught
    (pipeline imports solve; solve is below it)."""
    edges = _unit_edges()
    assert any(a == "satdoku.pipeline" and b == "satdoku.solve" for a, b, _ in edges)
    assert FLOOR["satdoku.solve"] < FLOOR["satdoku.pipeline"]


def test_no_module_basename_repeats_outside_commands() -> None:
    """A traceback or a search that names a file names one module: no two modules of satdoku/
    outside commands/ share a basename (``__init__`` aside), and a command module mirrors at
    most one library module."""
    library: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        if path.name != "__init__.py" and rel.parts[0] != "commands":
            library.setdefault(path.name, []).append(str(rel))
    repeats = {name: paths for name, paths in library.items() if len(paths) > 1}
    assert repeats == {}
    commands = {p.name for p in (PACKAGE / "commands").glob("*.py")}
    assert all(len(library.get(name, [])) <= 1 for name in commands)


def _local_imports_of_ours() -> set[tuple[str, str]]:
    """(file, module) of every import of a satdoku module inside a function, a compiled
    extension aside (``satdoku/**/_name.c``: optional, so it is imported where it is used and a
    package without a C compiler still imports)."""
    found: set[tuple[str, str]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    mods = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    mod = node.module or ""
                    if node.level:
                        base = package.split(".")[: len(package.split(".")) - node.level + 1]
                        mod = ".".join([*base, node.module] if node.module else base)
                    mods = [f"{mod}.{a.name}" if (ROOT.joinpath(*mod.split("."), a.name)
                                                   .with_suffix(".c").exists()) else mod
                            for a in node.names]
                else:
                    continue
                for mod in mods:
                    if mod.startswith("satdoku") and not ROOT.joinpath(
                            *mod.split(".")).with_suffix(".c").exists():
                        found.add((str(path.relative_to(ROOT)), mod))
    return found


#: The function-local imports of our own modules that stay, each with its reason (issue 28:
#: a file's header shows its dependencies; heavy third-party packages alone are imported where
#: used, DESIGN.md). An entry that no longer exists fails too, so the list stays true.
LOCAL_IMPORTS_ALLOWED: dict[tuple[str, str], str] = {
    ("satdoku/solvers/cdcl/driver.py", "satdoku.solvers.cdcl.readable"):
        "the readable kernel twin (with its preprocessing) is the kernel only when chosen "
        "(backend python, or no C build); a one-shot satdoku dpll on the C kernel does not "
        "load it (tests/test_startup.py)",
    # each workflow job is one `satdoku pipeline STAGE` process: it imports its own stage's
    # module only (a gather job does not load the solvers, the analysis or the plots; about
    # 0.1 s of CPU per job, issue 29 goal 2, benchmarks/README.md "Pipeline throughput")
    **{("satdoku/commands/pipeline.py", f"satdoku.{module}"):
       "a workflow job imports its own stage only"
       for module in ("pipeline.stage_normalize", "pipeline.stage_encode",
                      "pipeline.stage_solve", "pipeline.stage_decode", "stagefiles.tsv",
                      "pipeline.stage_report", "pipeline.stage_propagation",
                      "pipeline.stage_unique", "pipeline.stage_record")},
    # a one-shot `satdoku dpll` loads what its answer needs (issue 29 goal 1,
    # tests/test_startup.py): the proof checkers for an UNSAT answer only, the CDCL driver in
    # the cdcl mode only
    **{("satdoku/solver_run.py", f"satdoku.cnf.{module}"):
       "the proof checkers load on the first UNSAT answer; a model never needs them"
       for module in ("drat", "lrat")},
    **{("satdoku/solvers/cdcl/driver.py", f"satdoku.cnf.{module}"):
       "the proof as text lines is for the fuzzer's checks; solving writes it through the "
       "kernel's own writer"
       for module in ("drat", "lrat")},
    ("satdoku/commands/dpll.py", "satdoku.solvers.cdcl.driver"):
        "the cdcl mode's label names the kernel; the dpll mode does not load the CDCL driver",
    # argparse (with gettext and locale) loads only when a parser is built: a plain one-shot
    # command line is read without it (satdoku/commands/plain_args.py)
    ("satdoku/cli.py", "satdoku.commands.help_format"):
        "the help formatters subclass argparse's: loaded when a parser is built",
    ("satdoku/commands/dpll.py", "satdoku.commands.help_format"):
        "the help formatters subclass argparse's: loaded when a parser is built",
    # `satdoku report STAGE` likewise: a CNF sizes job (one per set and encoding) reads
    # bundles and imports neither the reports nor the explorer (about 0.2 s of CPU a job);
    # "report" is `from satdoku.report import report_stages`
    **{("satdoku/commands/report.py", f"satdoku.{module}"):
       "a report job imports its own stage only"
       for module in ("report", "report.explorer.site", "stagefiles.bundles")},
    ("satdoku/commands/pipeline.py", "satdoku.report.collect"):
        "the report stage's --time-column is checked against the report's time columns when "
        "given: the other stages' jobs do not load the report collector",
    ("satdoku/commands/variants_arg.py", "satdoku.config"):
        "the configuration (set planning, solver registry, jsonschema) is loaded when a "
        "--variants value is checked, not by every pipeline stage whose parser has the option",
}


def test_own_modules_are_imported_at_the_top() -> None:
    found = _local_imports_of_ours()
    assert sorted(found - set(LOCAL_IMPORTS_ALLOWED)) == [], "hoist these (or list them, why)"
    assert sorted(set(LOCAL_IMPORTS_ALLOWED) - found) == [], "stale LOCAL_IMPORTS_ALLOWED entry"


def test_the_local_import_finder_sees_one() -> None:
    """The finder itself: the driver's import of the readable kernel inside kernel_type is
    found, and compiled extensions (satdoku/cnf/_dimacs.c, ...), imported in functions on
    purpose, are not."""
    found = _local_imports_of_ours()
    assert ("satdoku/solvers/cdcl/driver.py", "satdoku.solvers.cdcl.readable") in found
    assert not [m for _, m in found if m.rpartition(".")[2].startswith("_")]
