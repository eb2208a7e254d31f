"""The CDCL inner loops over flat integer arrays: the readable reference of our CDCL.

Every function here is plain Python over numpy arrays; :func:`jit` compiles it with numba unless
the module is loaded in pure-Python mode (``SATDOKU_PURE_PYTHON=1``, or numba missing, or
:func:`satdoku.solvers.cdcl.load_kernel` with ``pure=True``). ``_cdcl.c`` (built at install
time) is a function-by-function C translation of this file; tests check that the C, numba and
plain-Python forms make the same decisions, step for step.

Representation (MiniSat-like):

* literal ``2*v + s`` for variable ``v`` (0-based) and sign ``s`` (1 = negative); ``l ^ 1``
  negates; ``lval[l]`` is +1 true, -1 false, 0 unassigned.
* clauses of three or more literals live in the arena ``arena`` (int32): at ``cref``: size,
  flags (1 learnt, 2 deleted), LBD, literals; the two watched literals are at positions 0 and 1,
  and a clause that implied a literal has that literal at position 0.
* watch lists live in one pool of (cref, blocker) pairs, one segment per literal (``woff``,
  ``wlen``, ``wcap``), relocated to the end of the pool when full and compacted when too much of
  the pool is wasted. ``watches[l]`` holds the clauses watching ``l``; they are visited when
  ``l`` becomes false, and the blocker (another literal of the clause) spares the arena access
  when it is true.
* binary clauses are not stored as clauses at all: ``bins[l]`` (a pool of literals with
  segments ``boff``, ``blen``, ``bcap``) lists the literals that must become true once ``l`` is
  false, and propagation walks these implications before the watches of ``l``. The reason of a
  literal implied by a binary clause is ``-2 - x`` for the other (false) literal ``x``; -1 means
  no reason (a decision or a top-level unit).
* scalar state in ``S`` (int64, ``S_*`` indices), policy parameters in ``P`` (int64, ``P_*``),
  the VSIDS increment and decay in ``F`` (float64).

:func:`search` runs until SAT, UNSAT, UNSAT under the assumptions, or a conflict / propagation
budget is spent, and can be called again to resume (the driver reads the clock in between).
Learnt clauses and deletions are logged to a proof buffer (tag 1 add / 2 delete, size, DIMACS
literals) when proofs are on.
"""

from __future__ import annotations

import os

import numpy as np

from satdoku.solvers.cdcl_params import (
    P_BLOCK_MIN,
    P_BLOCK_R_PCT,
    P_GLUCOSE_K_PCT,
    P_KEEP_LBD,
    P_LBDQ_LEN,
    P_LUBY_UNIT,
    P_REDUCE_FIRST,
    P_REDUCE_INC,
    P_SWITCH,
    P_TRAILQ_LEN,
)

_PURE = bool(globals().get("_PURE", os.environ.get("SATDOKU_PURE_PYTHON") == "1"))

if not _PURE:
    try:
        import numba

        jit = numba.njit(cache=True, nogil=True)
    except ImportError:  # pragma: no cover - depends on the environment
        _PURE = True
if _PURE:

    def jit(func):  # type: ignore[no-untyped-def]
        return func


PURE = _PURE

# --- state layout ------------------------------------------------------------------------------
S_N, S_TRAIL, S_QHEAD, S_DL, S_ATOP, S_WTOP, S_NLEARNTS, S_PTOP = 0, 1, 2, 3, 4, 5, 6, 7
S_CONFLICTS, S_DECISIONS, S_PROPS, S_RESTARTS, S_LEARNT, S_MAXLEVEL = 8, 9, 10, 11, 12, 13
S_STATUS, S_WASTED, S_WWASTED, S_HEAPSIZE, S_SINCE_RESTART, S_NEXT_REDUCE = 14, 15, 16, 17, 18, 19
S_REDUCES, S_LBDQ_N, S_LBDQ_HEAD, S_LUBY_I, S_PROOF, S_RESTART_MODE = 20, 21, 22, 23, 24, 25
S_STAMP, S_DELETED, S_MINIMISED, S_COLLECTS, S_LOADED, S_BTOP = 26, 27, 28, 29, 30, 31
S_BWASTED, S_CONFL_A, S_CONFL_B, S_LBD_SUM, S_LBDQ_SUM, S_TRAILQ_N = 32, 33, 34, 35, 36, 37
S_TRAILQ_HEAD, S_TRAILQ_SUM, S_BLOCKED, S_NPAIRS, S_STABLE, S_SWITCH_AT = 38, 39, 40, 41, 42, 43
S_SWITCHES = 44
S_SIZE = 48
F_VARINC, F_DECAY, F_SIZE = 0, 1, 4


LEARNT, DELETED = 1, 2
HDR = 3  # clause header words: size, flags, lbd
UNKNOWN, SAT, UNSAT, UNSAT_ASSUMED = 0, 10, 20, 30
RESTART_NONE, RESTART_LUBY, RESTART_GLUCOSE, RESTART_MIXED = 0, 1, 2, 3
NO_REASON, NO_CONFLICT, BINARY_CONFLICT = -1, -1, -2


# --- small helpers ------------------------------------------------------------------------------
@jit
def to_dimacs(lit):  # type: ignore[no-untyped-def]
    v = (lit >> 1) + 1
    return -v if lit & 1 else v


@jit
def grow_int32(arr, need):  # type: ignore[no-untyped-def]
    """``arr`` if it has ``need`` slots, else a copy at least twice as large."""
    if need <= arr.shape[0]:
        return arr
    size = max(need, 2 * arr.shape[0])
    out = np.zeros(size, dtype=np.int32)
    out[: arr.shape[0]] = arr
    return out


@jit
def proof_log(proof, S, tag, lits, count):  # type: ignore[no-untyped-def]
    """Append one proof step (tag, size, DIMACS literals); returns the (maybe grown) buffer."""
    top = S[S_PTOP]
    proof = grow_int32(proof, top + count + 2)
    proof[top] = tag
    proof[top + 1] = count
    for k in range(count):
        proof[top + 2 + k] = to_dimacs(lits[k])
    S[S_PTOP] = top + count + 2
    return proof


# --- watches and implications --------------------------------------------------------------------
@jit
def pool_room(pool, off, length, cap, S, top_slot, waste_slot, lit, width):  # type: ignore[no-untyped-def]
    """Make room for one more entry (``width`` ints) in the segment of ``lit``: a full segment
    moves to the end of the pool with twice the room. Returns the (maybe grown) pool."""
    n = length[lit]
    if n < cap[lit]:
        return pool
    new_cap = max(4, 2 * cap[lit])
    top = S[top_slot]
    pool = grow_int32(pool, top + width * new_cap)
    base = off[lit]
    for k in range(width * n):
        pool[top + k] = pool[base + k]
    S[waste_slot] += width * cap[lit]
    off[lit] = top
    cap[lit] = new_cap
    S[top_slot] = top + width * new_cap
    return pool


@jit
def watch_push(wpool, woff, wlen, wcap, S, lit, cref, blocker):  # type: ignore[no-untyped-def]
    """Append (cref, blocker) to the watch list of ``lit``; returns the (maybe grown) pool."""
    wpool = pool_room(wpool, woff, wlen, wcap, S, S_WTOP, S_WWASTED, lit, 2)
    pos = woff[lit] + 2 * wlen[lit]
    wpool[pos] = cref
    wpool[pos + 1] = blocker
    wlen[lit] += 1
    return wpool


@jit
def bin_push(bpool, boff, blen, bcap, S, a, b):  # type: ignore[no-untyped-def]
    """Store the binary clause (a or b): b is implied once a is false and vice versa."""
    bpool = pool_room(bpool, boff, blen, bcap, S, S_BTOP, S_BWASTED, a, 1)
    bpool[boff[a] + blen[a]] = b
    blen[a] += 1
    bpool = pool_room(bpool, boff, blen, bcap, S, S_BTOP, S_BWASTED, b, 1)
    bpool[boff[b] + blen[b]] = a
    blen[b] += 1
    return bpool


@jit
def compact_pool(pool, off, length, cap, S, top_slot, waste_slot, width, arena, watches):  # type: ignore[no-untyped-def]
    """Pack all segments of a pool (dropping watches of deleted clauses when ``watches``);
    returns the new pool."""
    nlits = off.shape[0]
    total = 0
    for lit in range(nlits):
        total += width * (length[lit] + 2)
    out = np.zeros(total + 16, dtype=np.int32)
    top = 0
    for lit in range(nlits):
        base = off[lit]
        off[lit] = top
        j = 0
        for i in range(length[lit]):
            if watches and arena[pool[base + width * i] + 1] & DELETED:
                continue
            for k in range(width):
                out[top + width * j + k] = pool[base + width * i + k]
            j += 1
        length[lit] = j
        cap[lit] = j + 2
        top += width * (j + 2)
    S[top_slot] = top
    S[waste_slot] = 0
    return out


# --- the VSIDS heap -----------------------------------------------------------------------------
@jit
def heap_up(heap, hpos, act, i):  # type: ignore[no-untyped-def]
    v = heap[i]
    a = act[v]
    while i > 0:
        parent = (i - 1) >> 1
        if act[heap[parent]] >= a:
            break
        heap[i] = heap[parent]
        hpos[heap[i]] = i
        i = parent
    heap[i] = v
    hpos[v] = i


@jit
def heap_down(heap, hpos, act, i, size):  # type: ignore[no-untyped-def]
    v = heap[i]
    a = act[v]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and act[heap[child + 1]] > act[heap[child]]:
            child += 1
        if act[heap[child]] <= a:
            break
        heap[i] = heap[child]
        hpos[heap[i]] = i
        i = child
    heap[i] = v
    hpos[v] = i


@jit
def heap_insert(heap, hpos, act, S, v):  # type: ignore[no-untyped-def]
    if hpos[v] >= 0:
        return
    size = S[S_HEAPSIZE]
    heap[size] = v
    hpos[v] = size
    S[S_HEAPSIZE] = size + 1
    heap_up(heap, hpos, act, size)


@jit
def heap_pop(heap, hpos, act, S):  # type: ignore[no-untyped-def]
    size = S[S_HEAPSIZE] - 1
    top = heap[0]
    hpos[top] = -1
    S[S_HEAPSIZE] = size
    if size > 0:
        heap[0] = heap[size]
        hpos[heap[0]] = 0
        heap_down(heap, hpos, act, 0, size)
    return top


@jit
def bump(v, act, heap, hpos, F):  # type: ignore[no-untyped-def]
    """EVSIDS: add the (exponentially growing) increment; rescale before overflow."""
    act[v] += F[F_VARINC]
    if act[v] > 1e100:
        for k in range(act.shape[0]):
            act[k] *= 1e-100
        F[F_VARINC] *= 1e-100
    if hpos[v] >= 0:
        heap_up(heap, hpos, act, hpos[v])


# --- assignment, propagation, backtracking -------------------------------------------------------
@jit
def enqueue(lit, reason_ref, lval, level, reason, trail, S):  # type: ignore[no-untyped-def]
    lval[lit] = 1
    lval[lit ^ 1] = -1
    v = lit >> 1
    level[v] = S[S_DL]
    reason[v] = reason_ref
    trail[S[S_TRAIL]] = lit
    S[S_TRAIL] += 1


@jit
def propagate(lval, level, reason, trail, arena, wpool, woff, wlen, wcap, bpool, boff, blen, S):  # type: ignore[no-untyped-def]
    """Unit propagation, implications of binary clauses first, then the watches of each
    literal made false. Returns (conflicting cref, NO_CONFLICT, or BINARY_CONFLICT with the
    clause in S_CONFL_A / S_CONFL_B; the watch pool)."""
    confl = NO_CONFLICT
    props = 0
    while S[S_QHEAD] < S[S_TRAIL]:
        p = trail[S[S_QHEAD]]
        S[S_QHEAD] += 1
        props += 1
        fl = p ^ 1  # the literal that just became false
        base = boff[fl]
        for i in range(blen[fl]):
            other = bpool[base + i]
            val = lval[other]
            if val == 1:
                continue
            if val == -1:
                S[S_CONFL_A] = fl
                S[S_CONFL_B] = other
                confl = BINARY_CONFLICT
                break
            enqueue(other, -2 - fl, lval, level, reason, trail, S)
        if confl != NO_CONFLICT:
            S[S_QHEAD] = S[S_TRAIL]
            break
        base = woff[fl]
        n = wlen[fl]
        i = 0
        j = 0
        while i < n:
            cref = wpool[base + 2 * i]
            blocker = wpool[base + 2 * i + 1]
            i += 1
            if lval[blocker] == 1:  # satisfied by the blocker: no arena access
                wpool[base + 2 * j] = cref
                wpool[base + 2 * j + 1] = blocker
                j += 1
                continue
            if arena[cref + 1] & DELETED:  # lazily drop watches of deleted clauses
                continue
            c0 = cref + HDR
            if arena[c0] == fl:  # keep the false literal in position 1
                arena[c0] = arena[c0 + 1]
                arena[c0 + 1] = fl
            first = arena[c0]
            if first != blocker and lval[first] == 1:
                wpool[base + 2 * j] = cref
                wpool[base + 2 * j + 1] = first
                j += 1
                continue
            size = arena[cref]
            moved = False
            for k in range(2, size):
                lit = arena[c0 + k]
                if lval[lit] != -1:
                    arena[c0 + 1] = lit
                    arena[c0 + k] = fl
                    # lit is not fl: only another literal's segment can move
                    wpool = watch_push(wpool, woff, wlen, wcap, S, lit, cref, first)
                    moved = True
                    break
            if moved:
                continue
            wpool[base + 2 * j] = cref
            wpool[base + 2 * j + 1] = first
            j += 1
            if lval[first] == -1:
                confl = cref
                break
            enqueue(first, cref, lval, level, reason, trail, S)
        if confl != NO_CONFLICT:  # keep the watches not visited yet
            while i < n:
                wpool[base + 2 * j] = wpool[base + 2 * i]
                wpool[base + 2 * j + 1] = wpool[base + 2 * i + 1]
                i += 1
                j += 1
            S[S_QHEAD] = S[S_TRAIL]
        wlen[fl] = j
        if confl != NO_CONFLICT:
            break
    S[S_PROPS] += props
    return confl, wpool


@jit
def backtrack(to_level, lval, reason, trail, trail_lim, phase, heap, hpos, act, S):  # type: ignore[no-untyped-def]
    """Undo every level above ``to_level``, saving phases and refilling the heap."""
    if S[S_DL] <= to_level:
        return
    stop = trail_lim[to_level]
    for k in range(S[S_TRAIL] - 1, stop - 1, -1):
        lit = trail[k]
        v = lit >> 1
        lval[lit] = 0
        lval[lit ^ 1] = 0
        reason[v] = NO_REASON
        phase[v] = lit & 1
        heap_insert(heap, hpos, act, S, v)
    S[S_TRAIL] = stop
    S[S_QHEAD] = stop
    S[S_DL] = to_level


# --- conflict analysis ---------------------------------------------------------------------------
@jit
def reason_lits(ref, implied, arena, pair):  # type: ignore[no-untyped-def]
    """(array, start, size) of the literals of a reason or conflict: an arena clause, or the
    binary clause (implied, -2 - ref) written into ``pair``."""
    if ref >= 0:
        return arena, int(ref + HDR), int(arena[ref])
    pair[0] = implied
    pair[1] = -2 - ref
    return pair, 0, 2


@jit
def lit_redundant(p, abstract, arena, reason, level, seen, stack, toclear, ntoclear, pair):  # type: ignore[no-untyped-def]
    """MiniSat's recursive minimisation, with an explicit stack: is ``p`` implied by the other
    literals of the learnt clause? Returns (redundant, new toclear length)."""
    top = ntoclear
    sp = 0
    stack[sp] = p
    sp += 1
    while sp > 0:
        sp -= 1
        q = stack[sp]
        lits, start, size = reason_lits(reason[q >> 1], q ^ 1, arena, pair)
        for k in range(size):
            lit = lits[start + k]
            v = lit >> 1
            if v == (q >> 1) or seen[v] or level[v] == 0:
                continue
            if reason[v] != NO_REASON and (abstract & (1 << (level[v] & 31))) != 0:
                seen[v] = 1
                stack[sp] = lit
                sp += 1
                toclear[ntoclear] = lit
                ntoclear += 1
            else:
                for m in range(top, ntoclear):
                    seen[toclear[m] >> 1] = 0
                return False, top
    return True, ntoclear


@jit
def analyze(
    confl,
    arena,
    lval,
    level,
    reason,
    trail,
    seen,
    act,
    heap,
    hpos,
    F,
    S,
    out,
    stack,
    toclear,
    stamp,
    pair,
):  # type: ignore[no-untyped-def]
    """1-UIP learning with recursive minimisation. Fills ``out`` (asserting literal first, a
    literal of the backjump level second); returns (size, backjump level, LBD)."""
    dl = S[S_DL]
    pathc = 0
    p = -1
    size = 1
    idx = S[S_TRAIL] - 1
    if confl == BINARY_CONFLICT:
        pair[0] = S[S_CONFL_A]
        pair[1] = S[S_CONFL_B]
        lits, start, csize = pair, 0, 2
    else:
        lits, start, csize = arena, int(confl + HDR), int(arena[confl])
    while True:
        for k in range(csize):
            q = lits[start + k]
            v = q >> 1
            if p >= 0 and v == (p >> 1):
                continue
            if seen[v] == 0 and level[v] > 0:
                bump(v, act, heap, hpos, F)
                seen[v] = 1
                if level[v] >= dl:
                    pathc += 1
                else:
                    out[size] = q
                    size += 1
        while seen[trail[idx] >> 1] == 0:
            idx -= 1
        p = trail[idx]
        idx -= 1
        seen[p >> 1] = 0
        pathc -= 1
        if pathc <= 0:
            break
        lits, start, csize = reason_lits(reason[p >> 1], p, arena, pair)
    out[0] = p ^ 1
    # minimisation: drop literals implied by the rest of the clause
    abstract = 0
    for k in range(1, size):
        abstract |= 1 << (level[out[k] >> 1] & 31)
    ntoclear = 0
    for k in range(1, size):
        toclear[ntoclear] = out[k]
        ntoclear += 1
    j = 1
    before = size
    for k in range(1, size):
        lit = out[k]
        if reason[lit >> 1] == NO_REASON:
            out[j] = lit
            j += 1
        else:
            redundant, ntoclear = lit_redundant(
                lit, abstract, arena, reason, level, seen, stack, toclear, ntoclear, pair
            )
            if not redundant:
                out[j] = lit
                j += 1
    size = j
    S[S_MINIMISED] += before - size
    for k in range(ntoclear):
        seen[toclear[k] >> 1] = 0
    # backjump level: the highest level below the conflict level, its literal at position 1
    back = 0
    if size > 1:
        best = 1
        for k in range(2, size):
            if level[out[k] >> 1] > level[out[best] >> 1]:
                best = k
        tmp = out[1]
        out[1] = out[best]
        out[best] = tmp
        back = level[out[1] >> 1]
    # literal block distance: number of distinct decision levels
    S[S_STAMP] += 1
    mark = S[S_STAMP]
    lbd = 0
    for k in range(size):
        lv = level[out[k] >> 1]
        if stamp[lv] != mark:
            stamp[lv] = mark
            lbd += 1
    return size, back, lbd


# --- clause database -----------------------------------------------------------------------------
@jit
def add_clause(arena, S, lits, count, learnt, lbd):  # type: ignore[no-untyped-def]
    """Store a clause in the arena; returns (cref, arena)."""
    top = S[S_ATOP]
    arena = grow_int32(arena, top + HDR + count)
    arena[top] = count
    arena[top + 1] = LEARNT if learnt else 0
    arena[top + 2] = lbd
    for k in range(count):
        arena[top + HDR + k] = lits[k]
    S[S_ATOP] = top + HDR + count
    return top, arena


@jit
def reduce_db(arena, learnts, lval, reason, S, P, proof, tmp):  # type: ignore[no-untyped-def]
    """Delete the worse half of the learnt clauses (by LBD, then size), keeping glue clauses
    (LBD <= P_KEEP_LBD) and clauses that are reasons of current assignments. Returns the proof
    buffer."""
    n = S[S_NLEARNTS]
    keys = np.empty(n, dtype=np.int64)
    for k in range(n):
        cref = learnts[k]
        keys[k] = -(np.int64(arena[cref + 2]) * 1000000 + arena[cref])  # worst (largest) first
    order = np.argsort(keys, kind="mergesort")
    limit = n // 2
    removed = 0
    for idx in range(n):
        if removed >= limit:
            break
        cref = learnts[order[idx]]
        if arena[cref + 2] <= P[P_KEEP_LBD]:
            continue
        first = arena[cref + HDR]
        if lval[first] == 1 and reason[first >> 1] == cref:
            continue  # locked: the reason of an assignment
        arena[cref + 1] |= DELETED
        S[S_WASTED] += HDR + arena[cref]
        S[S_DELETED] += 1
        removed += 1
        if S[S_PROOF]:
            size = arena[cref]
            for k in range(size):
                tmp[k] = arena[cref + HDR + k]
            proof = proof_log(proof, S, 2, tmp, size)
    j = 0
    for k in range(n):
        cref = learnts[k]
        if not arena[cref + 1] & DELETED:
            learnts[j] = cref
            j += 1
    S[S_NLEARNTS] = j
    S[S_REDUCES] += 1
    return proof


@jit
def collect_garbage(arena, learnts, reason, trail, wpool, woff, wlen, wcap, S):  # type: ignore[no-untyped-def]
    """Compact the arena (dropping deleted clauses) and remap watches, reasons and learnts.
    Returns (arena, watch pool)."""
    wpool = compact_pool(wpool, woff, wlen, wcap, S, S_WTOP, S_WWASTED, 2, arena, True)
    old_top = S[S_ATOP]
    out = np.zeros(old_top - S[S_WASTED] + 1024, dtype=np.int32)
    top = 0
    cref = 0
    while cref < old_top:
        size = arena[cref]
        if not arena[cref + 1] & DELETED:
            for k in range(HDR + size):
                out[top + k] = arena[cref + k]
            arena[cref + 2] = top  # forwarding address (the old copy is dropped after this)
            top += HDR + size
        cref += HDR + size
    for k in range(S[S_TRAIL]):
        v = trail[k] >> 1
        if reason[v] >= 0:
            reason[v] = arena[reason[v] + 2]
    for lit in range(woff.shape[0]):
        base = woff[lit]
        for i in range(wlen[lit]):
            wpool[base + 2 * i] = arena[wpool[base + 2 * i] + 2]
    for k in range(S[S_NLEARNTS]):
        learnts[k] = arena[learnts[k] + 2]
    S[S_ATOP] = top
    S[S_WASTED] = 0
    S[S_COLLECTS] += 1
    return out, wpool


# --- loading -------------------------------------------------------------------------------------
# Loading works in two passes, each in chunks (the driver reads the clock in between): clauses
# are normalised into the arena (three or more literals) and a staging list of pairs (binary
# clauses), counting what every literal's lists will hold; then the lists are laid out once and
# filled in input order (what attaching clause by clause would give).
@jit
def load_clauses(lits, arena, pairs, lval, level, reason, trail, S, mark, wcount, bcount, tmp):  # type: ignore[no-untyped-def]
    """Normalise whole flat 0-terminated DIMACS clauses: drop repeated literals and tautologies,
    queue units, store the rest. An empty clause or two opposite units set the status to UNSAT.
    Returns (arena, pairs), maybe grown."""
    n = lits.shape[0]
    start = 0
    clause_no = S[S_LOADED]
    while start < n:
        end = start
        while lits[end] != 0:
            end += 1
        clause_no += 1
        size = 0
        taut = False
        for k in range(start, end):
            d = lits[k]
            v = abs(d) - 1
            lit = 2 * v + (1 if d < 0 else 0)
            if mark[v] == clause_no * 2 + (lit & 1):
                continue  # repeated literal
            if mark[v] == clause_no * 2 + ((lit & 1) ^ 1):
                taut = True
                break
            mark[v] = clause_no * 2 + (lit & 1)
            tmp[size] = lit
            size += 1
        start = end + 1
        if taut:
            continue
        if size == 0:
            S[S_STATUS] = UNSAT
        elif size == 1:
            lit = tmp[0]
            if lval[lit] == -1:
                S[S_STATUS] = UNSAT
            elif lval[lit] == 0:
                enqueue(lit, NO_REASON, lval, level, reason, trail, S)
        elif size == 2:
            top = S[S_NPAIRS]
            pairs = grow_int32(pairs, 2 * top + 2)
            pairs[2 * top] = tmp[0]
            pairs[2 * top + 1] = tmp[1]
            S[S_NPAIRS] = top + 1
            bcount[tmp[0]] += 1
            bcount[tmp[1]] += 1
        else:
            _, arena = add_clause(arena, S, tmp, size, False, 0)
            wcount[tmp[0]] += 1
            wcount[tmp[1]] += 1
    S[S_LOADED] = clause_no
    return arena, pairs


@jit
def layout(count, off, length, cap, width, S, top_slot):  # type: ignore[no-untyped-def]
    """One segment per literal, sized for its counted entries plus room to grow. Returns the
    new pool."""
    top = 0
    for lit in range(count.shape[0]):
        off[lit] = top
        cap[lit] = count[lit] + 4
        length[lit] = 0
        top += width * cap[lit]
    S[top_slot] = top
    return np.zeros(top + 16, dtype=np.int32)


@jit
def attach_pairs(pairs, first, stop, bpool, boff, blen):  # type: ignore[no-untyped-def]
    """Implications of the staged binary clauses ``first`` .. ``stop - 1`` (segments already
    sized). Returns the next pair."""
    k = first
    while k < stop:
        a = pairs[2 * k]
        b = pairs[2 * k + 1]
        bpool[boff[a] + blen[a]] = b
        blen[a] += 1
        bpool[boff[b] + blen[b]] = a
        blen[b] += 1
        k += 1
    return k


@jit
def attach_clauses(arena, cref, stop, wpool, woff, wlen):  # type: ignore[no-untyped-def]
    """Watch the first two literals of the clauses stored from ``cref`` up to arena word
    ``stop`` (segments already sized). Returns the next cref."""
    while cref < stop:
        a = arena[cref + HDR]
        b = arena[cref + HDR + 1]
        wpool[woff[a] + 2 * wlen[a]] = cref
        wpool[woff[a] + 2 * wlen[a] + 1] = b
        wlen[a] += 1
        wpool[woff[b] + 2 * wlen[b]] = cref
        wpool[woff[b] + 2 * wlen[b] + 1] = a
        wlen[b] += 1
        cref += HDR + arena[cref]
    return cref


# --- the search ----------------------------------------------------------------------------------
@jit
def luby(i):  # type: ignore[no-untyped-def]
    """The Luby sequence 1 1 2 1 1 2 4 ... (0-based index)."""
    size = 1
    seq = 0
    while size < i + 1:
        seq += 1
        size = 2 * size + 1
    x = i
    while size - 1 != x:
        size = (size - 1) >> 1
        seq -= 1
        x = x % size
    return 1 << seq


@jit
def search(
    arena,
    wpool,
    woff,
    wlen,
    wcap,
    bpool,
    boff,
    blen,
    bcap,
    lval,
    level,
    reason,
    trail,
    trail_lim,
    phase,
    act,
    heap,
    hpos,
    seen,
    learnts,
    proof,
    lbdq,
    trailq,
    out,
    stack,
    toclear,
    stamp,
    pair,
    S,
    P,
    F,
    assumps,
    nassumps,
    max_conflicts,
    max_props,
):  # type: ignore[no-untyped-def]
    """CDCL until SAT / UNSAT / budget spent, under the first ``nassumps`` literals of
    ``assumps`` as assumptions: all on decision level 1, the first decision (UNSAT_ASSUMED:
    the formula implies their negation; learnt clauses are consequences of the formula alone,
    so they stay valid for later calls). Returns (status, arena, wpool, bpool, learnts,
    proof)."""
    conflicts_at_start = S[S_CONFLICTS]
    props_at_start = S[S_PROPS]
    while True:
        confl, wpool = propagate(
            lval, level, reason, trail, arena, wpool, woff, wlen, wcap, bpool, boff, blen, S
        )
        if confl != NO_CONFLICT:
            S[S_CONFLICTS] += 1
            S[S_SINCE_RESTART] += 1
            if S[S_DL] == 0:
                if S[S_PROOF]:
                    proof = proof_log(proof, S, 1, out, 0)
                S[S_STATUS] = UNSAT
                return UNSAT, arena, wpool, bpool, learnts, proof
            if S[S_DL] == 1 and nassumps > 0:  # the assumptions alone conflict
                return UNSAT_ASSUMED, arena, wpool, bpool, learnts, proof
            mode = S[S_RESTART_MODE]
            if mode == RESTART_GLUCOSE or (mode == RESTART_MIXED and not S[S_STABLE]):
                # glucose: block a restart while the trail is much longer than usual
                qlen = P[P_TRAILQ_LEN]
                if S[S_TRAILQ_N] == qlen:
                    S[S_TRAILQ_SUM] -= trailq[S[S_TRAILQ_HEAD]]
                else:
                    S[S_TRAILQ_N] += 1
                trailq[S[S_TRAILQ_HEAD]] = S[S_TRAIL]
                S[S_TRAILQ_SUM] += S[S_TRAIL]
                S[S_TRAILQ_HEAD] = (S[S_TRAILQ_HEAD] + 1) % qlen
                if (
                    S[S_CONFLICTS] > P[P_BLOCK_MIN]
                    and S[S_LBDQ_N] == P[P_LBDQ_LEN]
                    and S[S_TRAILQ_N] == qlen
                    and 100 * S[S_TRAIL] * qlen > P[P_BLOCK_R_PCT] * S[S_TRAILQ_SUM]
                ):
                    S[S_LBDQ_N] = 0
                    S[S_LBDQ_SUM] = 0
                    S[S_BLOCKED] += 1
            size, back, lbd = analyze(
                confl, arena, lval, level, reason, trail, seen, act, heap, hpos, F, S,
                out, stack, toclear, stamp, pair,
            )  # fmt: skip
            backtrack(back, lval, reason, trail, trail_lim, phase, heap, hpos, act, S)
            if S[S_PROOF]:
                proof = proof_log(proof, S, 1, out, size)
            S[S_LEARNT] += 1
            if size == 1:
                enqueue(out[0], NO_REASON, lval, level, reason, trail, S)
            elif size == 2:
                bpool = bin_push(bpool, boff, blen, bcap, S, out[0], out[1])
                enqueue(out[0], -2 - out[1], lval, level, reason, trail, S)
            else:
                cref, arena = add_clause(arena, S, out, size, True, lbd)
                wpool = watch_push(wpool, woff, wlen, wcap, S, out[0], cref, out[1])
                wpool = watch_push(wpool, woff, wlen, wcap, S, out[1], cref, out[0])
                learnts = grow_int32(learnts, S[S_NLEARNTS] + 1)
                learnts[S[S_NLEARNTS]] = cref
                S[S_NLEARNTS] += 1
                enqueue(out[0], cref, lval, level, reason, trail, S)
            F[F_VARINC] /= F[F_DECAY]
            # glucose bookkeeping: recent LBDs against the global average
            S[S_LBD_SUM] += lbd
            qlen = P[P_LBDQ_LEN]
            if S[S_LBDQ_N] == qlen:
                S[S_LBDQ_SUM] -= lbdq[S[S_LBDQ_HEAD]]
            else:
                S[S_LBDQ_N] += 1
            lbdq[S[S_LBDQ_HEAD]] = lbd
            S[S_LBDQ_SUM] += lbd
            S[S_LBDQ_HEAD] = (S[S_LBDQ_HEAD] + 1) % qlen
            continue
        # no conflict: restart? reduce? budget? then decide
        mode = S[S_RESTART_MODE]
        if mode == RESTART_MIXED and S[S_CONFLICTS] >= S[S_SWITCH_AT]:
            # mixed: focused (glucose) and stable (Luby) phases alternate, each longer
            S[S_STABLE] = 1 - S[S_STABLE]
            S[S_SWITCHES] += 1
            S[S_SWITCH_AT] = S[S_CONFLICTS] + P[P_SWITCH] * (S[S_SWITCHES] + 1)
            S[S_SINCE_RESTART] = 0
            S[S_LBDQ_N] = 0
            S[S_LBDQ_SUM] = 0
        restart = False
        if mode == RESTART_LUBY or (mode == RESTART_MIXED and S[S_STABLE]):
            restart = S[S_SINCE_RESTART] >= P[P_LUBY_UNIT] * luby(S[S_LUBY_I])
        elif mode != RESTART_NONE:
            # recent average LBD * K > global average, in integers
            restart = S[S_LBDQ_N] == P[P_LBDQ_LEN] and (
                S[S_LBDQ_SUM] * P[P_GLUCOSE_K_PCT] * S[S_CONFLICTS]
                > 100 * S[S_LBD_SUM] * P[P_LBDQ_LEN]
            )
        if restart:  # (keeping the assumptions' level)
            backtrack(1 if nassumps > 0 else 0, lval, reason, trail, trail_lim, phase, heap,
                      hpos, act, S)  # fmt: skip
            S[S_RESTARTS] += 1
            S[S_LUBY_I] += 1
            S[S_SINCE_RESTART] = 0
            S[S_LBDQ_N] = 0
            S[S_LBDQ_SUM] = 0
        if S[S_CONFLICTS] >= S[S_NEXT_REDUCE]:
            S[S_NEXT_REDUCE] = (
                S[S_CONFLICTS] + P[P_REDUCE_FIRST] + (S[S_REDUCES] + 1) * P[P_REDUCE_INC]
            )
            proof = reduce_db(arena, learnts, lval, reason, S, P, proof, toclear)
            if S[S_WASTED] * 2 > S[S_ATOP]:
                arena, wpool = collect_garbage(
                    arena, learnts, reason, trail, wpool, woff, wlen, wcap, S
                )
        if S[S_WWASTED] > S[S_WTOP] // 2 + 1024:
            wpool = compact_pool(wpool, woff, wlen, wcap, S, S_WTOP, S_WWASTED, 2, arena, True)
        if S[S_BWASTED] > S[S_BTOP] // 2 + 1024:
            bpool = compact_pool(bpool, boff, blen, bcap, S, S_BTOP, S_BWASTED, 1, arena, False)
        if (
            S[S_CONFLICTS] - conflicts_at_start >= max_conflicts
            or S[S_PROPS] - props_at_start >= max_props
        ):
            return UNKNOWN, arena, wpool, bpool, learnts, proof
        # decide: the assumptions first, all of them on decision level 1 (a false one ends the
        # call; restarts keep that level), then the most active unassigned variable, in its
        # saved phase
        if S[S_DL] == 0 and nassumps > 0:
            trail_lim[0] = S[S_TRAIL]
            S[S_DL] = 1
            for k in range(nassumps):
                p = assumps[k]
                if lval[p] == -1:
                    return UNSAT_ASSUMED, arena, wpool, bpool, learnts, proof
                if lval[p] == 0:
                    enqueue(p, NO_REASON, lval, level, reason, trail, S)
            continue
        nxt = -1
        while S[S_HEAPSIZE] > 0:
            v = heap_pop(heap, hpos, act, S)
            if lval[2 * v] == 0:
                nxt = 2 * v + phase[v]
                break
        if nxt < 0:
            return SAT, arena, wpool, bpool, learnts, proof
        S[S_DECISIONS] += 1
        trail_lim[S[S_DL]] = S[S_TRAIL]
        S[S_DL] += 1
        if S[S_DL] > S[S_MAXLEVEL]:
            S[S_MAXLEVEL] = S[S_DL]
        enqueue(nxt, NO_REASON, lval, level, reason, trail, S)
    return UNKNOWN, arena, wpool, bpool, learnts, proof
