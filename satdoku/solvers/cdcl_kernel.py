"""The CDCL inner loops over flat integer arrays, compiled with numba (``cache=True``).

Every function here is plain Python over numpy arrays; :func:`jit` compiles it with numba unless
the module is loaded in pure-Python mode (``SATDOKU_PURE_PYTHON=1``, or numba missing, or
:func:`satdoku.solvers.cdcl.load_kernel` with ``pure=True``). The same source is therefore both
the fast solver and its readable, debuggable fallback, and tests cross-check the two.

Representation (MiniSat-like):

* literal ``2*v + s`` for variable ``v`` (0-based) and sign ``s`` (1 = negative); ``l ^ 1``
  negates; ``lval[l]`` is +1 true, -1 false, 0 unassigned.
* clause arena ``arena`` (int32): at ``cref``: size, flags (1 learnt, 2 deleted), LBD, literals.
  The two watched literals are at positions 0 and 1; a reason clause is found by ``reason[v]``.
* watch lists live in one pool of (cref, blocker) pairs, one segment per literal (``woff``,
  ``wlen``, ``wcap``), relocated to the end of the pool when full and compacted when reduced.
  ``watches[l]`` holds the clauses watching ``l``; they are visited when ``l`` becomes false.
  Binary clauses need no arena access: their blocker is the other literal.
* scalar state in ``S`` (int64) and ``F`` (float64), indexed by the ``S_*`` / ``F_*`` constants.

:func:`search` runs until SAT, UNSAT, or a conflict / propagation budget is spent, and can be
called again to resume (the driver checks the clock in between). Learnt clauses and deletions
are logged to a proof buffer (tag 1 add / 2 delete, size, DIMACS literals) when proofs are on.
"""

from __future__ import annotations

import os

import numpy as np

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
S_STAMP, S_DELETED, S_MINIMISED, S_COLLECTS, S_REDUCE_INC, S_REDUCE_FIRST = 26, 27, 28, 29, 30, 31
S_LOADED = 32  # clauses read so far by load_clauses (numbers them for the duplicate check)
S_SIZE = 40
F_VARINC, F_LBD_SUM, F_LBDQ_SUM, F_DECAY, F_SIZE = 0, 1, 2, 3, 8

LEARNT, DELETED = 1, 2
HDR = 3  # clause header words: size, flags, lbd
UNKNOWN, SAT, UNSAT, UNSAT_ASSUMED = 0, 10, 20, 30
RESTART_NONE, RESTART_LUBY, RESTART_GLUCOSE = 0, 1, 2
LUBY_UNIT = 100  # conflicts per Luby unit
LBDQ_LEN = 50  # glucose: recent-LBD window
GLUCOSE_K = 0.8  # glucose: restart when recent LBD * K > average LBD
REDUCE_FIRST, REDUCE_INC = 2000, 300  # glucose-style clause-database reduction schedule:
# the first reduction after REDUCE_FIRST conflicts, the (k+1)-th REDUCE_FIRST + k * REDUCE_INC
# conflicts after the k-th


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


# --- watches ------------------------------------------------------------------------------------
@jit
def watch_push(wpool, woff, wlen, wcap, S, lit, cref, blocker):  # type: ignore[no-untyped-def]
    """Append (cref, blocker) to the watch list of ``lit``; returns the (maybe grown) pool."""
    n = wlen[lit]
    if n == wcap[lit]:  # relocate the segment to the end of the pool with twice the room
        cap = max(4, 2 * wcap[lit])
        top = S[S_WTOP]
        wpool = grow_int32(wpool, top + 2 * cap)
        base = woff[lit]
        for k in range(2 * n):
            wpool[top + k] = wpool[base + k]
        S[S_WWASTED] += 2 * wcap[lit]
        woff[lit] = top
        wcap[lit] = cap
        S[S_WTOP] = top + 2 * cap
    pos = woff[lit] + 2 * n
    wpool[pos] = cref
    wpool[pos + 1] = blocker
    wlen[lit] = n + 1
    return wpool


@jit
def compact_watches(wpool, woff, wlen, wcap, arena, S):  # type: ignore[no-untyped-def]
    """Drop watches of deleted clauses and pack all segments; returns the new pool."""
    nlits = woff.shape[0]
    total = 0
    for lit in range(nlits):
        total += 2 * (wlen[lit] + 2)
    out = np.zeros(total + 16, dtype=np.int32)
    top = 0
    for lit in range(nlits):
        base = woff[lit]
        woff[lit] = top
        j = 0
        for i in range(wlen[lit]):
            cref = wpool[base + 2 * i]
            if arena[cref + 1] & DELETED:
                continue
            out[top + 2 * j] = cref
            out[top + 2 * j + 1] = wpool[base + 2 * i + 1]
            j += 1
        wlen[lit] = j
        wcap[lit] = j + 2
        top += 2 * (j + 2)
    S[S_WTOP] = top
    S[S_WWASTED] = 0
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
def enqueue(lit, cref, lval, level, reason, trail, S):  # type: ignore[no-untyped-def]
    lval[lit] = 1
    lval[lit ^ 1] = -1
    v = lit >> 1
    level[v] = S[S_DL]
    reason[v] = cref
    trail[S[S_TRAIL]] = lit
    S[S_TRAIL] += 1


@jit
def propagate(lval, level, reason, trail, arena, wpool, woff, wlen, wcap, S):  # type: ignore[no-untyped-def]
    """Unit propagation; returns (conflicting cref or -1, watch pool)."""
    confl = -1
    props = 0
    while S[S_QHEAD] < S[S_TRAIL] and confl < 0:
        p = trail[S[S_QHEAD]]
        S[S_QHEAD] += 1
        props += 1
        fl = p ^ 1  # the literal that just became false
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
            size = arena[cref]
            if size == 2:  # binary clause: the blocker is the other literal
                wpool[base + 2 * j] = cref
                wpool[base + 2 * j + 1] = blocker
                j += 1
                if lval[blocker] == -1:
                    confl = cref
                    break
                enqueue(blocker, cref, lval, level, reason, trail, S)
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
            moved = False
            for k in range(2, size):
                lit = arena[c0 + k]
                if lval[lit] != -1:
                    arena[c0 + 1] = lit
                    arena[c0 + k] = fl
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
        if confl >= 0:  # keep the watches not visited yet
            while i < n:
                wpool[base + 2 * j] = wpool[base + 2 * i]
                wpool[base + 2 * j + 1] = wpool[base + 2 * i + 1]
                i += 1
                j += 1
            S[S_QHEAD] = S[S_TRAIL]
        wlen[fl] = j
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
        reason[v] = -1
        phase[v] = lit & 1
        heap_insert(heap, hpos, act, S, v)
    S[S_TRAIL] = stop
    S[S_QHEAD] = stop
    S[S_DL] = to_level


# --- conflict analysis ---------------------------------------------------------------------------
@jit
def lit_redundant(p, abstract, arena, reason, level, seen, stack, toclear, ntoclear):  # type: ignore[no-untyped-def]
    """MiniSat's recursive minimisation, with an explicit stack: is ``p`` implied by the other
    literals of the learnt clause? Returns (redundant, new toclear length)."""
    top = ntoclear
    sp = 0
    stack[sp] = p
    sp += 1
    while sp > 0:
        sp -= 1
        q = stack[sp]
        cref = reason[q >> 1]
        size = arena[cref]
        for k in range(size):
            lit = arena[cref + HDR + k]
            v = lit >> 1
            if v == (q >> 1) or seen[v] or level[v] == 0:
                continue
            if reason[v] >= 0 and (abstract & (1 << (level[v] & 31))) != 0:
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
):  # type: ignore[no-untyped-def]
    """1-UIP learning with recursive minimisation. Fills ``out`` (asserting literal first, a
    literal of the backjump level second); returns (size, backjump level, LBD)."""
    dl = S[S_DL]
    pathc = 0
    p = -1
    size = 1
    idx = S[S_TRAIL] - 1
    cref = confl
    while True:
        csize = arena[cref]
        for k in range(csize):
            q = arena[cref + HDR + k]
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
        cref = reason[p >> 1]
        seen[p >> 1] = 0
        pathc -= 1
        if pathc <= 0:
            break
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
        if reason[lit >> 1] < 0:
            out[j] = lit
            j += 1
        else:
            redundant, ntoclear = lit_redundant(
                lit, abstract, arena, reason, level, seen, stack, toclear, ntoclear
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
def reduce_db(arena, learnts, lval, reason, S, proof, tmp):  # type: ignore[no-untyped-def]
    """Delete the worse half of the learnt clauses (by LBD, then size), keeping glue clauses
    (LBD <= 2) and clauses that are reasons of current assignments. Returns the proof buffer."""
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
        if arena[cref + 2] <= 2:
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
def collect_garbage(arena, learnts, reason, lval, trail, wpool, woff, wlen, wcap, S):  # type: ignore[no-untyped-def]
    """Compact the arena (dropping deleted clauses) and remap watches, reasons and learnts.
    Returns (arena, watch pool)."""
    wpool = compact_watches(wpool, woff, wlen, wcap, arena, S)
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
    return out, wpool


# --- loading ------------------------------------------------------------------------------------
@jit
def load_clauses(lits, arena, lval, level, reason, trail, S, mark, count, tmp):  # type: ignore[no-untyped-def]
    """Load whole flat 0-terminated DIMACS clauses into the arena (called chunk by chunk, so
    the driver can read the clock in between): drop repeated literals and tautologies, queue
    units, count the watches each literal will need. An empty clause or two opposite units
    set the status to UNSAT. Returns the (maybe grown) arena."""
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
            continue
        if size == 1:
            lit = tmp[0]
            if lval[lit] == -1:
                S[S_STATUS] = UNSAT
            elif lval[lit] == 0:
                enqueue(lit, -1, lval, level, reason, trail, S)
            continue
        _, arena = add_clause(arena, S, tmp, size, False, 0)
        count[tmp[0]] += 1
        count[tmp[1]] += 1
    S[S_LOADED] = clause_no
    return arena


@jit
def layout_watches(count, woff, wlen, wcap, wpool, S):  # type: ignore[no-untyped-def]
    """Lay out one watch segment per literal, sized for its counted watches plus room to
    grow. Returns the pool."""
    top = 0
    for lit in range(count.shape[0]):
        woff[lit] = top
        wcap[lit] = count[lit] + 4
        wlen[lit] = 0
        top += 2 * wcap[lit]
    wpool = grow_int32(wpool, top + 16)
    S[S_WTOP] = top
    return wpool


@jit
def attach_clauses(arena, cref, stop, wpool, woff, wlen, wcap, S):  # type: ignore[no-untyped-def]
    """Watch the first two literals of the clauses stored from ``cref`` up to arena word
    ``stop`` (a chunk, so the driver can read the clock in between). Returns (next cref,
    pool)."""
    atop = S[S_ATOP]
    while cref < atop and cref < stop:
        size = arena[cref]
        a = arena[cref + HDR]
        b = arena[cref + HDR + 1]
        wpool = watch_push(wpool, woff, wlen, wcap, S, a, cref, b)
        wpool = watch_push(wpool, woff, wlen, wcap, S, b, cref, a)
        cref += HDR + size
    return cref, wpool


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
    out,
    stack,
    toclear,
    stamp,
    S,
    F,
    assumps,
    nassumps,
    max_conflicts,
    max_props,
):  # type: ignore[no-untyped-def]
    """CDCL until SAT / UNSAT / budget spent, under the first ``nassumps`` literals of
    ``assumps`` as assumptions (UNSAT_ASSUMED: the formula implies their negation; learnt
    clauses never depend on them, so they stay valid for later calls). Returns (status,
    arena, wpool, learnts, proof)."""
    conflicts_at_start = S[S_CONFLICTS]
    props_at_start = S[S_PROPS]
    while True:
        confl, wpool = propagate(lval, level, reason, trail, arena, wpool, woff, wlen, wcap, S)
        if confl >= 0:
            S[S_CONFLICTS] += 1
            S[S_SINCE_RESTART] += 1
            if S[S_DL] == 0:
                if S[S_PROOF]:
                    proof = proof_log(proof, S, 1, out, 0)
                S[S_STATUS] = UNSAT
                return UNSAT, arena, wpool, learnts, proof
            size, back, lbd = analyze(
                confl, arena, lval, level, reason, trail, seen, act, heap, hpos, F, S,
                out, stack, toclear, stamp,
            )  # fmt: skip
            backtrack(back, lval, reason, trail, trail_lim, phase, heap, hpos, act, S)
            if S[S_PROOF]:
                proof = proof_log(proof, S, 1, out, size)
            S[S_LEARNT] += 1
            if size == 1:
                enqueue(out[0], -1, lval, level, reason, trail, S)
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
            F[F_LBD_SUM] += lbd
            if S[S_LBDQ_N] == LBDQ_LEN:
                F[F_LBDQ_SUM] -= lbdq[S[S_LBDQ_HEAD]]
            else:
                S[S_LBDQ_N] += 1
            lbdq[S[S_LBDQ_HEAD]] = lbd
            F[F_LBDQ_SUM] += lbd
            S[S_LBDQ_HEAD] = (S[S_LBDQ_HEAD] + 1) % LBDQ_LEN
            continue
        # no conflict: restart? reduce? budget? then decide
        mode = S[S_RESTART_MODE]
        restart = False
        if mode == RESTART_LUBY:
            restart = S[S_SINCE_RESTART] >= LUBY_UNIT * luby(S[S_LUBY_I])
        elif mode == RESTART_GLUCOSE:
            restart = S[S_LBDQ_N] == LBDQ_LEN and (
                F[F_LBDQ_SUM] / LBDQ_LEN * GLUCOSE_K > F[F_LBD_SUM] / S[S_CONFLICTS]
            )
        if restart:
            backtrack(0, lval, reason, trail, trail_lim, phase, heap, hpos, act, S)
            S[S_RESTARTS] += 1
            S[S_LUBY_I] += 1
            S[S_SINCE_RESTART] = 0
            S[S_LBDQ_N] = 0
            F[F_LBDQ_SUM] = 0.0
        if S[S_CONFLICTS] >= S[S_NEXT_REDUCE]:
            S[S_NEXT_REDUCE] = (
                S[S_CONFLICTS] + S[S_REDUCE_FIRST] + (S[S_REDUCES] + 1) * S[S_REDUCE_INC]
            )
            proof = reduce_db(arena, learnts, lval, reason, S, proof, toclear)
            if S[S_WASTED] * 2 > S[S_ATOP]:
                arena, wpool = collect_garbage(
                    arena, learnts, reason, lval, trail, wpool, woff, wlen, wcap, S
                )
                S[S_COLLECTS] += 1
        if S[S_WWASTED] > S[S_WTOP] // 2 + 1024:
            wpool = compact_watches(wpool, woff, wlen, wcap, arena, S)
        if (
            S[S_CONFLICTS] - conflicts_at_start >= max_conflicts
            or S[S_PROPS] - props_at_start >= max_props
        ):
            return UNKNOWN, arena, wpool, learnts, proof
        # decide: the pending assumptions first (one decision level each, MiniSat-style: an
        # assumption already true gets an empty level, a false one ends the call), then the
        # most active unassigned variable, in its saved phase
        nxt = -1
        while S[S_DL] < nassumps:
            p = assumps[S[S_DL]]
            if lval[p] == 1:
                trail_lim[S[S_DL]] = S[S_TRAIL]
                S[S_DL] += 1
            elif lval[p] == -1:
                return UNSAT_ASSUMED, arena, wpool, learnts, proof
            else:
                nxt = p
                break
        if nxt < 0:
            while S[S_HEAPSIZE] > 0:
                v = heap_pop(heap, hpos, act, S)
                if lval[2 * v] == 0:
                    nxt = 2 * v + phase[v]
                    break
        if nxt < 0:
            return SAT, arena, wpool, learnts, proof
        S[S_DECISIONS] += 1
        trail_lim[S[S_DL]] = S[S_TRAIL]
        S[S_DL] += 1
        if S[S_DL] > S[S_MAXLEVEL]:
            S[S_MAXLEVEL] = S[S_DL]
        enqueue(nxt, -1, lval, level, reason, trail, S)
    return UNKNOWN, arena, wpool, learnts, proof
