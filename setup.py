"""Build step of satdoku: the compiled CDCL kernel (satdoku/solvers/cdcl/kernel.c, the search,
with _cdcl.c, its Python binding), the compiled pass of the DIMACS reader
(satdoku/cnf/_dimacs.c), the backward DRAT checker (satdoku/cnf/_drat.c), the LRAT checker
(satdoku/cnf/_lrat.c) and the solve stage's per-puzzle loop (satdoku/pipeline/_batch.c).

Everything else is configured in pyproject.toml. The extensions are optional: without a C
compiler or Python headers the install still succeeds and satdoku runs their Python forms
(slower, the same results): satdoku/solvers/cdcl/readable.py, the DIMACS reader's Python
engine, the Python checkers in satdoku/cnf/drat.py and satdoku/cnf/lrat.py, the solve stage's
reference loop.
"""

from setuptools import Extension, setup

setup(
    # the `satdoku` command: a plain script, not [project.scripts]' wrapper, whose
    # `import re` would cost every process a quarter of a one-shot start-up (issue 29)
    scripts=["scripts/satdoku"],
    ext_modules=[
        Extension(
            "satdoku.solvers.cdcl._cdcl",
            # the binding, then the kernel it calls (kernel.h: what they share)
            ["satdoku/solvers/cdcl/_cdcl.c", "satdoku/solvers/cdcl/kernel.c"],
            depends=["satdoku/solvers/cdcl/kernel.h"],
            # no fused multiply-add: the same floating-point results as the Python reference
            extra_compile_args=["-O3", "-ffp-contract=off"],
            optional=True,
        ),
        # the DIMACS reader's compiled pass (engine "c" of satdoku/cnf/dimacs_fast.py)
        Extension("satdoku.cnf._dimacs", ["satdoku/cnf/_dimacs.c"],
                  depends=["satdoku/cnf/decimal.h"], extra_compile_args=["-O3"], optional=True),
        # the backward DRAT checker (twin: the pure-Python reference in satdoku/cnf/drat.py)
        Extension("satdoku.cnf._drat", ["satdoku/cnf/_drat.c"], extra_compile_args=["-O3"],
                  optional=True),
        # the linear-time LRAT checker (twin: the pure-Python reference in satdoku/cnf/lrat.py)
        Extension("satdoku.cnf._lrat", ["satdoku/cnf/_lrat.c"], extra_compile_args=["-O3"],
                  optional=True),
        # the solve stage's per-puzzle loop (its reference: the loop of satdoku/pipeline/stage_solve.py)
        Extension("satdoku.pipeline._batch", ["satdoku/pipeline/_batch.c"],
                  depends=["satdoku/cnf/decimal.h"], extra_compile_args=["-O3"], optional=True),
    ]
)
