"""Build step of satdoku: the compiled CDCL kernel (satdoku/solvers/_cdcl.c).

Everything else is configured in pyproject.toml. The extension is optional: without a C
compiler or Python headers the install still succeeds and the cdcl solver falls back to the
numba (or plain Python) twin of the same kernel, satdoku/solvers/cdcl_kernel.py.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "satdoku.solvers._cdcl",
            ["satdoku/solvers/_cdcl.c"],
            # no fused multiply-add: the same floating-point results as the Python twin
            extra_compile_args=["-O3", "-ffp-contract=off"],
            optional=True,
        )
    ]
)
