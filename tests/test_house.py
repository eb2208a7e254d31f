"""The house keeps its map true and its facts in one place (issue 28): docs/modules.md names
every module of satdoku/ and nothing that does not exist; the result words are defined in
satdoku/solvers/result.py only; the default encoding is written once."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

from satdoku.solvers import result

PACKAGE = ROOT / "satdoku"
MODULES_MD = ROOT / "docs" / "modules.md"
_NAMED = re.compile(r"`((?:satdoku|benchmarks|workflow|tests)/[\w/.*-]+)`")


def _modules() -> set[str]:
    return {str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*") if p.suffix in (".py", ".c", ".h")
            and "__pycache__" not in p.parts}


def test_every_path_docs_modules_names_exists() -> None:
    missing = []
    for name in _NAMED.findall(MODULES_MD.read_text(encoding="utf-8")):
        if "*" in name:
            found = list(ROOT.glob(name))
        else:
            found = [ROOT / name] if (ROOT / name).exists() else []
        if not found:
            missing.append(name)
    assert missing == []


def test_docs_modules_names_every_module() -> None:
    named = set(_NAMED.findall(MODULES_MD.read_text(encoding="utf-8")))
    assert sorted(_modules() - named) == []


def test_the_checks_above_can_fail(tmp_path: Path) -> None:
    """The pattern finds a module path as docs/modules.md writes it, and a made-up one would
    be reported missing."""
    line = "| `satdoku/solve.py` | the solve path |  `satdoku/no_such_module.py`"
    assert _NAMED.findall(line) == ["satdoku/solve.py", "satdoku/no_such_module.py"]
    assert not (ROOT / "satdoku/no_such_module.py").exists()


def _module_constants(path: Path) -> dict[str, object]:
    """Module-level NAME = literal (and tuple unpacking of literals) of one file."""
    out: dict[str, object] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names = ([target] if isinstance(target, ast.Name) else
                         target.elts if isinstance(target, ast.Tuple) else [])
                values = (node.value.elts if isinstance(node.value, ast.Tuple)
                          and isinstance(target, ast.Tuple) else [node.value])
                for n, v in zip(names, values, strict=False):
                    if isinstance(n, ast.Name) and isinstance(v, ast.Constant):
                        out[n.id] = v.value
    return out


WORDS = ("SAT", "UNSAT", "TIMEOUT", "INVALID", "ERROR", "MEMOUT", "EXIT", "TIMELIMIT",
         "MEMLIMIT", "TERM_ERROR", "YES", "PROOF", "FAILED", "UNCHECKED", "WRONG", "BENCHEXEC",
         "BASIC", "IN_PROCESS")


def test_result_words_have_one_home() -> None:
    """No module but solvers/result.py binds a result word's name to a literal (the kernels'
    integer codes in solvers/cdcl/ are other facts: their home is cdcl/params.py)."""
    assert all(isinstance(getattr(result, w), str) for w in WORDS)
    home = PACKAGE / "solvers" / "result.py"
    again = sorted(f"{p.relative_to(ROOT)}: {name}" for p in PACKAGE.rglob("*.py") if p != home
                   for name, value in _module_constants(p).items()
                   if name in WORDS and isinstance(value, str))
    assert again == []


def test_the_default_encoding_is_written_once() -> None:
    """The literal default encoding appears in code only where it is defined (and as the
    record that defines that encoding)."""
    from satdoku.cnf.encodings import DEFAULT_ENCODING

    pattern = re.compile(rf"=\s*[\"']{DEFAULT_ENCODING}[\"']|default=[\"']{DEFAULT_ENCODING}[\"']|"
                         rf"or [\"']{DEFAULT_ENCODING}[\"']")
    places = sorted(f"{p.relative_to(ROOT)}" for p in PACKAGE.rglob("*.py")
                    if pattern.search(p.read_text(encoding="utf-8")))
    assert places == ["satdoku/cnf/encodings.py"]


def test_the_rules_take_every_path_from_the_one_template_table() -> None:
    """The workflow names stage files as ``path.NAME``, the templates of
    satdoku/stagefiles/paths.py under their directory (stage.rooted()): no rule file re-exports a
    template under a name of its own, and every name a rule uses is a template."""
    from satdoku.stagefiles import paths as stage

    table = vars(stage.rooted())
    assert table["SOLS"] == f"{stage.RESULTS}/{stage.SOLS}"
    assert table["SUMMARY"] == f"{stage.REPORTS}/{stage.SUMMARY}"
    assert {n for n in stage.CROSS_SET if table[n].startswith(f"{stage.REPORTS}/")} == set(
        stage.CROSS_SET)
    templates = {n for n, v in vars(stage).items() if n.isupper() and isinstance(v, str)}
    assert set(table) == templates - {"RESULTS", "REPORTS", "DIRECT", "DIMACS"}
    rules = [ROOT / "Snakefile", *sorted((ROOT / "workflow/rules").glob("*.smk"))]
    texts = {f.name: "\n".join(line.split("#")[0] for line in f.read_text(encoding="utf-8")
                                .splitlines()) for f in rules}  # code, not comments
    used = {n for t in texts.values() for n in re.findall(r"\bpath\.([A-Z_]+)\b", t)}
    assert len(used) > 30 and used <= set(table), used - set(table)
    reexports = [f"{name}: {m.group(0)}" for name, t in texts.items()
                 for m in re.finditer(r"^[A-Z_]+ = .*\b(?:stage|path)\.[A-Z_]+.*$", t, re.M)]
    assert reexports == []
