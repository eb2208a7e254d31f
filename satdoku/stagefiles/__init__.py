"""The stage-file contract of docs/stage-files.md: read and write, nowhere else.

One module per stage file:

- :mod:`.paths` — where every stage file lives (the path templates the workflow rules use too);
- :mod:`.instances` — Instances JSONL shards (a header line, then one record per instance);
- :mod:`.bundles` — SatInput CNF bundles (shared rules blocks + per-instance blocks);
- :mod:`.outputs` — SatOutput (``c status``/``c time`` + SAT-competition ``s``/``v`` lines);
- :mod:`.tables` — the TSV stage files: SatOutputTimes, SatSols, uniqueness, CNF sizes.

This package sits below ``pipeline``, ``report`` and ``solve``; it imports only ``cnf.formula``,
``cnf.dimacs``, ``formats`` and ``puzzle``.
"""
