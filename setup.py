"""Build step of satdoku: the compiled CDCL kernel (satdoku/solvers/_cdcl.c) and the compiled
pass of the DIMACS reader (satdoku/cnf/_dimacs.c).

Everything else is configured in pyproject.toml. Both extensions are optional: without a C
compiler or Python headers the install still succeeds and satdoku runs their Python forms
(slower, the same results): satdoku/solvers/cdcl_reference.py, the DIMACS reader's Python
engine.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "satdoku.solvers._cdcl",
            ["satdoku/solvers/_cdcl.c"],
            # no fused multiply-add: the same floating-point results as the Python reference
            extra_compile_args=["-O3", "-ffp-contract=off"],
            optional=True,
        ),
        # the DIMACS reader's compiled pass (engine "c" of satdoku/cnf/dimacs_fast.py)
        Extension("satdoku.cnf._dimacs", ["satdoku/cnf/_dimacs.c"], extra_compile_args=["-O3"],
                  optional=True),
    ]
)
