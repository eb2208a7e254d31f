"""Our CDCL solver, one package: ``driver`` (picks a kernel, loads, runs it before a deadline,
turns its answers into a status, model, statistics and proof), ``readable`` (the kernel written
for people: the same decisions as the C kernel, the tests' oracle and the fallback),
``simplify`` (preprocessing, readable form), ``params`` (the one table of policy parameters),
``adapter`` (the solver behind the pipeline's CnfSolver protocol: ``make_cdcl``).
``kernel.c`` is the C kernel (search, preprocessing, proofs; ``kernel.h`` its state and calls),
``_cdcl.c`` its CPython binding: setup.py builds the two into module
``satdoku.solvers.cdcl._cdcl``. The registry's version hash covers every source file of this
package."""
