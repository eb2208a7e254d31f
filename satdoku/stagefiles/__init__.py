"""The stage-file contract of docs/stage-files.md: read and write, nowhere else.

One module per stage file:

- :mod:`.paths` — where every stage file lives (the path templates the workflow rules use too);
- :mod:`.instances` — Instances JSONL shards (a header line, then one record per instance);
- :mod:`.bundles` — SatInput CNF bundles (shared rules blocks + per-instance blocks);
- :mod:`.outputs` — SatOutput (``c status``/``c time`` + SAT-competition ``s``/``v`` lines);
- :mod:`.tsv` — the TSV stage files: SatOutputTimes, SatSols, uniqueness, CNF sizes;
- :mod:`.manifest` — the run manifest, ``results/run.json``;
- :mod:`.propagation_files` — the propagation analysis files;
- :mod:`.runtable` — a run's rows of those files in columns (what the store and reports read);
- :mod:`.families` — the instance families the reports group by.

This package sits below ``pipeline``, ``report``, ``runs`` and ``solve``; it imports only
``cnf``, ``formats``, ``identity`` and ``solvers`` (the result words, the registry): the floors
of DESIGN.md, which tests/test_layering.py enforces.
"""
