"""A solver binary with a planted bug, for tests of `satdoku fuzz`: Debian's minisat answers,
this wrapper prints SAT-competition output and lies (or breaks) on one class of formulas.

    python3 lying_solver.py MODE FILE.cnf

MODE: honest; wide-unsat (UNSAT when a clause has 5 or more literals); flip (a model with
variable 3 flipped when some clause holds -3); both (every literal both ways when some
clause is two negative literals); crash (SIGSEGV on a tautology); exit (exit code 10 with
an UNSAT answer when a clause is a unit); garbage (a bad s line when a clause repeats a
literal); slow (sleeps 30 s when a clause has 5 or more literals).
"""

import os
import signal
import subprocess
import sys
import tempfile
import time


def main() -> int:
    mode, path = sys.argv[1], sys.argv[2]
    clauses, clause = [], []
    with open(path) as fh:
        for line in fh:
            if line.startswith(("c", "p")):
                continue
            for word in line.split():
                if int(word) == 0:
                    clauses.append(clause)
                    clause = []
                else:
                    clause.append(int(word))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result")
        subprocess.run(["minisat", "-verb=0", path, out], capture_output=True, check=False)
        with open(out) as fh:
            words = fh.read().split()
    sat = words[0] == "SAT"
    model = [int(w) for w in words[1:] if w != "0"]
    if mode == "slow" and any(len(c) >= 5 for c in clauses):
        time.sleep(30)
    if mode == "crash" and any(-x in c for c in clauses for x in c):
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "garbage" and any(len(set(c)) < len(c) for c in clauses):
        print("s SATISFIABL")
        return 10
    if mode == "wide-unsat" and any(len(c) >= 5 for c in clauses):
        sat = False
    if sat and mode == "flip" and any(-3 in c for c in clauses):
        model = [-x if abs(x) == 3 else x for x in model]
    if sat and mode == "both" and any(len(c) == 2 and max(c) < 0 for c in clauses):
        model = [y for x in model for y in (x, -x)]
    print("s SATISFIABLE" if sat else "s UNSATISFIABLE")
    if sat:
        print("v " + " ".join(map(str, [*model, 0])))
    if mode == "exit" and not sat and any(len(c) == 1 for c in clauses):
        return 10
    return 10 if sat else 20


if __name__ == "__main__":
    sys.exit(main())
