"""Two watched literals: the propagation step shared by the Python DPLL and the Python DRAT
checker.

``value[lit]`` is TRUE, FALSE or UNSET for both signs of a variable (``value[-lit]`` is the
opposite); ``watches[lit]`` lists the clauses (indices into ``clauses``) watching ``lit`` at
position 0 or 1 of the clause."""

from __future__ import annotations

from collections.abc import Callable, Sequence

TRUE, FALSE, UNSET = 1, -1, 0


def visit(false_lit: int, value: Sequence[int], watches: list[list[int]],
          clauses: Sequence[list[int]], assign: Callable[[int, int], None],
          alive: Sequence[bool] | None = None) -> list[int] | None:
    """Visit the clauses watching ``false_lit``, which has just become false: move each watch
    to a non-false literal, assign the other watch of a unit clause (``assign(literal,
    index of the clause)``: the index is its reason), and return the first conflicting clause
    (None if there is none). Clauses not ``alive`` lose their watch."""
    watching = watches[false_lit]
    watches[false_lit] = keep = []
    for k, index in enumerate(watching):
        if alive is not None and not alive[index]:
            continue  # deleted clause: drop the watch lazily
        clause = clauses[index]
        if clause[0] == false_lit:  # keep the false watch in position 1
            clause[0], clause[1] = clause[1], false_lit
        other = clause[0]
        if value[other] == TRUE:  # clause satisfied: nothing to do
            keep.append(index)
            continue
        for pos in range(2, len(clause)):  # look for a new literal to watch
            lit = clause[pos]
            if value[lit] != FALSE:
                clause[1], clause[pos] = lit, false_lit
                watches[lit].append(index)
                break
        else:  # no replacement: the clause is unit or conflicting
            keep.append(index)
            if value[other] == FALSE:
                keep.extend(watching[k + 1 :])
                return clause
            assign(other, index)
    return None
