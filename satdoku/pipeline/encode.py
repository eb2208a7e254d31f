"""Encode stage: an Instances shard -> a CNF bundle (SatInput)."""

from __future__ import annotations

from pathlib import Path

from satdoku.cnf.bundle import write_instance, write_invalid, write_rules
from satdoku.cnf.encode import (
    NO_RULES,
    instance_clauses,
    num_vars,
    rules_clauses,
    rules_key,
    rules_num_vars,
)
from satdoku.cnf.formula import Cnf
from satdoku.pipeline.instances import read_instances


def encode_shard(instances: str | Path, out: str | Path, set_name: str, encoding: str) -> int:
    """Write the bundle of one shard; returns the number of instances written."""
    written_rules: dict[str, int] = {}
    n = 0
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(f"c satdoku bundle set {set_name} encoding {encoding}\n")
        for rec in read_instances(instances):
            n += 1
            if rec.puzzle is None:
                write_invalid(fh, rec.id, rec.error or "invalid",
                              {"id": rec.id, "set": set_name, "line": rec.line})
                continue
            p = rec.puzzle
            key = rules_key(p, encoding)
            if key == NO_RULES:  # simplified formulas: every clause is the instance's own
                written_rules[key] = 0
            elif key not in written_rules:
                rules = rules_clauses(p.layout, encoding)
                write_rules(fh, key, Cnf(rules_num_vars(p.layout, encoding), rules))
                written_rules[key] = len(rules)
            header = {"id": rec.id, "set": set_name, "line": rec.line, "kind": p.kind,
                      "size": p.size, "encoding": encoding, "rules": key}
            write_instance(fh, rec.id, header, num_vars(p, encoding), written_rules[key],
                           instance_clauses(p, encoding))
    return n
