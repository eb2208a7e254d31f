"""The workflow configuration: validation with one-line errors, defaults, presets.

``check(config, schema_path)`` is what the Snakefile runs before any job is planned. It
validates against ``workflow/schemas/config.schema.yaml`` (unknown keys are refused, names must
be safe file-name parts, numbers finite), fills the defaults the schema declares (the only place
defaults live), applies a section's preset (the one preset helper), and then checks what a
schema cannot: every solver's options against its registry record's option schema, solver
names the registry knows, experiment solvers at the puzzle level, ``n_min <= n_max``, and set
paths that exist and can be read. Every problem is a :class:`ConfigError` whose message is one
line naming the key, e.g. ``config: solvers.cdcl: unknown option 'heuristic'``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from satdoku.plain_schema import surely_valid
from satdoku.records import field_names
from satdoku.set_plans import SetError, plan
from satdoku.size_limits import SizeLimits
from satdoku.solvers.base import RunLimits
from satdoku.solvers.registry import PUZZLE, SOLVERS, resolve

if TYPE_CHECKING:
    from satdoku.solvers.base import RunLimits


class ConfigError(ValueError):
    """A configuration that cannot run (the message is one line naming the key)."""


def _where(path: Any) -> str:
    parts = [str(p) for p in path]
    return ".".join(parts) if parts else "(top level)"


def load_schema(path: str | Path) -> dict[str, Any]:
    import yaml

    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_safe_loader())


def _safe_loader() -> type:
    """PyYAML's SafeLoader, parsing in C where PyYAML has libyaml (the same documents, several
    times faster: every Snakemake start reads the config schema)."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _schema_error(error: Any) -> ConfigError:
    """One line for a jsonschema ValidationError: where, and what is wrong."""
    where = _where(error.absolute_path)
    validator = error.validator
    if validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        known = ", ".join(sorted(error.schema.get("properties", {})))
        return ConfigError(f"config: {where}: unknown key(s) {', '.join(map(repr, extra))}"
                           + (f" (known: {known})" if known else ""))
    if validator == "propertyNames" or "propertyNames" in error.schema_path:
        name = str(error.instance)
        shown = repr(name if len(name) <= 40 else name[:40] + "...")
        return ConfigError(f"config: {where}: name {shown} is not allowed: names start with a "
                           "letter or digit, then letters, digits, '_', '.', '+', '-' (at most "
                           "64 characters)")
    if validator == "enum":
        choices = ", ".join(map(str, error.validator_value))
        return ConfigError(f"config: {where}: {error.instance!r} is not one of {choices}")
    return ConfigError(f"config: {where}: {error.message}")


def validate_schema(data: Any, schema: Mapping[str, Any], prefix: tuple[Any, ...] = ()) -> None:
    """Raise ConfigError (one line) for the most relevant schema violation, if any. An
    object of plain options (a solver's) is checked without jsonschema when it is surely
    valid (:mod:`satdoku.plain_schema`); everything else, and every error, is jsonschema's."""
    if surely_valid(data, schema):
        return
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        if prefix:
            error.path.extendleft(reversed(prefix))
        raise _schema_error(error)


#: values (mappings, lists and scalars, aliases counted at every use) a configuration may hold:
#: far above any real one (the default config has about 200), far below what hangs a check
MAX_VALUES = 100_000
#: levels of nesting a configuration may have
MAX_DEPTH = 64


def check_size(data: Any, limit: int = MAX_VALUES) -> None:
    """Refuse a configuration that expands to more than ``limit`` values or nests deeper than
    MAX_DEPTH (a YAML alias bomb: a few lines whose aliases expand to billions of values), in
    time linear in its distinct objects, before anything walks it value by value."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Any, path: tuple[Any, ...]) -> int:
        if not isinstance(node, (Mapping, list)):
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise ConfigError(f"config: {_where(path)}: refers to itself (a recursive alias)")
        if len(path) > MAX_DEPTH:
            raise ConfigError(f"config: {_where(path[:3])}...: nested deeper than {MAX_DEPTH} "
                              "levels")
        active.add(key)
        items = node.items() if isinstance(node, Mapping) else enumerate(node)
        total = 1
        for k, v in items:
            total += size(v, (*path, k))
            if total > limit:
                raise ConfigError(f"config: {_where(path)}: more than {limit} values once its "
                                  "aliases are expanded (a YAML alias bomb?)")
        active.discard(key)
        sizes[key] = total
        return total

    size(data, ())


def _unique_key_loader() -> type:
    """A YAML SafeLoader that refuses a key given twice in one mapping (YAML keeps the last
    silently, so a second ``sets:`` would replace the first without a word)."""

    class UniqueKeyLoader(_safe_loader()):  # type: ignore[misc, valid-type]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the constructor explains it
                    break
                if first is not None:
                    raise ConfigError(f"config: {key_node.start_mark.name}: line {line}: key "
                                      f"{key!r} given twice (first on line {first})")
                seen[key] = line
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def check_file(path: str | Path) -> None:
    """Refuse a configuration file with a key given twice in one mapping, naming the key and
    both lines; the file must also pass :func:`check_size`. A file that is not YAML is left
    to Snakemake, which has already read it (as JSON or YAML)."""
    import yaml

    try:
        data = _load_yaml(path)
    except (yaml.YAMLError, OSError, UnicodeDecodeError):
        return
    check_size(data)


def _load_yaml(path: str | Path) -> Any:
    """A YAML file, parsed once by the loader that refuses a key given twice."""
    import yaml

    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_unique_key_loader())


def _finite(data: Any, path: tuple[Any, ...] = ()) -> None:
    """Refuse infinite and NaN numbers anywhere (YAML ``.inf`` / ``.nan``)."""
    if isinstance(data, float) and not math.isfinite(data):
        raise ConfigError(f"config: {_where(path)}: {data!r} is not a finite number")
    if isinstance(data, Mapping):
        for k, v in data.items():
            _finite(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            _finite(v, (*path, i))


def fill_defaults(data: dict[str, Any], schema: Mapping[str, Any]) -> None:
    """Fill in the defaults the schema declares, for the objects present in ``data``."""
    for key, sub in schema.get("properties", {}).items():
        if key not in data and "default" in sub:
            data[key] = copy.deepcopy(sub["default"])
        if isinstance(data.get(key), dict) and sub.get("type") == "object":
            fill_defaults(data[key], sub)


def with_preset(section: Mapping[str, Any], chosen: str | None) -> dict[str, Any]:
    """A section with its preset applied: ``chosen`` (the command line's ``<name>_preset``),
    else the section's own ``preset``; ``default`` leaves it as it is. The presets themselves
    are dropped from the result."""
    out = dict(section)
    presets = out.pop("presets", None) or {}
    name = chosen or out.get("preset") or "default"
    if name != "default":
        if name not in presets:
            known = ", ".join(["default", *sorted(presets)])
            raise ConfigError(f"config: preset {name!r} unknown (known: {known})")
        out.update(presets[name])
    out["preset"] = name
    return out


def check_solvers(solvers: Mapping[str, Any]) -> None:
    """Every configured solver against its registry record: a registered name (or a variant
    naming its base), options that its option schema accepts (an unknown key is one line
    naming it). The workflow runs this before any job; stage commands on their --variants."""
    for name, options in solvers.items():
        options = options or {}
        try:
            base, _ = resolve(name, solvers)
        except KeyError:
            known = ", ".join(sorted(SOLVERS))
            raise ConfigError(f"config: solvers.{name}: not a registered solver; a variant "
                              f"names its base with 'solver:' (known: {known})") from None
        validate_schema(options, SOLVERS[base].schema(), ("solvers", name))
        if SOLVERS[base].validate:  # what a schema cannot say (an external command's form)
            import importlib

            module, func = SOLVERS[base].validate.split(":")
            try:
                getattr(importlib.import_module(module), func)(options)
            except ValueError as exc:
                raise ConfigError(f"config: solvers.{name}: {exc}") from None


def _file_data(path: str | Path) -> Any:
    """A configuration file's YAML, checked as the workflow's is (size, duplicate keys)."""
    import yaml

    try:
        data = _load_yaml(path)
    except (yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config: {path}: {exc}") from None
    check_size(data)
    return data


def size_limits_of_file(path: str | Path) -> dict[str, int]:
    """The ``size_limits`` section of a configuration file (for ``satdoku solve --configfile``),
    checked against the fields of :class:`satdoku.size_limits.SizeLimits`: one line naming an
    unknown key or a value that is not a whole number >= 1. Empty when the file sets none."""
    data = _file_data(path)
    limits = data.get("size_limits") if isinstance(data, dict) else None
    if limits is None:
        return {}
    if not isinstance(limits, dict):
        raise ConfigError(f"config: {path}: size_limits: not a mapping")
    known = set(field_names(SizeLimits))
    unknown = sorted(str(k) for k in limits if k not in known)
    if unknown:
        raise ConfigError(f"config: {path}: size_limits: unknown key(s) {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(known))})")
    for key, value in limits.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"config: {path}: size_limits.{key}: {value!r} is not a whole "
                              "number >= 1")
    return dict(limits)


def solvers_of_file(path: str | Path) -> dict[str, Any]:
    """The checked ``solvers`` section of a configuration file (for ``satdoku solve
    --configfile``): one line naming the problem otherwise."""
    data = _file_data(path)
    solvers = data.get("solvers") if isinstance(data, dict) else None
    if not isinstance(solvers, dict):
        raise ConfigError(f"config: {path}: no 'solvers' mapping")
    _finite(solvers)
    solvers = {k: dict(v or {}) for k, v in solvers.items()}
    check_solvers(solvers)
    return solvers


def _check_presets(config: dict[str, Any], name: str, schema: Mapping[str, Any]) -> None:
    """Every preset of a section against the section's own schema: a preset value of the
    wrong type (``time_limit: "2"``) or an unknown key is one line naming the preset."""
    section_schema = dict(schema.get("properties", {}).get(name, {}))
    section_schema.pop("required", None)
    section_schema["$defs"] = schema.get("$defs", {})
    for preset, values in (config.get(name) or {}).get("presets", {}).items():
        validate_schema(values, section_schema, (name, "presets", preset))


def _check_experiment(config: dict[str, Any]) -> None:
    section = config.get("csp_experiment")
    if not section:
        return
    exp = with_preset(section, config.get("csp_preset"))
    for i, name in enumerate(exp.get("solvers", [])):
        try:
            base, _ = resolve(name, config["solvers"])
        except KeyError:
            raise ConfigError(f"config: csp_experiment.solvers.{i}: unknown solver {name!r}"
                              ) from None
        if SOLVERS[base].level != PUZZLE:
            raise ConfigError(f"config: csp_experiment.solvers.{i}: {name!r} is not a "
                              "puzzle-level solver (cpsat, csp-...)")
    if exp.get("n_min", 1) > exp.get("n_max", 1):
        raise ConfigError(f"config: csp_experiment: n_min {exp['n_min']} is larger than "
                          f"n_max {exp['n_max']}")


def _check_ltn(config: dict[str, Any], basedir: Path | None) -> None:
    section = config.get("ltn")
    if not section:
        return
    ltn = with_preset(section, config.get("ltn_preset"))
    if sum(ltn.get("fractions", [1])) <= 0:
        raise ConfigError("config: ltn.fractions: must not all be 0")
    original = ltn.get("original")
    if original and ltn.get("enabled", True):
        root = Path(basedir or ".", original)
        if not root.is_dir():
            raise ConfigError(f"config: ltn.original: {original}: not a directory (the original "
                              "system's CSVs, with one NxN/ folder per size)")
        for size in ltn.get("sizes", []):
            if not (root / f"{size}x{size}").is_dir():
                raise ConfigError(f"config: ltn.original: {original}: no {size}x{size}/ folder "
                                  f"for size {size} (ltn.sizes)")
    clue17 = ltn.get("clue17")
    if (clue17 and ltn.get("clue17_limit") and 9 in ltn.get("sizes", [])
            and ltn.get("enabled", True) and not Path(basedir or ".", clue17).is_file()):
        raise ConfigError(f"config: ltn.clue17: {clue17}: no such file (a 17-clue puzzle file "
                          "the 9x9 evaluation scores; clue17_limit: 0 turns it off)")


def set_entry(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Set ``name`` of a configuration as a mapping: a bare path is ``{"path": path}``."""
    entry = config["sets"][name]
    return {"path": entry} if isinstance(entry, str) else dict(entry)


def _check_sets(config: dict[str, Any], basedir: Path | None) -> None:
    for name in config["sets"]:
        entry = set_entry(config, name)
        path, fmt = entry["path"], entry.get("format", "auto")
        try:
            plan(Path(basedir or ".", path) if basedir else path, fmt)
        except (SetError, OSError) as exc:
            raise ConfigError(f"config: sets.{name}: {exc}") from None


def propagation_on(config: Mapping[str, Any], name: str, cnf_set: bool, units: int) -> bool:
    """Whether set ``name`` of a checked configuration gets the propagation analysis: its
    ``propagation`` setting, else puzzle sets (not CNF sets) of fewer than
    ``propagation_limit`` input lines (``units`` of its plan)."""
    entry = set_entry(config, name)
    if "propagation" in entry:
        return bool(entry["propagation"])
    return not cnf_set and units < int(config["propagation_limit"])


def set_time_limits(config: Mapping[str, Any], name: str) -> tuple[float, float]:
    """(time limit, proof-check budget) of set ``name`` in a checked configuration: each the
    set's own, else the global one; the check budget defaults to the set's time limit."""
    entry = set_entry(config, name)
    limit = float(entry.get("time_limit", config["time_limit"]))
    check = entry.get("verify_time_limit", config.get("verify_time_limit", limit))
    return limit, float(check)


#: The memory limit (MB) of a run when nothing sets one, and the solve and uniqueness rules'
#: ``mem_mb`` (the schema's memory_limit text names it: tests/test_config.py).
SOLVE_MEM_MB = 4000


def run_limits(config: Mapping[str, Any], name: str, solver: str) -> RunLimits:
    """The RunLimits of ``solver`` on set ``name`` in a checked configuration: the set's time
    limit and proof-check budget (:func:`set_time_limits`); the solver's ``memory_limit``
    option, else the set's, else the global one, else :data:`SOLVE_MEM_MB`; the set's
    ``limit_clock``, else the global one (wall); the ``measurement`` backend. Cores are not
    the configuration's: each solve job claims its own when it starts."""
    entry = set_entry(config, name)
    options = config["solvers"].get(solver) or {}
    memory = options.get("memory_limit", entry.get("memory_limit",
                                                   config.get("memory_limit", SOLVE_MEM_MB)))
    limit, check = set_time_limits(config, name)
    return RunLimits(time_limit=limit, verify_time_limit=check, memory_mb=float(memory),
                     clock=str(entry.get("limit_clock", config.get("limit_clock", "wall"))),
                     measurement=str(config.get("measurement", "auto")))


def check(config: Mapping[str, Any], schema: str | Path | Mapping[str, Any],
          basedir: Path | None = None, check_paths: bool = True) -> dict[str, Any]:
    """The validated configuration with defaults filled in (ConfigError: one line)."""
    check_size(config)
    if "limits" in config and "size_limits" not in config:
        raise ConfigError("config: limits: renamed size_limits (the readers' size guard); "
                          "rename the key")
    data = copy.deepcopy(dict(config))
    schema_dict = load_schema(schema) if isinstance(schema, (str, Path)) else schema
    _finite(data)
    validate_schema(data, schema_dict)
    fill_defaults(data, schema_dict)
    check_solvers(data["solvers"])
    for section in ("csp_experiment", "ltn"):
        _check_presets(data, section, schema_dict)
    _check_experiment(data)
    _check_ltn(data, basedir)
    if check_paths:
        _check_sets(data, basedir)
    return data
