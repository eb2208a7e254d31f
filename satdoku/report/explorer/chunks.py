"""The explorer's instance chunks: CHUNK instances per file, in columns.

A chunk file (``data/sets/SET/chunkC.js``) is one ``SATDOKU.load("chunk:SET:C", {...})`` call
whose object holds, for its ``n`` instances in order:

- ``raw``: the instance's Instances object exactly as its shard has it (the JSON text passed on,
  not encoded again), or null when the object is shipped ``built``;
- ``lay``: for a ``raw`` object, its index into ``layouts`` (``fam``, ``shape``, ``domain``: what
  every puzzle of that layout shares); ``base``: the Instances fields an instance's ``p``
  object leaves out (the page derives ``id``, ``line``, ``hash``, ``name``, ``notation`` and
  ``source`` from them, ``p`` from the rest);
- ``built``: {position: the instance as :func:`site.instance_base` builds it} for every object
  that is not plain (CNF files, INVALID lines, non-canonical boards);
- ``r``: {run index: {field: column}}: each run's answer (``s``, ``v``, ``m``, ``b``, times,
  statistics, ``ms``, ``co``; null where the answer has no such field, ``s`` null: no answer);
- ``boards``, ``u``, ``sz``, ``pg``, ``sg``: columns (null: none) of the instance's distinct
  solved boards, uniqueness verdict, formula sizes, propagation analysis and singles.

A column that is null throughout is left out. :func:`chunk_entries` reads a chunk back into
the instances the page shows (``explorer.js``'s ``entryOf`` does the same): each is the object
:func:`site.instance_base` and :func:`site.run_answer` make. Shipping the columns and the
objects' own text costs the writer a fraction of encoding one object per instance.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

#: the per-instance columns besides ``raw``, ``lay`` and ``built``, in the order a row puts them
EXTRA_COLUMNS = ("boards", "u", "sz", "pg", "sg")
#: a chunk column's key: (name,) or ("r", run key, answer field)
Key = tuple[str, ...]


class ChunkColumns:
    """Rows of columns (one shard's at a time) cut into chunks of ``size``: every value is
    copied once, whatever the sizes of shards and chunks."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.pending: list[list[Any]] = []  # [columns, start, end] of parts not yet written
        self.count = 0

    def add(self, columns: Mapping[Key, list[Any]], n: int) -> list[dict[Key, list[Any]]]:
        """Add ``n`` rows (every column ``n`` long); returns the chunks now full."""
        if n:
            self.pending.append([columns, 0, n])
            self.count += n
        out = []
        while self.count >= self.size:
            out.append(self.take(self.size))
        return out

    def rest(self) -> dict[Key, list[Any]] | None:
        """The last, partly filled chunk (None when nothing is left)."""
        return self.take(self.count) if self.count else None

    def take(self, m: int) -> dict[Key, list[Any]]:
        pieces = []
        need = m
        while need:
            part = self.pending[0]
            columns, start, end = part
            k = min(need, end - start)
            pieces.append((columns, start, start + k))
            need -= k
            if start + k == end:
                self.pending.pop(0)
            else:
                part[1] = start + k
        self.count -= m
        keys = list(dict.fromkeys(k for columns, _, _ in pieces for k in columns))
        out: dict[Key, list[Any]] = {}
        for key in keys:
            col: list[Any] = []
            for columns, start, end in pieces:
                have = columns.get(key)
                col.extend(have[start:end] if have is not None else [None] * (end - start))
            out[key] = col
        return out


def chunk_text(key: str, columns: Mapping[Key, list[Any]], layouts: Sequence[Mapping[str, Any]],
               base: Sequence[str]) -> str:
    """A chunk file's text: ``columns`` (their ``lay`` indexing ``layouts``, the set's) as the
    module docstring says, the ``raw`` texts spliced in as they are."""
    raw = columns[("raw",)]
    n = len(raw)
    used = sorted({k for k in columns[("lay",)] if k is not None})
    local = {k: j for j, k in enumerate(used)}
    obj: dict[str, Any] = {
        "n": n,
        "lay": [None if k is None else local[k] for k in columns[("lay",)]],
        "layouts": [layouts[k] for k in used], "base": list(base),
        "built": {str(j): b for j, b in enumerate(columns[("built",)]) if b is not None},
        "r": {},
    }
    for k, col in columns.items():
        if k[0] == "r" and any(v is not None for v in col):
            obj["r"].setdefault(k[1], {})[k[2]] = col
    for name in EXTRA_COLUMNS:
        col = columns.get((name,))
        if col is not None and any(v is not None for v in col):
            obj[name] = col
    rest = json.dumps(obj, separators=(",", ":"))
    texts = ",".join("null" if t is None else t for t in raw)
    return f'SATDOKU.load({json.dumps(key)}, {{"raw":[{texts}],{rest[1:]});\n'


def chunk_entries(chunk: Mapping[str, Any], common: Mapping[str, str] | None = None
                  ) -> list[dict[str, Any]]:
    """The instances of a parsed chunk as the page reads them (``explorer.js``'s ``entryOf``);
    ``common``: the set's ``source`` and ``notation``, for a built instance that leaves them
    out because they are the set's."""
    out = []
    base = set(chunk["base"])
    for j in range(chunk["n"]):
        raw = chunk["raw"][j]
        if raw is None:
            inst = {**(common or {}), **chunk["built"][str(j)]}
        else:
            lay = chunk["layouts"][chunk["lay"][j]]
            inst = {"id": int(raw["id"]), "line": raw["line"], "fam": lay["fam"],
                    "notation": raw["notation"], "source": raw["source"]}
            if "name" in raw:
                inst["name"] = raw["name"]
            inst["hash"] = raw["instance_hash"]
            inst["p"] = {**{k: v for k, v in raw.items() if k not in base},
                         "shape": lay["shape"], "domain": lay["domain"]}
        inst["r"] = {run: {f: col[j] for f, col in fields.items() if col[j] is not None}
                     for run, fields in chunk["r"].items() if fields["s"][j] is not None}
        for name in EXTRA_COLUMNS:
            if chunk.get(name) and chunk[name][j] is not None:
                inst[name] = chunk[name][j]
        out.append(inst)
    return out
