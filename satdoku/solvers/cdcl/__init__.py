"""Our CDCL solver, one package: ``driver`` (picks a kernel, loads, runs it before a deadline,
turns its answers into a status, model, statistics and proof), ``readable`` (the kernel written
for people: the same decisions as the C kernel, the tests' oracle and the fallback),
``simplify`` (preprocessing, readable form), ``params`` (the one table of policy parameters).
The C kernel is ``satdoku/solvers/_cdcl.c`` (module ``satdoku.solvers._cdcl``); the registry's
version hash covers this package and that file."""
