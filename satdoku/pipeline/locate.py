"""Find one instance of a set in the sharded stage files (ids grow with shards: bisect)."""

from __future__ import annotations

import json
from bisect import bisect_right
from pathlib import Path


def shard_of(results: str | Path, set_name: str, ident: str) -> str:
    """The shard name holding instance ``ident`` of ``set_name`` (KeyError if none)."""
    shards = sorted(Path(results, "Instances", set_name).glob("*.jsonl"))
    if not shards:
        raise KeyError(f"no Instances shards for set {set_name!r} under {results}")
    firsts: list[int] = []
    names: list[str] = []
    for s in shards:
        with s.open(encoding="utf-8") as fh:
            first = fh.readline()
        if first:
            firsts.append(int(json.loads(first)["id"]))
            names.append(s.stem)
    k = bisect_right(firsts, int(ident)) - 1
    if k < 0:
        raise KeyError(f"no instance {ident} in set {set_name!r}")
    return names[k]


def solver_output_block(path: str | Path, ident: str) -> list[str]:
    """The SatOutput lines of one instance (with its ``c instance`` line)."""
    from satdoku.cnf.dimacs import iter_blocks

    with open(path, encoding="utf-8") as fh:
        for key, block in iter_blocks(fh):
            if key == ident:
                return [f"c instance {key}", *block]
    raise KeyError(f"no instance {ident} in {path}")
