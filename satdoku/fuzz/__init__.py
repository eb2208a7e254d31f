"""Fuzzing satdoku's solvers, checkers, encodings, counters and readers, and any user's solver.

In the spirit of cnfuzz and ddsat (Brummayer, Lonsing and Biere, *Automated testing and
debugging of SAT and QBF solvers*, SAT 2010) and of CaDiCaL's model-based tester mobical:

- :mod:`~satdoku.fuzz.formulas`, :mod:`~satdoku.fuzz.puzzles`: seeded generators (random
  k-CNF, cnfuzz-style layers, awkward formulas, small puzzles solvable or not; API sequences);
- :mod:`~satdoku.fuzz.oracles`: brute force, python-sat's MiniSat / CaDiCaL, a model check,
  drat-trim when present; never the code under test, nor its Python twin;
- :mod:`~satdoku.fuzz.sequences`: model-based testing of incremental use;
- :mod:`~satdoku.fuzz.shrink`: delta debugging of failing cases;
- :mod:`~satdoku.fuzz.targets`, :mod:`~satdoku.fuzz.checks`: what is tested, derived from the
  solver, encoding and format registries;
- :mod:`~satdoku.fuzz.campaign`: the runner (budgets, progress, reproducer files).

``satdoku fuzz`` (:mod:`satdoku.commands.fuzz`) and ``benchmarks/fuzz_campaign.py`` are thin
shells over these; docs/fuzzing.md explains the whole.
"""
