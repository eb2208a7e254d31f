"""Encode stage: an Instances shard -> a SatInput bundle (stage file).

Puzzles are encoded with the named encoding (the layout's rules written once per shard); the
instances of a CNF set are copied as they are (encoding label ``dimacs``), after checking that
each file still has the checksum it had when the set was read.
"""

from __future__ import annotations

from pathlib import Path

from satdoku.cnf.encode import NO_RULES, check_encoding_size, formula, rules_key
from satdoku.cnf.encodings import Unencodable
from satdoku.size_limits import TooLarge
from satdoku.stagefiles.bundles import write_instance, write_invalid, write_rules
from satdoku.stagefiles.instances import read_instances


def encode_shard(instances: str | Path, out: str | Path, set_name: str, encoding: str) -> int:
    """Write the bundle of one shard; returns the number of instances written."""
    from satdoku.solve import formula_of

    written_rules: dict[str, int] = {}
    n = 0
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(f"c satdoku bundle set {set_name} encoding {encoding}\n")
        for rec in read_instances(instances):
            n += 1
            where = {"id": rec.id, "set": set_name, "line": rec.line}
            if not rec.valid:
                write_invalid(fh, rec.id, rec.error or "invalid", where)
                continue
            if rec.cnf is not None:  # a DIMACS instance: its formula, unchanged
                cnf = formula_of(rec, encoding).whole()
                header = {**where, "kind": "cnf", "size": cnf.num_vars, "encoding": encoding,
                          "rules": NO_RULES}
                write_instance(fh, rec.id, header, cnf.num_vars, 0, cnf.clauses)
                continue
            p = rec.puzzle
            assert p is not None
            try:  # the memory guard, from the sizes alone, before anything is built
                check_encoding_size(p.layout, encoding)
            except (TooLarge, Unencodable) as exc:  # (augmented without boxes: one line)
                write_invalid(fh, rec.id, str(exc), where)
                continue
            f = formula(p, encoding)
            key = rules_key(p, encoding)
            if key == NO_RULES:  # simplified formulas: every clause is the instance's own
                written_rules[key] = 0
            elif key not in written_rules:
                assert f.rules is not None
                write_rules(fh, key, f.rules)
                written_rules[key] = len(f.rules.clauses)
            header = {**where, "kind": p.kind, "size": p.size, "encoding": encoding,
                      "rules": key}
            write_instance(fh, rec.id, header, f.num_vars, written_rules[key], f.own)
    return n
