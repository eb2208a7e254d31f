/* The CDCL kernel of satdoku's cdcl solver: search, preprocessing and proofs, in plain C (no
 * Python here: _cdcl.c is its CPython binding; setup.py compiles the two into the extension
 * module satdoku.solvers.cdcl._cdcl; kernel.h is what the binding calls).
 *
 * Its readable form is satdoku/solvers/cdcl/readable.py (plain Python: a state object, the
 * methods in MiniSat's order), the tests' oracle and the fallback when the module was not
 * built. Both make the same decisions in the same order: tests run them side by side and
 * compare statistics and proofs step for step. Read the Python file for the algorithm;
 * comments here only note what is C-specific.
 *
 * C-specific: clauses of three or more literals live in one int32 arena (at a clause
 * reference: size, flags, LBD, literals), compacted when half of it is deleted clauses; a
 * watch is a (clause reference, blocker) pair in a growable vector per literal, an implication
 * list one int per entry; binary reasons are encoded as -2 - (the other literal); the search
 * reads the clock itself (CLOCK_MONOTONIC, the clock of Python's time.perf_counter) every few
 * thousand watch visits; clauses are staged while loading and every list is sized once. LRAT
 * (proof mode 2) needs clause ids where the search has none: a long clause's id sits in a side
 * table indexed like the arena (cid, moved with it by garbage collection), a binary clause's
 * beside each of its two entries in the implication lists (binid, lists parallel to bins:
 * found by scanning the shorter of the two lists; the search never deletes binary clauses,
 * preprocessing rebuilds the lists), a level-0 literal's unit clause id in unit_id.
 */
#include "kernel.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int32_t to_dimacs(int32_t lit) {
    int32_t v = (lit >> 1) + 1;
    return (lit & 1) ? -v : v;
}

static int grow(void **ptr, int64_t *cap, int64_t need, size_t item) {
    if (need <= *cap) return 0;
    int64_t size = *cap * 2 > need ? *cap * 2 : need;
    void *p = realloc(*ptr, (size_t)size * item);
    if (!p) return -1;
    *ptr = p;
    *cap = size;
    return 0;
}

/* Room for ``extra`` more entries of ``width`` ints in a vector. */
static int vec_reserve(Vec *v, int64_t extra, int width) {
    int64_t need = (int64_t)v->len + extra;
    if (need <= v->cap) return 0;
    int64_t cap = v->cap < 2 ? 4 : 2 * (int64_t)v->cap;
    if (cap < need) cap = need;
    int32_t *d = realloc(v->data, (size_t)cap * width * sizeof(int32_t));
    if (!d) return -1;
    v->data = d;
    v->cap = (int32_t)cap;
    return 0;
}

/* --- proof ----------------------------------------------------------------------------------- */
static int ivec_push(IVec *v, int32_t x) {
    if (v->n == v->cap && grow((void **)&v->a, &v->cap, v->n + 1, sizeof(int32_t))) return -1;
    v->a[v->n++] = x;
    return 0;
}

/* A clause added (= log_add of the Python kernel): its new id, logged with its hints h1 then
 * h2 in LRAT; -1 out of memory (or past the int32 ids of the log). Every clause step goes
 * through here, whatever made the clause (preprocessing passes the ids a resolvent comes
 * from as hints). */
static int64_t proof_add2(Kernel *k, const int32_t *lits, int64_t count, const int32_t *h1,
                          int64_t n1, const int32_t *h2, int64_t n2) {
    int64_t id = ++k->last_id;
    if (k->proof_on == PROOF_NONE) return id;
    if (id > INT32_MAX) return -1;
    int lrat = k->proof_on == PROOF_LRAT;
    int64_t need = k->ptop + count + 2 + (lrat ? 2 + n1 + n2 : 0);
    if (grow((void **)&k->proof, &k->pcap, need, sizeof(int32_t))) return -1;
    int32_t *p = k->proof + k->ptop;
    *p++ = 1;
    if (lrat) *p++ = (int32_t)id;
    *p++ = (int32_t)count;
    for (int64_t i = 0; i < count; i++) *p++ = to_dimacs(lits[i]);
    if (lrat) {
        *p++ = (int32_t)(n1 + n2);
        for (int64_t i = 0; i < n1; i++) *p++ = h1[i];
        for (int64_t i = 0; i < n2; i++) *p++ = h2[i];
    }
    k->ptop = need;
    return id;
}

static inline int64_t proof_add(Kernel *k, const int32_t *lits, int64_t count,
                                const int32_t *hints, int64_t nhints) {
    return proof_add2(k, lits, count, hints, nhints, NULL, 0);
}

/* A clause deleted (= log_delete): by its id too in LRAT. */
static int proof_delete(Kernel *k, int32_t id, const int32_t *lits, int64_t count) {
    if (k->proof_on == PROOF_NONE) return 0;
    int lrat = k->proof_on == PROOF_LRAT;
    int64_t need = k->ptop + count + 2 + lrat;
    if (grow((void **)&k->proof, &k->pcap, need, sizeof(int32_t))) return -1;
    int32_t *p = k->proof + k->ptop;
    *p++ = 2;
    if (lrat) *p++ = id;
    *p++ = (int32_t)count;
    for (int64_t i = 0; i < count; i++) *p++ = to_dimacs(lits[i]);
    k->ptop = need;
    return 0;
}

/* --- watches and implications ---------------------------------------------------------------- */
static inline int watch_push(Kernel *k, int32_t lit, int32_t cref, int32_t blocker) {
    Vec *w = &k->watches[lit];
    if (w->len == w->cap && vec_reserve(w, 1, 2)) return -1;
    w->data[2 * w->len] = cref;
    w->data[2 * w->len + 1] = blocker;
    w->len++;
    return 0;
}

/* Binary clause (a, b), clause id in LRAT, into both implication lists. */
static inline int bin_push(Kernel *k, int32_t a, int32_t b, int32_t id) {
    Vec *x = &k->bins[a], *y = &k->bins[b];
    if (x->len == x->cap && vec_reserve(x, 1, 1)) return -1;
    x->data[x->len++] = b;
    if (y->len == y->cap && vec_reserve(y, 1, 1)) return -1;
    y->data[y->len++] = a;
    if (k->binid) {
        x = &k->binid[a];
        y = &k->binid[b];
        if (x->len == x->cap && vec_reserve(x, 1, 1)) return -1;
        x->data[x->len++] = id;
        if (y->len == y->cap && vec_reserve(y, 1, 1)) return -1;
        y->data[y->len++] = id;
    }
    return 0;
}

/* The id of binary clause (a, b) (the first added of equal ones; 0 if there is none): found
 * in the shorter of the two implication lists, whose binid list holds the ids in order. */
static int32_t bin_id(const Kernel *k, int32_t a, int32_t b) {
    if (k->bins[b].len < k->bins[a].len) {
        int32_t t = a;
        a = b;
        b = t;
    }
    const int32_t *d = k->bins[a].data;
    for (int32_t i = 0, n = k->bins[a].len; i < n; i++)
        if (d[i] == b) return k->binid[a].data[i];
    return 0;
}

/* --- the VSIDS heap -------------------------------------------------------------------------- */
static inline void heap_up(Kernel *k, int64_t i) {
    int32_t *heap = k->heap, *hpos = k->hpos;
    double *act = k->act;
    int32_t v = heap[i];
    double a = act[v];
    while (i > 0) {
        int64_t parent = (i - 1) >> 1;
        if (act[heap[parent]] >= a) break;
        heap[i] = heap[parent];
        hpos[heap[i]] = (int32_t)i;
        i = parent;
    }
    heap[i] = v;
    hpos[v] = (int32_t)i;
}

static inline void heap_down(Kernel *k, int64_t i, int64_t size) {
    int32_t *heap = k->heap, *hpos = k->hpos;
    double *act = k->act;
    int32_t v = heap[i];
    double a = act[v];
    for (;;) {
        int64_t child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && act[heap[child + 1]] > act[heap[child]]) child++;
        if (act[heap[child]] <= a) break;
        heap[i] = heap[child];
        hpos[heap[i]] = (int32_t)i;
        i = child;
    }
    heap[i] = v;
    hpos[v] = (int32_t)i;
}

static inline void heap_insert(Kernel *k, int32_t v) {
    if (k->hpos[v] >= 0) return;
    int64_t size = k->heap_size;
    k->heap[size] = v;
    k->hpos[v] = (int32_t)size;
    k->heap_size = size + 1;
    heap_up(k, size);
}

static inline int32_t heap_pop(Kernel *k) {
    int64_t size = k->heap_size - 1;
    int32_t top = k->heap[0];
    k->hpos[top] = -1;
    k->heap_size = size;
    if (size > 0) {
        k->heap[0] = k->heap[size];
        k->hpos[k->heap[0]] = 0;
        heap_down(k, 0, size);
    }
    return top;
}

static inline void bump(Kernel *k, int32_t v) {
    k->act[v] += k->var_inc;
    if (k->act[v] > 1e100) {
        for (int32_t i = 0; i < k->n; i++) k->act[i] *= 1e-100;
        k->var_inc *= 1e-100;
    }
    if (k->hpos[v] >= 0) heap_up(k, k->hpos[v]);
}

/* --- assignment, propagation, backtracking -------------------------------------------------- */
static inline void enqueue(Kernel *k, int32_t lit, int32_t reason) {
    k->lval[lit] = 1;
    k->lval[lit ^ 1] = -1;
    int32_t v = lit >> 1;
    k->level[v] = (int32_t)k->dl;
    k->reason[v] = reason;
    k->trail[k->trail_size++] = lit;
}

/* A binary reason is stored as -2 - (the other, false, literal). */
static inline int32_t binary_reason(int32_t other) { return -2 - other; }

/* Unit propagation of the trail from qhead (= propagate of cdcl/readable.py): binary clauses
 * through the implication lists first, then the long clauses watching the false literal
 * (two watched literals, c[0] and c[1], with a blocker; watchers of deleted clauses are
 * dropped on the way).
 * Before: no clause is unit or false under trail[0..qhead) alone (every implication of that
 * prefix is on the trail); each long clause is watched by its c[0] and c[1].
 * After, NO_CONFLICT: qhead == trail_size and no clause is unit or false: every implied literal
 * is on the trail with its reason (a cref, or binary_reason(other)).
 * After, a conflict (a cref whose literals are all false, or BINARY_CONFLICT with the clause
 * in confl_a, confl_b): qhead == trail_size (the rest of the queue is not propagated, as in
 * MiniSat) and every watch list is whole.
 * OUT_OF_MEMORY: a watch list could not grow (the list walked is kept whole).
 * Counts props (trail literals taken) and ticks (list entries visited: the clock's pace). */
static int32_t propagate(Kernel *k) {
    int8_t *lval = k->lval;
    int32_t *arena = k->arena;
    int64_t props = 0;
    int32_t confl = NO_CONFLICT;
    while (k->qhead < k->trail_size) {
        int32_t p = k->trail[k->qhead++];
        props++;
        int32_t fl = p ^ 1;
        /* binary clauses (fl or other): implications first */
        Vec *bl = &k->bins[fl];
        int32_t *b = bl->data;
        int32_t nb = bl->len;
        for (int32_t i = 0; i < nb; i++) {
            int32_t other = b[i];
            int8_t val = lval[other];
            if (val == 1) continue;
            if (val == -1) {
                k->confl_a = fl;
                k->confl_b = other;
                confl = BINARY_CONFLICT;
                break;
            }
            enqueue(k, other, binary_reason(fl));
        }
        k->ticks += nb;
        if (confl != NO_CONFLICT) {
            k->qhead = k->trail_size;
            break;
        }
        /* long clauses watching fl */
        Vec *ws = &k->watches[fl];
        int32_t n = ws->len;
        int32_t *w = ws->data;
        int32_t i = 0, j = 0;
        k->ticks += n;
        while (i < n) {
            int32_t cref = w[2 * i];
            int32_t blocker = w[2 * i + 1];
            i++;
            if (lval[blocker] == 1) {
                w[2 * j] = cref;
                w[2 * j + 1] = blocker;
                j++;
                continue;
            }
            if (arena[cref + 1] & DELETED) continue;
            int32_t *c = arena + cref + HDR;
            if (c[0] == fl) {
                c[0] = c[1];
                c[1] = fl;
            }
            int32_t first = c[0];
            if (first != blocker && lval[first] == 1) {
                w[2 * j] = cref;
                w[2 * j + 1] = first;
                j++;
                continue;
            }
            int32_t size = arena[cref];
            int moved = 0;
            for (int32_t m = 2; m < size; m++) {
                int32_t lit = c[m];
                if (lval[lit] != -1) {
                    c[1] = lit;
                    c[m] = fl;
                    /* lit != fl, so this never reallocates the list being walked */
                    if (watch_push(k, lit, cref, first)) {
                        ws->len = n; /* keep the list whole; the caller reports the error */
                        return OUT_OF_MEMORY;
                    }
                    moved = 1;
                    break;
                }
            }
            if (moved) continue;
            w[2 * j] = cref;
            w[2 * j + 1] = first;
            j++;
            if (lval[first] == -1) {
                confl = cref;
                break;
            }
            enqueue(k, first, cref);
        }
        if (confl != NO_CONFLICT) {
            while (i < n) {
                w[2 * j] = w[2 * i];
                w[2 * j + 1] = w[2 * i + 1];
                i++;
                j++;
            }
            k->qhead = k->trail_size;
        }
        ws->len = j;
        if (confl != NO_CONFLICT) break;
    }
    k->props += props;
    return confl;
}

static void backtrack(Kernel *k, int64_t to_level) {
    if (k->dl <= to_level) return;
    int64_t stop = k->trail_lim[to_level];
    for (int64_t i = k->trail_size - 1; i >= stop; i--) {
        int32_t lit = k->trail[i];
        int32_t v = lit >> 1;
        k->lval[lit] = 0;
        k->lval[lit ^ 1] = 0;
        k->reason[v] = NO_REASON;
        k->phase[v] = (int8_t)(lit & 1);
        heap_insert(k, v);
    }
    k->trail_size = stop;
    k->qhead = stop;
    k->dl = to_level;
}

/* --- conflict analysis ----------------------------------------------------------------------- */
/* The literals of a reason or conflict: an arena clause, or a binary clause in pair[]. */
static inline const int32_t *clause_lits(Kernel *k, int32_t ref, int32_t implied,
                                         int32_t *pair, int32_t *size) {
    if (ref >= 0) {
        *size = k->arena[ref];
        return k->arena + ref + HDR;
    }
    pair[0] = implied;
    pair[1] = -2 - ref;
    *size = 2;
    return pair;
}

static int lit_redundant(Kernel *k, int32_t p, uint32_t abstract, int64_t *ntoclear) {
    int32_t *reason = k->reason, *level = k->level, *stack = k->stack;
    int32_t *toclear = k->toclear;
    int8_t *seen = k->seen;
    int64_t top = *ntoclear, n = *ntoclear;
    int64_t sp = 0;
    int32_t pair[2];
    stack[sp++] = p;
    while (sp > 0) {
        int32_t q = stack[--sp];
        int32_t size;
        const int32_t *c = clause_lits(k, reason[q >> 1], q ^ 1, pair, &size);
        for (int32_t i = 0; i < size; i++) {
            int32_t lit = c[i];
            int32_t v = lit >> 1;
            if (v == (q >> 1) || seen[v] || level[v] == 0) continue;
            if (reason[v] != NO_REASON && (abstract & (1u << (level[v] & 31))) != 0) {
                seen[v] = 1;
                stack[sp++] = lit;
                toclear[n++] = lit;
            } else {
                for (int64_t m = top; m < n; m++) seen[toclear[m] >> 1] = 0;
                *ntoclear = top;
                return 0;
            }
        }
    }
    *ntoclear = n;
    return 1;
}

/* The literals of conflict confl (propagate's): its clause in the arena, or the binary clause
 * of a BINARY_CONFLICT copied into pair; *size gets the count. */
static const int32_t *conflict_lits(Kernel *k, int32_t confl, int32_t pair[2], int32_t *size) {
    if (confl == BINARY_CONFLICT) {
        pair[0] = k->confl_a;
        pair[1] = k->confl_b;
        *size = 2;
        return pair;
    }
    *size = k->arena[confl];
    return k->arena + confl + HDR;
}

/* 1-UIP learning with minimisation (= analyze of cdcl/readable.py), bumping the activities
 * of the variables met.
 * Before: confl is a false clause at decision level dl > 0 (propagate's conflict); seen[] is
 * all 0.
 * After: out[0..size) is the learnt clause, implied by the formula and the learnt clauses:
 * out[0] is the negation of the first UIP (the one literal of level dl), out[1] (size > 1) a
 * literal of the highest level below dl; *back is that level (0 for a unit), *lbd_out the
 * number of distinct levels in the clause. seen[] is all 0 again; the trail is unchanged.
 * Returns the size (>= 1). */
static int64_t analyze(Kernel *k, int32_t confl, int64_t *back, int64_t *lbd_out) {
    int32_t *level = k->level, *reason = k->reason, *trail = k->trail;
    int32_t *out = k->out;
    int8_t *seen = k->seen;
    int64_t dl = k->dl;
    int64_t pathc = 0;
    int32_t p = -1;
    int64_t size = 1;
    int64_t idx = k->trail_size - 1;
    int32_t pair[2];
    int32_t csize;
    const int32_t *c = conflict_lits(k, confl, pair, &csize);
    for (;;) {
        for (int32_t i = 0; i < csize; i++) {
            int32_t q = c[i];
            int32_t v = q >> 1;
            if (p >= 0 && v == (p >> 1)) continue;
            if (seen[v] == 0 && level[v] > 0) {
                bump(k, v);
                seen[v] = 1;
                if (level[v] >= dl)
                    pathc++;
                else
                    out[size++] = q;
            }
        }
        while (seen[trail[idx] >> 1] == 0) idx--;
        p = trail[idx];
        idx--;
        seen[p >> 1] = 0;
        pathc--;
        if (pathc <= 0) break;
        c = clause_lits(k, reason[p >> 1], p, pair, &csize);
    }
    out[0] = p ^ 1;
    uint32_t abstract = 0;
    for (int64_t i = 1; i < size; i++) abstract |= 1u << (level[out[i] >> 1] & 31);
    int64_t ntoclear = 0;
    for (int64_t i = 1; i < size; i++) k->toclear[ntoclear++] = out[i];
    int64_t j = 1;
    int64_t before = size;
    for (int64_t i = 1; i < size; i++) {
        int32_t lit = out[i];
        if (reason[lit >> 1] == NO_REASON || !lit_redundant(k, lit, abstract, &ntoclear))
            out[j++] = lit;
    }
    size = j;
    k->minimised += before - size;
    for (int64_t i = 0; i < ntoclear; i++) seen[k->toclear[i] >> 1] = 0;
    *back = 0;
    if (size > 1) {
        int64_t best = 1;
        for (int64_t i = 2; i < size; i++)
            if (level[out[i] >> 1] > level[out[best] >> 1]) best = i;
        int32_t t = out[1];
        out[1] = out[best];
        out[best] = t;
        *back = level[out[1] >> 1];
    }
    k->stamp_mark++;
    int64_t mark = k->stamp_mark, lbd = 0;
    for (int64_t i = 0; i < size; i++) {
        int32_t lv = level[out[i] >> 1];
        if (k->stamp[lv] != mark) {
            k->stamp[lv] = mark;
            lbd++;
        }
    }
    *lbd_out = lbd;
    return size;
}

/* --- LRAT hints (= the Python kernel's binary_id ... learnt_hints) ---------------------------- */
static inline int32_t true_lit(Kernel *k, int32_t v) { return 2 * v + (k->lval[2 * v] == -1); }

/* The id of the clause that implied variable v. */
static inline int32_t reason_id(Kernel *k, int32_t v) {
    int32_t r = k->reason[v];
    if (r >= 0) return k->cid[r];
    return bin_id(k, true_lit(k, v), -2 - r);
}

static inline int32_t conflict_id(Kernel *k, int32_t confl) {
    if (confl == BINARY_CONFLICT) return bin_id(k, k->confl_a, k->confl_b);
    return k->cid[confl];
}

/* The id of a unit clause of level-0 variable v's literal, derived (and logged) from its
 * reason when first asked, the reason's other literals' units first; -1 out of memory. */
static int64_t unit_id_of(Kernel *k, int32_t v) {
    IVec *st = &k->ustack;
    int32_t *units = k->unit_id;
    int32_t pair[2], size;
    st->n = 0;
    if (ivec_push(st, v)) return -1;
    while (st->n > 0) {
        int32_t u = st->a[--st->n];
        if (u < 0) { /* every antecedent has its unit: derive u's */
            u = ~u;
            if (units[u]) continue;
            int32_t lit = true_lit(k, u);
            const int32_t *c = clause_lits(k, k->reason[u], lit, pair, &size);
            k->hbuf.n = 0;
            for (int32_t i = 0; i < size; i++)
                if ((c[i] >> 1) != u && ivec_push(&k->hbuf, units[c[i] >> 1])) return -1;
            if (ivec_push(&k->hbuf, reason_id(k, u))) return -1;
            int64_t id = proof_add(k, &lit, 1, k->hbuf.a, k->hbuf.n);
            if (id < 0) return -1;
            units[u] = (int32_t)id;
            continue;
        }
        if (units[u]) continue;
        if (ivec_push(st, ~u)) return -1;
        const int32_t *c = clause_lits(k, k->reason[u], true_lit(k, u), pair, &size);
        for (int32_t i = 0; i < size; i++) {
            int32_t w = c[i] >> 1;
            if (w != u && !units[w] && ivec_push(st, w)) return -1;
        }
    }
    return units[v];
}

/* The hints of the clause analyze() left in out[0..size) from conflict confl, before the
 * backjump: level-0 units into hunits, the resolved reasons (antecedents first) and the
 * conflict into hchain. 0, or -1 out of memory. */
static int learnt_hints(Kernel *k, int32_t confl, int64_t size) {
    int64_t *mark = k->lmark;
    int64_t base = (k->lmark_base += 4); /* > base: met; +1 in the clause, +2 open, +3 done */
    for (int64_t i = 0; i < size; i++) mark[k->out[i] >> 1] = base + 1;
    IVec *st = &k->lstack;
    st->n = k->hunits.n = k->hchain.n = 0;
    int32_t pair[2], csize;
    const int32_t *c = conflict_lits(k, confl, pair, &csize);
    for (int32_t i = 0; i < csize; i++)
        if (ivec_push(st, c[i] >> 1)) return -1;
    while (st->n > 0) {
        int32_t e = st->a[--st->n];
        if (e < 0) {
            if (ivec_push(&k->hchain, reason_id(k, ~e))) return -1;
            mark[~e] = base + 3;
            continue;
        }
        if (mark[e] > base) continue;
        if (k->level[e] == 0) {
            int64_t id = unit_id_of(k, e);
            if (id < 0 || ivec_push(&k->hunits, (int32_t)id)) return -1;
            mark[e] = base + 3;
            continue;
        }
        mark[e] = base + 2;
        if (ivec_push(st, ~e)) return -1;
        const int32_t *r = clause_lits(k, k->reason[e], true_lit(k, e), pair, &csize);
        for (int32_t i = 0; i < csize; i++)
            if (mark[r[i] >> 1] <= base && ivec_push(st, r[i] >> 1)) return -1;
    }
    return ivec_push(&k->hchain, conflict_id(k, confl));
}

/* The empty clause of conflict confl at level 0 (= log_refutation): in LRAT hinted by the
 * units of the conflict's literals, then the conflict. 0, or -1 out of memory. */
static int log_refutation(Kernel *k, int32_t confl) {
    k->hunits.n = 0;
    if (k->proof_on == PROOF_LRAT) {
        int32_t pair[2] = {k->confl_a, k->confl_b}, csize = 2;
        const int32_t *c = pair;
        if (confl != BINARY_CONFLICT) {
            c = k->arena + confl + HDR;
            csize = k->arena[confl];
        }
        for (int32_t i = 0; i < csize; i++) {
            int64_t id = unit_id_of(k, c[i] >> 1);
            if (id < 0 || ivec_push(&k->hunits, (int32_t)id)) return -1;
        }
        if (ivec_push(&k->hunits, conflict_id(k, confl))) return -1;
    }
    return proof_add(k, k->out, 0, k->hunits.a, k->hunits.n) < 0 ? -1 : 0;
}

/* --- clause database ------------------------------------------------------------------------- */
static int32_t add_clause(Kernel *k, const int32_t *lits, int64_t count, int learnt, int64_t lbd,
                          int64_t id) {
    if (grow((void **)&k->arena, &k->acap, k->atop + HDR + count, sizeof(int32_t))) return -1;
    if (k->proof_on == PROOF_LRAT && k->cidcap < k->acap) {
        int32_t *cid = realloc(k->cid, (size_t)k->acap * sizeof(int32_t));
        if (!cid) return -1;
        k->cid = cid;
        k->cidcap = k->acap;
    }
    int64_t top = k->atop;
    if (k->proof_on == PROOF_LRAT) k->cid[top] = (int32_t)id;
    int32_t *a = k->arena + top;
    a[0] = (int32_t)count;
    a[1] = learnt ? LEARNT : 0;
    a[2] = (int32_t)lbd;
    memcpy(a + HDR, lits, (size_t)count * sizeof(int32_t));
    k->atop = top + HDR + count;
    return (int32_t)top;
}

typedef struct {
    int64_t key;
    int64_t index;
} SortItem;

static int sort_cmp(const void *a, const void *b) {
    const SortItem *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : (x->index > y->index);
}

/* Delete the worse half of the learnt clauses (= reduce_db in the Python kernel: a stable sort
 * on the same key, written as qsort with the index as tie-break).
 * Before: learnts[0..nlearnts) are the live learnt long clauses, in the order they were
 * learnt.
 * After: up to nlearnts / 2 of them, worst first (highest LBD, then longest), are marked
 * DELETED and logged as deleted in the proof; kept are every clause of LBD <= keep_lbd and
 * every clause that is the reason of its first literal (the trail stays justified).
 * learnts[] holds the survivors in their old order; their watchers are dropped lazily by
 * propagate and the arena space counts as wasted (collect_garbage reclaims it). Returns 0, or
 * -1 out of memory. */
static int reduce_db(Kernel *k) {
    int64_t n = k->nlearnts;
    int32_t *arena = k->arena;
    SortItem *items = malloc((size_t)(n > 0 ? n : 1) * sizeof(SortItem));
    if (!items) return -1;
    for (int64_t i = 0; i < n; i++) {
        int32_t cref = k->learnts[i];
        items[i].key = -((int64_t)arena[cref + 2] * 1000000 + arena[cref]);
        items[i].index = i;
    }
    qsort(items, (size_t)n, sizeof(SortItem), sort_cmp);
    int64_t limit = n / 2, removed = 0;
    for (int64_t idx = 0; idx < n; idx++) {
        if (removed >= limit) break;
        int32_t cref = k->learnts[items[idx].index];
        if (arena[cref + 2] <= k->P[P_KEEP_LBD]) continue;
        int32_t first = arena[cref + HDR];
        if (k->lval[first] == 1 && k->reason[first >> 1] == cref) continue;
        arena[cref + 1] |= DELETED;
        k->wasted += HDR + arena[cref];
        k->deleted++;
        removed++;
        if (proof_delete(k, k->proof_on == PROOF_LRAT ? k->cid[cref] : 0, arena + cref + HDR,
                         arena[cref])) {
            free(items);
            return -1;
        }
    }
    free(items);
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t cref = k->learnts[i];
        if (!(arena[cref + 1] & DELETED)) k->learnts[j++] = cref;
    }
    k->nlearnts = j;
    k->reduces++;
    return 0;
}

/* Compact the arena, dropping deleted clauses, and remap watches, reasons and learnts. */
static int collect_garbage(Kernel *k) {
    int64_t old_top = k->atop;
    int64_t cap = old_top - k->wasted + 1024;
    int32_t *out = malloc((size_t)cap * sizeof(int32_t));
    if (!out) return -1;
    int32_t *arena = k->arena;
    for (int64_t lit = 0; lit < 2 * (int64_t)k->n; lit++) { /* drop watches of deleted */
        Vec *w = &k->watches[lit];
        int32_t j = 0;
        for (int32_t i = 0; i < w->len; i++) {
            int32_t cref = w->data[2 * i];
            if (arena[cref + 1] & DELETED) continue;
            w->data[2 * j] = cref;
            w->data[2 * j + 1] = w->data[2 * i + 1];
            j++;
        }
        w->len = j;
    }
    int32_t *cid = NULL;
    if (k->proof_on == PROOF_LRAT && !(cid = malloc((size_t)cap * sizeof(int32_t)))) {
        free(out);
        return -1;
    }
    int64_t top = 0, cref = 0;
    while (cref < old_top) {
        int32_t size = arena[cref];
        if (!(arena[cref + 1] & DELETED)) {
            memcpy(out + top, arena + cref, (size_t)(HDR + size) * sizeof(int32_t));
            if (cid) cid[top] = k->cid[cref];
            arena[cref + 2] = (int32_t)top; /* forwarding address */
            top += HDR + size;
        }
        cref += HDR + size;
    }
    for (int64_t i = 0; i < k->trail_size; i++) {
        int32_t v = k->trail[i] >> 1;
        if (k->reason[v] >= 0) k->reason[v] = arena[k->reason[v] + 2];
    }
    for (int64_t lit = 0; lit < 2 * (int64_t)k->n; lit++) {
        Vec *w = &k->watches[lit];
        for (int32_t i = 0; i < w->len; i++) w->data[2 * i] = arena[w->data[2 * i] + 2];
    }
    for (int64_t i = 0; i < k->nlearnts; i++) k->learnts[i] = arena[k->learnts[i] + 2];
    free(k->arena);
    k->arena = out;
    k->acap = cap;
    if (cid) {
        free(k->cid);
        k->cid = cid;
        k->cidcap = cap;
    }
    k->atop = top;
    k->wasted = 0;
    k->collects++;
    return 0;
}



/* --- loading (two passes through a Staging list: kernel.h) ----------------------------------- */
/* The formula is refuted while loading (= refute): the first refutation's hints are kept. */
static void refute(Kernel *k, int32_t a, int32_t b, int n) {
    if (k->status == UNSAT) return;
    k->status = UNSAT;
    k->refute[0] = a;
    k->refute[1] = b;
    k->nrefute = n;
}

/* One clause of DIMACS literals (already range-checked): normalise and store it (= _load_clause
 * of cdcl/readable.py).
 * Before: the search is at level 0.
 * After: the clause has the next id (input order, the proof's numbering); repeated literals
 * are dropped and a tautology is skipped; a unit is queued on level 0 (not propagated; one
 * already true is a no-op), a long clause is in the arena and a binary in st (both attached
 * by attach_staged; the level-0 assignment is not applied to them); an empty clause, or a unit
 * opposite to one on the trail, refutes the formula. Returns 0, or -1 out of memory. */
static int load_clause(Kernel *k, Staging *st, const int32_t *dimacs, int64_t count) {
    int64_t clause_no = ++k->loaded;
    int64_t id = ++k->last_id;
    int64_t size = 0;
    if (count == 2 && dimacs[0] != dimacs[1] && dimacs[0] != -dimacs[1]) {
        /* the bulk of a Sudoku: no repeated literal, no tautology, nothing to mark */
        for (int64_t i = 0; i < 2; i++) {
            int32_t d = dimacs[i];
            k->tmp[i] = 2 * ((d < 0 ? -d : d) - 1) + (d < 0 ? 1 : 0);
        }
        size = 2;
        count = 0;
    }
    for (int64_t i = 0; i < count; i++) {
        int32_t d = dimacs[i];
        int32_t v = (d < 0 ? -d : d) - 1;
        int32_t lit = 2 * v + (d < 0 ? 1 : 0);
        if (k->mark[v] == clause_no * 2 + (lit & 1)) continue;
        if (k->mark[v] == clause_no * 2 + ((lit & 1) ^ 1)) return 0; /* tautology */
        k->mark[v] = clause_no * 2 + (lit & 1);
        k->tmp[size++] = lit;
    }
    int lrat = k->proof_on == PROOF_LRAT;
    if (size == 0) {
        refute(k, (int32_t)id, 0, 1);
        return 0;
    }
    if (size == 1) {
        int32_t lit = k->tmp[0];
        if (k->lval[lit] == -1) {
            refute(k, lrat ? k->unit_id[lit >> 1] : 0, (int32_t)id, 2);
        } else if (k->lval[lit] == 0) {
            enqueue(k, lit, NO_REASON);
            if (lrat) k->unit_id[lit >> 1] = (int32_t)id;
        }
        return 0;
    }
    if (size == 2) {
        if (grow((void **)&st->pairs, &st->cap, 3 * st->npairs + 3, sizeof(int32_t))) return -1;
        st->pairs[3 * st->npairs] = k->tmp[0];
        st->pairs[3 * st->npairs + 1] = k->tmp[1];
        st->pairs[3 * st->npairs + 2] = (int32_t)id;
        st->npairs++;
        return 0;
    }
    return add_clause(k, k->tmp, size, 0, 0, id) < 0 ? -1 : 0;
}

/* Attach what load_clause staged: size every list once, then fill it. */
static int attach_staged(Kernel *k, Staging *st) {
    int64_t nlits = 2 * (int64_t)k->n;
    int32_t *count = calloc((size_t)(2 * nlits + 1), sizeof(int32_t));
    if (!count) return -1;
    int32_t *bcount = count + nlits;
    for (int64_t i = 0; i < st->npairs; i++) {
        bcount[st->pairs[3 * i]]++;
        bcount[st->pairs[3 * i + 1]]++;
    }
    for (int64_t cref = st->first_cref; cref < k->atop; cref += HDR + k->arena[cref]) {
        count[k->arena[cref + HDR]]++;
        count[k->arena[cref + HDR + 1]]++;
    }
    for (int64_t lit = 0; lit < nlits; lit++) {
        if ((count[lit] && vec_reserve(&k->watches[lit], count[lit], 2)) ||
            (bcount[lit] && vec_reserve(&k->bins[lit], bcount[lit], 1)) ||
            (bcount[lit] && k->binid && vec_reserve(&k->binid[lit], bcount[lit], 1))) {
            free(count);
            return -1;
        }
    }
    free(count);
    for (int64_t i = 0; i < st->npairs; i++) {
        int32_t a = st->pairs[3 * i], b = st->pairs[3 * i + 1];
        k->bins[a].data[k->bins[a].len++] = b;
        k->bins[b].data[k->bins[b].len++] = a;
        if (k->binid) {
            k->binid[a].data[k->binid[a].len++] = st->pairs[3 * i + 2];
            k->binid[b].data[k->binid[b].len++] = st->pairs[3 * i + 2];
        }
    }
    for (int64_t cref = st->first_cref; cref < k->atop; cref += HDR + k->arena[cref]) {
        int32_t a = k->arena[cref + HDR], b = k->arena[cref + HDR + 1];
        Vec *wa = &k->watches[a], *wb = &k->watches[b];
        wa->data[2 * wa->len] = (int32_t)cref;
        wa->data[2 * wa->len + 1] = b;
        wa->len++;
        wb->data[2 * wb->len] = (int32_t)cref;
        wb->data[2 * wb->len + 1] = a;
        wb->len++;
    }
    st->npairs = 0;
    st->first_cref = k->atop;
    return 0;
}

/* --- preprocessing (= cdcl/simplify.py's Simplifier) ---------------------------------------- */
/* MiniSat 2's SimpSolver in the spirit of SatELite, run once (search calls it at level 0 after
 * P_SIMP_DELAY conflicts): bounded variable elimination, backward subsumption and
 * self-subsuming strengthening over occurrence lists, level-0 units propagated through the
 * same lists. Read the Python class for the
 * algorithm and each step's LRAT hints. C-specific: the clauses live in a store of their own
 * while the kernel's watches are cleared (header: size, capacity, flags, abstraction, clause
 * id), occurrence lists are growable vectors per variable whose deleted clauses go lazily, the
 * elimination heap is indexed. Every proof step goes through proof_add / proof_delete:
 * resolvents before their antecedents are deleted, a strengthened clause added before the old
 * one is deleted; the binary-clause id table is rebuilt from the survivors. */
#define S_HDR 5
#define S_DEAD 1
#define S_QUEUED 2
#define S_CLOCK_EVERY 65536 /* simplifier steps between two looks at the clock */

typedef struct {
    int32_t *c; /* the clause store */
    int64_t top, cap;
    Vec *occ;      /* per variable: the clauses holding it (dead ones dropped lazily) */
    int32_t *nocc; /* per literal: live clauses holding it */
    int32_t *queue;
    int64_t qhead, qlen, qcap; /* clauses to try as subsumers, first in first out */
    int32_t *heap, *hpos;
    int64_t hsize; /* elimination candidates, least (cost, variable) first */
    int32_t *snap, *psnap;
    int64_t snapcap, psnapcap; /* copies of the occurrence lists being walked (subsumption,
                                  propagation) */
    int32_t *pos, *neg;
    int64_t poscap, negcap;
    int32_t *res;
    int64_t rtop, rcap; /* the resolvents of one elimination: size, literals, ... */
    int32_t *tmp;       /* one clause */
    int64_t *lmark;     /* per literal: stamp */
    int64_t stamp;
    int64_t ticks, budget, next_clock;
    int64_t thead; /* trail entries already propagated through the store */
    int unsat, stopped;
} Simp;

static inline int32_t *s_lits(Simp *s, int32_t cref) { return s->c + cref + S_HDR; }

/* The id of a unit clause of level-0 variable v (0 without LRAT: no hints are logged). */
static inline int32_t s_unit_id(Kernel *k, int32_t v) { return k->unit_id ? k->unit_id[v] : 0; }

/* Has the pass run out of effort or time? Then no new work starts. */
static int s_spent(Kernel *k, Simp *s) {
    if (s->stopped) return 1;
    if (s->ticks > s->budget) s->stopped = 1;
    if (s->ticks >= s->next_clock) {
        s->next_clock = s->ticks + S_CLOCK_EVERY;
        if (k->stop || (k->deadline >= 0 && now_seconds() >= k->deadline)) s->stopped = 1;
    }
    return s->stopped;
}

/* the elimination heap: a variable's cost is (clauses with v) * (clauses with -v) */
static inline int s_before(Simp *s, int32_t a, int32_t b) {
    int64_t ca = (int64_t)s->nocc[2 * a] * s->nocc[2 * a + 1];
    int64_t cb = (int64_t)s->nocc[2 * b] * s->nocc[2 * b + 1];
    return ca < cb || (ca == cb && a < b);
}

static void s_up(Simp *s, int64_t i) {
    int32_t v = s->heap[i];
    while (i > 0) {
        int64_t parent = (i - 1) >> 1;
        if (!s_before(s, v, s->heap[parent])) break;
        s->heap[i] = s->heap[parent];
        s->hpos[s->heap[i]] = (int32_t)i;
        i = parent;
    }
    s->heap[i] = v;
    s->hpos[v] = (int32_t)i;
}

static void s_down(Simp *s, int64_t i) {
    int32_t v = s->heap[i];
    for (;;) {
        int64_t child = 2 * i + 1;
        if (child >= s->hsize) break;
        if (child + 1 < s->hsize && s_before(s, s->heap[child + 1], s->heap[child])) child++;
        if (!s_before(s, s->heap[child], v)) break;
        s->heap[i] = s->heap[child];
        s->hpos[s->heap[i]] = (int32_t)i;
        i = child;
    }
    s->heap[i] = v;
    s->hpos[v] = (int32_t)i;
}

/* v's occurrence counts changed: move it in the heap, or put it (back) in when it may be
 * eliminated (MiniSat's updateElimHeap) */
static void s_touch(Kernel *k, Simp *s, int32_t v) {
    if (s->hpos[v] >= 0) {
        s_up(s, s->hpos[v]);
        s_down(s, s->hpos[v]);
    } else if (!k->frozen[v] && !k->elim[v] && k->lval[2 * v] == 0) {
        s->heap[s->hsize] = v;
        s->hpos[v] = (int32_t)s->hsize;
        s_up(s, s->hsize++);
    }
}

static int32_t s_pop(Simp *s) {
    int32_t v = s->heap[0];
    s->hpos[v] = -1;
    if (--s->hsize > 0) {
        s->heap[0] = s->heap[s->hsize];
        s->hpos[s->heap[0]] = 0;
        s_down(s, 0);
    }
    return v;
}

static int s_enqueue_clause(Simp *s, int32_t cref) {
    if (s->c[cref + 2] & S_QUEUED) return 0;
    if (grow((void **)&s->queue, &s->qcap, s->qlen + 1, sizeof(int32_t))) return -1;
    s->queue[s->qlen++] = cref;
    s->c[cref + 2] |= S_QUEUED;
    return 0;
}

static uint32_t s_abstraction(const int32_t *lits, int32_t n) {
    uint32_t a = 0;
    for (int32_t i = 0; i < n; i++) a |= 1u << ((lits[i] >> 1) & 31);
    return a;
}

/* Store a clause of two or more unassigned literals (already in the proof, as clause id) and
 * queue it. */
static int s_add(Kernel *k, Simp *s, const int32_t *lits, int32_t n, int64_t id) {
    if (grow((void **)&s->c, &s->cap, s->top + S_HDR + n, sizeof(int32_t))) return -1;
    int32_t cref = (int32_t)s->top;
    int32_t *h = s->c + cref;
    h[0] = n;
    h[1] = n;
    h[2] = 0;
    h[3] = (int32_t)s_abstraction(lits, n);
    h[4] = (int32_t)id;
    memcpy(h + S_HDR, lits, (size_t)n * sizeof(int32_t));
    s->top += S_HDR + n;
    for (int32_t i = 0; i < n; i++) {
        Vec *o = &s->occ[lits[i] >> 1];
        if (o->len == o->cap && vec_reserve(o, 1, 1)) return -1;
        o->data[o->len++] = cref;
        s->nocc[lits[i]]++;
        s_touch(k, s, lits[i] >> 1);
    }
    return s_enqueue_clause(s, cref);
}

/* Delete a stored clause. */
static int s_remove(Kernel *k, Simp *s, int32_t cref) {
    int32_t *h = s->c + cref;
    int32_t n = h[0];
    h[2] |= S_DEAD;
    if (proof_delete(k, h[4], h + S_HDR, n)) return -1;
    for (int32_t i = 0; i < n; i++) {
        s->nocc[h[S_HDR + i]]--;
        s_touch(k, s, h[S_HDR + i] >> 1);
    }
    return 0;
}

/* A unit derived while simplifying (in the proof already, as clause id): on the trail at level
 * 0 (propagated later by s_propagate), or the empty clause when it is false. */
static int s_unit(Kernel *k, Simp *s, int32_t lit, int64_t id) {
    if (k->lval[lit] == -1) {
        s->unsat = 1;
        int32_t hints[2] = {s_unit_id(k, lit >> 1), (int32_t)id};
        return proof_add(k, s->tmp, 0, hints, 2) < 0 ? -1 : 0;
    }
    if (k->lval[lit] == 0) {
        enqueue(k, lit, NO_REASON);
        if (k->unit_id) k->unit_id[lit >> 1] = (int32_t)id;
    }
    return 0;
}

/* Drop literal l, false once clause by (a unit, or a subsuming clause with one literal
 * negated) is unit, from a stored clause: the shorter clause is added, then the old one
 * deleted; a clause left with one literal becomes a unit on the trail. */
static int s_strengthen(Kernel *k, Simp *s, int32_t cref, int32_t l, int32_t by) {
    int32_t *h = s->c + cref;
    int32_t n = h[0], m = 0;
    int32_t *c = h + S_HDR;
    for (int32_t i = 0; i < n; i++)
        if (c[i] != l) s->tmp[m++] = c[i];
    int32_t hints[2] = {by, h[4]};
    int64_t id = proof_add(k, s->tmp, m, hints, 2);
    if (id < 0 || proof_delete(k, h[4], c, n)) return -1;
    h[4] = (int32_t)id;
    k->s_strengthened++;
    memcpy(c, s->tmp, (size_t)m * sizeof(int32_t));
    h[0] = m;
    h[3] = (int32_t)s_abstraction(c, m);
    s->nocc[l]--;
    Vec *o = &s->occ[l >> 1];
    int32_t j = 0;
    for (int32_t i = 0; i < o->len; i++)
        if (o->data[i] != cref) o->data[j++] = o->data[i];
    o->len = j;
    s_touch(k, s, l >> 1);
    if (m == 1) {
        h[2] |= S_DEAD;
        s->nocc[c[0]]--;
        s_touch(k, s, c[0] >> 1);
        return s_unit(k, s, c[0], id);
    }
    return s_enqueue_clause(s, cref);
}

/* The live clauses of occ[v] (dead ones are dropped from it now), copied into *buf (the walk
 * may change the list); their number, or -1. */
static int64_t s_snapshot(Simp *s, int32_t v, int32_t **buf, int64_t *cap) {
    Vec *o = &s->occ[v];
    int32_t j = 0;
    for (int32_t i = 0; i < o->len; i++)
        if (!(s->c[o->data[i] + 2] & S_DEAD)) o->data[j++] = o->data[i];
    o->len = j;
    if (grow((void **)buf, cap, j + 1, sizeof(int32_t))) return -1;
    memcpy(*buf, o->data, (size_t)j * sizeof(int32_t));
    return j;
}

/* Level-0 units through the store: clauses they satisfy are deleted, their false literals
 * dropped (the kernel's watches are not attached while simplifying). */
static int s_propagate(Kernel *k, Simp *s) {
    while (s->thead < k->trail_size && !s->unsat) {
        int32_t u = k->trail[s->thead++];
        int64_t n = s_snapshot(s, u >> 1, &s->psnap, &s->psnapcap);
        if (n < 0) return -1;
        int32_t *snap = s->psnap;
        for (int64_t i = 0; i < n && !s->unsat; i++) {
            int32_t cref = snap[i];
            if (s->c[cref + 2] & S_DEAD) continue;
            int32_t *c = s_lits(s, cref), size = s->c[cref], holds = 0;
            s->ticks += size;
            for (int32_t j = 0; j < size; j++) holds |= c[j] == u;
            if (holds ? s_remove(k, s, cref) : s_strengthen(k, s, cref, u ^ 1, s_unit_id(k, u >> 1)))
                return -1;
        }
        s->occ[u >> 1].len = 0;
    }
    return 0;
}

/* Does clause c subsume d (-1), or c with one literal l negated subsume d (l: then d can
 * drop -l), or neither (-2)? */
static int32_t s_subsumes(Simp *s, int32_t c, int32_t d) {
    int32_t nc = s->c[c], nd = s->c[d];
    s->ticks += nd;
    if (nc > nd || ((uint32_t)s->c[c + 3] & ~(uint32_t)s->c[d + 3])) return -2;
    int64_t stamp = ++s->stamp;
    const int32_t *dl = s_lits(s, d), *cl = s_lits(s, c);
    for (int32_t i = 0; i < nd; i++) s->lmark[dl[i]] = stamp;
    int32_t ret = -1;
    for (int32_t i = 0; i < nc; i++) {
        int32_t lit = cl[i];
        if (s->lmark[lit] == stamp) continue;
        if (ret == -1 && s->lmark[lit ^ 1] == stamp) {
            ret = lit;
            continue;
        }
        return -2;
    }
    return ret;
}

/* Backward subsumption: every queued clause deletes the clauses it subsumes and strengthens
 * those it subsumes with one literal negated (candidates: the clauses of its variable with
 * the fewest occurrences). */
static int s_subsume(Kernel *k, Simp *s) {
    while (s->qhead < s->qlen && !s->unsat) {
        int32_t cref = s->queue[s->qhead++];
        s->c[cref + 2] &= ~S_QUEUED;
        if ((s->c[cref + 2] & S_DEAD) || s_spent(k, s)) continue;
        int32_t *c = s_lits(s, cref), size = s->c[cref];
        int32_t best = c[0] >> 1;
        for (int32_t i = 1; i < size; i++) {
            int32_t v = c[i] >> 1;
            if (s->nocc[2 * v] + s->nocc[2 * v + 1] < s->nocc[2 * best] + s->nocc[2 * best + 1])
                best = v;
        }
        int64_t n = s_snapshot(s, best, &s->snap, &s->snapcap);
        if (n < 0) return -1;
        for (int64_t i = 0; i < n && !s->unsat; i++) {
            if (s->c[cref + 2] & S_DEAD) break;
            int32_t d = s->snap[i];
            if (d == cref || (s->c[d + 2] & S_DEAD) || s->c[d] > k->P[P_SUBSUME_LIM]) continue;
            int32_t l = s_subsumes(s, cref, d);
            if (l == -1) {
                k->s_subsumed++;
                if (s_remove(k, s, d)) return -1;
            } else if (l >= 0) { /* cref with l negated subsumes d: d drops -l */
                if (s_strengthen(k, s, d, l ^ 1, s->c[cref + 4]) || s_propagate(k, s)) return -1;
            }
        }
        if (s->qhead == s->qlen) s->qhead = s->qlen = 0;
    }
    if (s->unsat) { /* the queue is dropped: nothing more is simplified */
        for (int64_t i = s->qhead; i < s->qlen; i++) s->c[s->queue[i] + 2] &= ~S_QUEUED;
        s->qhead = s->qlen = 0;
    }
    return 0;
}

/* The resolvent of clauses p (holding v) and q (holding -v) on v into out (when non-null);
 * returns its size, or -1 for a tautology. Literals: p's (but v) in order, then q's new ones. */
static int32_t s_merge(Simp *s, int32_t p, int32_t q, int32_t v, int32_t *out) {
    int32_t np = s->c[p], nq = s->c[q], m = 0;
    const int32_t *pl = s_lits(s, p), *ql = s_lits(s, q);
    int64_t stamp = ++s->stamp;
    s->ticks += np + nq;
    for (int32_t i = 0; i < np; i++) {
        if ((pl[i] >> 1) == v) continue;
        s->lmark[pl[i]] = stamp;
        if (out) out[m] = pl[i];
        m++;
    }
    for (int32_t i = 0; i < nq; i++) {
        int32_t lit = ql[i];
        if ((lit >> 1) == v || s->lmark[lit] == stamp) continue;
        if (s->lmark[lit ^ 1] == stamp) return -1;
        if (out) out[m] = lit;
        m++;
    }
    return m;
}

/* MiniSat's elimclauses: the clause with v's literal first, then its size. */
static int s_keep(Kernel *k, const int32_t *lits, int32_t n, int32_t v) {
    if (grow((void **)&k->elimclauses, &k->ecap, k->etop + n + 1, sizeof(int32_t))) return -1;
    int32_t *e = k->elimclauses + k->etop;
    memcpy(e, lits, (size_t)n * sizeof(int32_t));
    for (int32_t i = 0; i < n; i++)
        if ((e[i] >> 1) == v) {
            int32_t t = e[0];
            e[0] = e[i];
            e[i] = t;
            break;
        }
    e[n] = n;
    k->etop += n + 1;
    return 0;
}

/* Clause id (in the proof) into the store, under the level-0 assignment (= settle): deleted
 * when satisfied; its false literals dropped (a shorter clause, hinted by their units and the
 * clause, replaces it); empty: refuted; one literal: a unit on the trail. Returns 1 for a
 * unit (the caller propagates it), 0, or -1 out of memory. */
static int s_settle(Kernel *k, Simp *s, const int32_t *lits, int32_t n, int64_t id) {
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        if (k->lval[lits[i]] == 1) return proof_delete(k, (int32_t)id, lits, n);
        if (k->lval[lits[i]] == 0) s->tmp[m++] = lits[i];
    }
    if (m < n) {
        k->hbuf.n = 0;
        if (k->proof_on == PROOF_LRAT) {
            for (int32_t i = 0; i < n; i++)
                if (k->lval[lits[i]] == -1 && ivec_push(&k->hbuf, k->unit_id[lits[i] >> 1]))
                    return -1;
            if (ivec_push(&k->hbuf, (int32_t)id)) return -1;
        }
        int64_t shorter = proof_add(k, s->tmp, m, k->hbuf.a, k->hbuf.n);
        if (shorter < 0) return -1;
        if (m == 0) {
            s->unsat = 1;
            return 0;
        }
        if (proof_delete(k, (int32_t)id, lits, n)) return -1;
        id = shorter;
    }
    if (m == 1) return s_unit(k, s, s->tmp[0], id) ? -1 : 1;
    return s_add(k, s, s->tmp, m, id);
}

/* Eliminate v by clause distribution when that does not grow the formula: its resolvents
 * replace the clauses holding it (which are kept for the model). */
static int s_eliminate(Kernel *k, Simp *s, int32_t v) {
    int64_t n = s_snapshot(s, v, &s->snap, &s->snapcap);
    if (n < 0) return -1;
    if (grow((void **)&s->pos, &s->poscap, n + 1, sizeof(int32_t)) ||
        grow((void **)&s->neg, &s->negcap, n + 1, sizeof(int32_t)))
        return -1;
    int64_t np = 0, nn = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t cref = s->snap[i], *c = s_lits(s, cref);
        for (int32_t j = 0; j < s->c[cref]; j++)
            if ((c[j] >> 1) == v) {
                if (c[j] & 1) s->neg[nn++] = cref;
                else s->pos[np++] = cref;
                break;
            }
    }
    int64_t count = 0, lits = 0, removed = 0, pct = k->P[P_ELIM_LITS_PCT];
    for (int64_t i = 0; i < np; i++) removed += s->c[s->pos[i]];
    for (int64_t i = 0; i < nn; i++) removed += s->c[s->neg[i]];
    for (int64_t i = 0; i < np; i++)
        for (int64_t j = 0; j < nn; j++) {
            int32_t size = s_merge(s, s->pos[i], s->neg[j], v, NULL);
            if (size < 0) continue;
            lits += size;
            if (++count > np + nn + k->P[P_ELIM_GROW] || size > k->P[P_ELIM_CLAUSE_LIM] ||
                (pct > 0 && lits * 100 > removed * pct))
                return 0;
        }
    k->elim[v] = 1;
    k->s_eliminated++;
    s->rtop = 0;
    for (int64_t i = 0; i < np; i++)
        for (int64_t j = 0; j < nn; j++) {
            int32_t np_ = s->c[s->pos[i]], nq_ = s->c[s->neg[j]];
            if (grow((void **)&s->res, &s->rcap, s->rtop + np_ + nq_ + 2, sizeof(int32_t)))
                return -1;
            int32_t *r = s->res + s->rtop; /* size, id, literals */
            int32_t size = s_merge(s, s->pos[i], s->neg[j], v, r + 2);
            if (size < 0) continue;
            int32_t hints[2] = {s->c[s->pos[i] + 4], s->c[s->neg[j] + 4]};
            int64_t id = proof_add(k, r + 2, size, hints, 2);
            if (id < 0) return -1;
            r[0] = size;
            r[1] = (int32_t)id;
            s->rtop += size + 2;
            k->s_resolvents++;
        }
    /* the smaller side is kept for the model, then the default for v */
    int32_t *kept = np > nn ? s->neg : s->pos;
    int64_t nkept = np > nn ? nn : np;
    for (int64_t i = 0; i < nkept; i++)
        if (s_keep(k, s_lits(s, kept[i]), s->c[kept[i]], v)) return -1;
    int32_t unit = 2 * v + (np > nn ? 0 : 1);
    if (s_keep(k, &unit, 1, v)) return -1;
    for (int64_t i = 0; i < np; i++)
        if (s_remove(k, s, s->pos[i])) return -1;
    for (int64_t i = 0; i < nn; i++)
        if (s_remove(k, s, s->neg[i])) return -1;
    s->occ[v].len = 0;
    for (int64_t at = 0; at < s->rtop && !s->unsat;) {
        int32_t size = s->res[at], id = s->res[at + 1];
        int rc = s_settle(k, s, s->res + at + 2, size, id);
        at += size + 2;
        if (rc < 0 || (rc == 1 && s_propagate(k, s))) return -1;
    }
    return s_subsume(k, s);
}

static void s_free(Simp *s, int64_t n) {
    if (s->occ)
        for (int64_t v = 0; v < n; v++) free(s->occ[v].data);
    void *bufs[] = {s->c,   s->occ, s->nocc, s->queue, s->heap, s->hpos,  s->snap,
                    s->psnap, s->pos, s->neg, s->res, s->tmp, s->lmark};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) free(bufs[i]);
}

/* The simplified formula back into the kernel: watches, implication lists, the arena and (in
 * LRAT) the binary-clause ids are rebuilt in store order; the decision heap holds the
 * variables still to assign. */
static int s_reattach(Kernel *k, Simp *s) {
    for (int64_t lit = 0; lit < 2 * (int64_t)k->n; lit++) {
        k->bins[lit].len = 0;
        k->watches[lit].len = 0;
    }
    k->atop = 0;
    k->wasted = 0;
    if (k->binid)
        for (int64_t lit = 0; lit < 2 * (int64_t)k->n; lit++) k->binid[lit].len = 0;
    for (int64_t cref = 0; cref < s->top; cref += S_HDR + s->c[cref + 1]) {
        if (s->c[cref + 2] & S_DEAD) continue;
        int32_t *c = s_lits(s, (int32_t)cref), size = s->c[cref], id = s->c[cref + 4];
        if (size == 2) {
            if (bin_push(k, c[0], c[1], id)) return -1;
            continue;
        }
        int32_t at = add_clause(k, c, size, 0, 0, id);
        if (at < 0 || watch_push(k, c[0], at, c[1]) || watch_push(k, c[1], at, c[0])) return -1;
    }
    k->heap_size = 0;
    for (int32_t v = 0; v < k->n; v++) k->hpos[v] = -1;
    for (int32_t v = 0; v < k->n; v++)
        if (!k->elim[v] && k->lval[2 * v] == 0) heap_insert(k, v);
    k->qhead = k->trail_size;
    return 0;
}

/* The preprocessing pass (at level 0, before the first search). Returns 0, UNSAT or -1. */
static int simplify(Kernel *k) {
    k->simplified = 1;
    backtrack(k, 0);
    int32_t confl = propagate(k);
    if (confl == OUT_OF_MEMORY) return -1;
    if (confl != NO_CONFLICT) {
        if (log_refutation(k, confl)) return -1;
        k->status = UNSAT;
        return UNSAT;
    }
    int lrat = k->proof_on == PROOF_LRAT;
    if (lrat) /* every level-0 literal's unit clause, while its reason is still there */
        for (int64_t i = 0; i < k->trail_size; i++)
            if (unit_id_of(k, k->trail[i] >> 1) < 0) return -1;
    /* long learnt clauses go (binary ones stay as clauses of the formula: they are implied);
     * level-0 literals need no reason, and the old ones would point into the old arena */
    for (int64_t i = 0; i < k->nlearnts; i++) {
        int32_t cref = k->learnts[i];
        if (proof_delete(k, lrat ? k->cid[cref] : 0, k->arena + cref + HDR, k->arena[cref]))
            return -1;
        k->arena[cref + 1] |= DELETED;
    }
    k->nlearnts = 0;
    for (int64_t i = 0; i < k->trail_size; i++) k->reason[k->trail[i] >> 1] = NO_REASON;
    int64_t n = k->n;
    Simp s;
    memset(&s, 0, sizeof s);
    s.occ = calloc((size_t)n + 1, sizeof(Vec));
    s.nocc = calloc((size_t)(2 * n + 2), sizeof(int32_t));
    s.heap = malloc(((size_t)n + 1) * sizeof(int32_t));
    s.hpos = malloc(((size_t)n + 1) * sizeof(int32_t));
    s.tmp = malloc(((size_t)n + 1) * sizeof(int32_t));
    s.lmark = calloc((size_t)(2 * n + 2), sizeof(int64_t));
    s.cap = k->atop + 1024;
    s.c = malloc((size_t)s.cap * sizeof(int32_t));
    int rc = -1;
    if (!s.occ || !s.nocc || !s.heap || !s.hpos || !s.tmp || !s.lmark || !s.c) goto done;
    for (int64_t v = 0; v < n; v++) s.hpos[v] = -1;
    s.budget = k->P[P_SIMP_EFFORT];
    s.next_clock = S_CLOCK_EVERY;
    s.thead = k->trail_size;
    /* binary clauses (from the smaller literal's list, each once), then the long ones in load
     * order */
    for (int32_t lit = 0; lit < 2 * k->n && !s.unsat; lit++) {
        Vec *b = &k->bins[lit];
        int64_t stamp = ++s.stamp;
        for (int32_t i = 0; i < b->len && !s.unsat; i++) {
            int32_t pair[2] = {lit, b->data[i]};
            if (pair[1] < lit || s.lmark[pair[1]] == stamp) continue;
            s.lmark[pair[1]] = stamp;
            int32_t id = lrat ? k->binid[lit].data[i] : 0;
            if (s_settle(k, &s, pair, 2, id) < 0) goto done;
        }
    }
    for (int64_t cref = 0; cref < k->atop && !s.unsat; cref += HDR + k->arena[cref])
        if (!(k->arena[cref + 1] & (DELETED | LEARNT)) &&
            s_settle(k, &s, k->arena + cref + HDR, k->arena[cref], lrat ? k->cid[cref] : 0) < 0)
            goto done;
    for (int32_t v = 0; v < k->n; v++) s_touch(k, &s, v);
    if (s_propagate(k, &s)) goto done;
    if (s_subsume(k, &s)) goto done;
    while (s.hsize > 0 && !s.unsat) {
        int32_t v = s_pop(&s);
        if (k->elim[v] || k->frozen[v] || k->lval[2 * v] != 0 || s_spent(k, &s)) continue;
        if (s_eliminate(k, &s, v)) goto done;
    }
    if (s.unsat) {
        k->status = UNSAT;
        rc = UNSAT;
        goto done;
    }
    rc = s_reattach(k, &s) ? -1 : 0;
done:
    s_free(&s, n);
    if (rc == -1) return -1;
    return rc;
}

/* The model, with the eliminated variables' values rebuilt (MiniSat's extendModel): walking
 * the kept clauses from the last, a clause none of whose other literals is true makes its
 * first literal (of the eliminated variable) true. val: per variable 1 / -1 / 0 (unset). */
static void extend_model(Kernel *k, int8_t *val) {
    int64_t at = k->etop;
    while (at > 0) {
        int32_t size = k->elimclauses[at - 1];
        int64_t start = at - 1 - size;
        const int32_t *c = k->elimclauses + start;
        int sat = 0;
        for (int32_t i = 1; i < size && !sat; i++) {
            int8_t x = val[c[i] >> 1];
            sat = x != 0 && (x == 1) == !(c[i] & 1);
        }
        if (!sat) val[c[0] >> 1] = (c[0] & 1) ? -1 : 1;
        at = start;
    }
}

/* --- the search's schedules ------------------------------------------------------------------ */
/* The i-th term (from 0) of the Luby sequence 1 1 2 1 1 2 4 ... (MiniSat's luby, base 2). */
static int64_t luby(int64_t i) {
    int64_t size = 1, seq = 0;
    while (size < i + 1) {
        seq++;
        size = 2 * size + 1;
    }
    int64_t x = i;
    while (size - 1 != x) {
        size = (size - 1) >> 1;
        seq--;
        x = x % size;
    }
    return (int64_t)1 << seq;
}

/* --- restarts (= focused ... restart_due of cdcl/readable.py) ------------------------------ */
/* Glucose restarts now: the glucose policy, or a focused phase of the mixed one. */
static inline int focused(const Kernel *k) {
    return k->restart_mode == RESTART_GLUCOSE || (k->restart_mode == RESTART_MIXED && !k->stable);
}

/* At a conflict, in glucose mode: the trail's length joins the window of recent ones; while
 * the trail is much longer than their average (the search may be close to a model), the
 * recent LBDs are forgotten, which postpones the next restart. */
static inline void block_restart(Kernel *k) {
    const int64_t *P = k->P;
    int64_t len = P[P_TRAILQ_LEN];
    if (k->trailq_n == len) k->trailq_sum -= k->trailq[k->trailq_head];
    else k->trailq_n++;
    k->trailq[k->trailq_head] = k->trail_size;
    k->trailq_sum += k->trail_size;
    k->trailq_head = (k->trailq_head + 1) % len;
    if (k->conflicts > P[P_BLOCK_MIN] && k->lbdq_n == P[P_LBDQ_LEN] && k->trailq_n == len &&
        100 * k->trail_size * len > P[P_BLOCK_R_PCT] * k->trailq_sum) {
        k->lbdq_n = 0;
        k->lbdq_sum = 0;
        k->blocked++;
    }
}

/* Mixed restarts: focused (glucose) and stable (Luby) phases alternate; the k-th phase lasts
 * k * switch conflicts. A switch starts the new phase with no restart count and no recent
 * LBDs. */
static inline void switch_phase(Kernel *k) {
    if (k->restart_mode == RESTART_MIXED && k->conflicts >= k->switch_at) {
        k->stable = !k->stable;
        k->switches++;
        k->switch_at = k->conflicts + k->P[P_SWITCH] * (k->switches + 1);
        k->since_restart = 0;
        k->lbdq_n = 0;
        k->lbdq_sum = 0;
    }
}

/* Luby: after luby_unit * luby(i) conflicts. Glucose: when the recent LBDs, times K percent,
 * exceed the average of all (in integers). Never with RESTART_NONE. */
static inline int restart_due(const Kernel *k) {
    const int64_t *P = k->P;
    if (k->restart_mode == RESTART_LUBY || (k->restart_mode == RESTART_MIXED && k->stable))
        return k->since_restart >= P[P_LUBY_UNIT] * luby(k->luby_i);
    if (k->restart_mode == RESTART_NONE) return 0;
    return k->lbdq_n == P[P_LBDQ_LEN] &&
           k->lbdq_sum * P[P_GLUCOSE_K_PCT] * k->conflicts > 100 * k->lbd_sum * P[P_LBDQ_LEN];
}

/* --- the search ------------------------------------------------------------------------------ */
/* Learn from conflict confl (= learn of cdcl/readable.py): analyze it, backjump, log and add
 * the learnt clause (a unit, a binary in the implication lists, or a watched arena clause)
 * and assert its first literal; decay the activities and push its LBD into the window.
 * Before: confl conflicts at decision level > 0 (> 1 with assumptions). After: the learnt
 * clause is asserting on the trail and not yet propagated. Returns 0, or -1 out of memory. */
static int learn(Kernel *k, int32_t confl) {
    int64_t back, lbd;
    int64_t size = analyze(k, confl, &back, &lbd);
    int lrat = k->proof_on == PROOF_LRAT;
    k->hunits.n = k->hchain.n = 0;
    if (lrat && learnt_hints(k, confl, size)) return -1;
    backtrack(k, back);
    int64_t id = proof_add2(k, k->out, size, k->hunits.a, k->hunits.n, k->hchain.a, k->hchain.n);
    if (id < 0) return -1;
    k->learnt++;
    if (size == 1) {
        enqueue(k, k->out[0], NO_REASON);
        if (lrat) k->unit_id[k->out[0] >> 1] = (int32_t)id;
    } else if (size == 2) {
        if (bin_push(k, k->out[0], k->out[1], (int32_t)id)) return -1;
        enqueue(k, k->out[0], binary_reason(k->out[1]));
    } else {
        int32_t cref = add_clause(k, k->out, size, 1, lbd, id);
        if (cref < 0) return -1;
        if (watch_push(k, k->out[0], cref, k->out[1])) return -1;
        if (watch_push(k, k->out[1], cref, k->out[0])) return -1;
        if (grow((void **)&k->learnts, &k->learnts_cap, k->nlearnts + 1, sizeof(int32_t)))
            return -1;
        k->learnts[k->nlearnts++] = cref;
        enqueue(k, k->out[0], cref);
    }
    k->var_inc /= k->decay;
    k->lbd_sum += lbd;
    int64_t qlen = k->P[P_LBDQ_LEN];
    if (k->lbdq_n == qlen) k->lbdq_sum -= k->lbdq[k->lbdq_head];
    else k->lbdq_n++;
    k->lbdq[k->lbdq_head] = lbd;
    k->lbdq_sum += lbd;
    k->lbdq_head = (k->lbdq_head + 1) % qlen;
    return 0;
}

/* CDCL until an answer or a limit (= search of cdcl/readable.py).
 * Before: the formula is loaded (load: units queued on level 0, not yet propagated); with
 * assumptions, they are literals of existing variables, placed together on decision level 1
 * whenever the search is at level 0.
 * After: SAT: every variable (not eliminated) is assigned, no clause is false, the trail holds
 * the model (extend_model rebuilds the eliminated ones). UNSAT: the empty clause is logged
 * (proof complete) and k->status is UNSAT for good. UNSAT_ASSUMED: the assumptions contradict
 * the formula (what was learnt stays valid without them). UNKNOWN: max_conflicts of this call,
 * the deadline or an interrupt; the state is consistent, and a later call resumes. -1: out of
 * memory. */
static int search(Kernel *k, const int32_t *assumps, int64_t nassumps, int64_t max_conflicts) {
    int64_t conflicts_at_start = k->conflicts;
    int64_t *P = k->P;
    for (;;) {
        int32_t confl = propagate(k);
        if (confl == OUT_OF_MEMORY) return -1;
        if (confl != NO_CONFLICT) {
            k->conflicts++;
            k->since_restart++;
            if (k->dl == 0) {
                if (log_refutation(k, confl)) return -1;
                k->status = UNSAT;
                return UNSAT;
            }
            if (k->dl == 1 && nassumps > 0) return UNSAT_ASSUMED;
            if (focused(k)) block_restart(k);
            if (learn(k, confl)) return -1;
            continue;
        }
        if (P[P_SIMPLIFY] && !k->simplified &&
            k->conflicts >= P[P_SIMP_DELAY]) {
            int r = simplify(k); /* at level 0; the assumptions are placed again below */
            if (r != 0) return r;
            continue;
        }
        switch_phase(k);
        if (restart_due(k)) {
            backtrack(k, nassumps > 0 ? 1 : 0); /* keep the assumptions' level */
            k->restarts++;
            k->luby_i++;
            k->since_restart = 0;
            k->lbdq_n = 0;
            k->lbdq_sum = 0;
        }
        if (k->conflicts >= k->next_reduce) {
            k->next_reduce = k->conflicts + k->reduce_first + (k->reduces + 1) * k->reduce_inc;
            if (reduce_db(k)) return -1;
            if (k->wasted * 2 > k->atop && collect_garbage(k)) return -1;
        }
        if (k->conflicts - conflicts_at_start >= max_conflicts) return UNKNOWN;
        if (k->ticks >= k->next_check) {
            k->next_check = k->ticks + CLOCK_EVERY;
            if (k->stop) return UNKNOWN;
            if (k->deadline >= 0 && now_seconds() >= k->deadline) return UNKNOWN;
        }
        if (k->dl == 0 && nassumps > 0) {
            /* all assumptions at once, on decision level 1 */
            k->trail_lim[0] = (int32_t)k->trail_size;
            k->dl = 1;
            for (int64_t i = 0; i < nassumps; i++) {
                int32_t p = assumps[i];
                if (k->lval[p] == -1) return UNSAT_ASSUMED;
                if (k->lval[p] == 0) enqueue(k, p, NO_REASON);
            }
            continue;
        }
        int32_t nxt = -1;
        while (k->heap_size > 0) {
            int32_t v = heap_pop(k);
            if (k->lval[2 * v] == 0) {
                nxt = 2 * v + k->phase[v];
                break;
            }
        }
        if (nxt < 0) return SAT;
        k->decisions++;
        k->trail_lim[k->dl] = (int32_t)k->trail_size;
        k->dl++;
        if (k->dl > k->max_level) k->max_level = k->dl;
        enqueue(k, nxt, NO_REASON);
    }
}

/* --- what the binding calls (kernel.h) ------------------------------------------------------- */
int kernel_init(Kernel *k, int32_t num_vars, int restart_mode, int negative, double decay,
                int proof) {
    int64_t n = num_vars;
    k->n = num_vars;
    k->lval = calloc((size_t)(2 * n + 1), 1);
    k->level = calloc((size_t)(n + 1), sizeof(int32_t));
    k->reason = malloc((size_t)(n + 1) * sizeof(int32_t));
    k->trail = calloc((size_t)(n + 1), sizeof(int32_t));
    k->trail_lim = calloc((size_t)(n + 1), sizeof(int32_t));
    k->phase = malloc((size_t)(n + 1));
    k->model = calloc((size_t)(n + 1), 1);
    k->act = calloc((size_t)(n + 1), sizeof(double));
    k->heap = malloc((size_t)(n + 1) * sizeof(int32_t));
    k->hpos = malloc((size_t)(n + 1) * sizeof(int32_t));
    k->watches = calloc((size_t)(2 * n + 1), sizeof(Vec));
    k->bins = calloc((size_t)(2 * n + 1), sizeof(Vec));
    k->seen = calloc((size_t)(n + 1), 1);
    k->out = calloc((size_t)(n + 1), sizeof(int32_t));
    k->stack = calloc((size_t)(n + 1), sizeof(int32_t));
    k->toclear = calloc((size_t)(n + 1), sizeof(int32_t));
    k->stamp = calloc((size_t)(n + 2), sizeof(int64_t));
    k->mark = calloc((size_t)(n + 1), sizeof(int64_t));
    k->tmp = calloc((size_t)(n + 1), sizeof(int32_t));
    k->frozen = calloc((size_t)(n + 1), 1);
    k->elim = calloc((size_t)(n + 1), 1);
    k->lbdq = calloc((size_t)k->P[P_LBDQ_LEN], sizeof(int64_t));
    k->trailq = calloc((size_t)k->P[P_TRAILQ_LEN], sizeof(int64_t));
    k->acap = 1024;
    k->arena = malloc((size_t)k->acap * sizeof(int32_t));
    k->learnts_cap = 1024;
    k->learnts = malloc((size_t)k->learnts_cap * sizeof(int32_t));
    k->pcap = proof ? 4096 : 16;
    k->proof = malloc((size_t)k->pcap * sizeof(int32_t));
    if (proof == PROOF_LRAT) {
        k->unit_id = calloc((size_t)(n + 1), sizeof(int32_t));
        k->lmark = calloc((size_t)(n + 1), sizeof(int64_t));
        k->cidcap = k->acap;
        k->cid = malloc((size_t)k->cidcap * sizeof(int32_t));
        k->binid = calloc((size_t)(2 * n + 1), sizeof(Vec));
        if (!k->unit_id || !k->lmark || !k->cid || !k->binid) return -1;
    }
    if (!k->lval || !k->level || !k->reason || !k->trail || !k->trail_lim || !k->phase ||
        !k->model || !k->act || !k->heap || !k->hpos || !k->watches || !k->bins || !k->seen || !k->out ||
        !k->stack || !k->toclear || !k->stamp || !k->mark || !k->tmp || !k->arena ||
        !k->learnts || !k->proof || !k->lbdq || !k->trailq || !k->frozen || !k->elim)
        return -1;
    for (int64_t v = 0; v < n; v++) {
        k->reason[v] = NO_REASON;
        k->phase[v] = negative ? 1 : 0;
        k->heap[v] = (int32_t)v;
        k->hpos[v] = (int32_t)v;
    }
    k->heap_size = n;
    k->var_inc = 1.0;
    k->decay = decay;
    k->proof_on = proof;
    k->restart_mode = restart_mode;
    /* = reduce_schedule of cdcl/readable.py */
    k->reduce_first = k->P[P_REDUCE_FIRST];
    k->reduce_inc = k->P[P_REDUCE_INC];
    if (k->P[P_REDUCE_PER_VAR] > 0 && k->P[P_REDUCE_PER_VAR] * n < k->reduce_first) {
        int64_t scaled = k->P[P_REDUCE_PER_VAR] * n > 0 ? k->P[P_REDUCE_PER_VAR] * n : 1;
        k->reduce_inc = k->reduce_inc * scaled / k->reduce_first;
        k->reduce_first = scaled;
    }
    k->next_reduce = k->reduce_first;
    k->switch_at = k->P[P_SWITCH];
    k->deadline = -1.0;
    k->status = UNKNOWN;
    return 0;
}

void kernel_free(Kernel *k) {
    for (int64_t i = 0; i < 2 * (int64_t)k->n; i++) {
        if (k->watches) free(k->watches[i].data);
        if (k->bins) free(k->bins[i].data);
        if (k->binid) free(k->binid[i].data);
    }
    void *bufs[] = {k->lval,  k->level, k->reason, k->trail,  k->trail_lim, k->phase,
                    k->act,   k->heap,  k->hpos,   k->arena,  k->watches,   k->bins,
                    k->learnts, k->seen, k->out,   k->stack,  k->toclear,   k->stamp,
                    k->mark,  k->tmp,   k->proof,  k->lbdq,   k->trailq,    k->frozen,
                    k->elim,  k->elimclauses, k->model,
                    k->unit_id, k->cid, k->lmark, k->binid,
                    k->lstack.a, k->ustack.a, k->hunits.a, k->hchain.a, k->hbuf.a};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) free(bufs[i]);
}

int kernel_grow(void **ptr, int64_t *cap, int64_t need, size_t item) {
    return grow(ptr, cap, need, item);
}

void kernel_no_deadline(Kernel *k) { k->deadline = -1.0; }

void kernel_set_deadline(Kernel *k, double seconds) {
    k->deadline = now_seconds() + (seconds > 0 ? seconds : 0.0);
    k->next_check = k->ticks; /* look at the clock at the first chance */
}

int kernel_expired(const Kernel *k) { return k->deadline >= 0 && now_seconds() >= k->deadline; }

void kernel_begin_load(Kernel *k, Staging *st) {
    /* clauses added after a search: back to level 0, where every clause is propagated again
     * (qhead 0), so a new clause meets the literals already fixed there */
    backtrack(k, 0);
    k->qhead = 0;
    *st = (Staging){NULL, 0, 0, k->atop};
}

int kernel_load_clause(Kernel *k, Staging *st, const int32_t *dimacs, int64_t count) {
    return load_clause(k, st, dimacs, count);
}

int kernel_attach_staged(Kernel *k, Staging *st) { return attach_staged(k, st); }

/* The end of loading: an empty clause found (or two opposite units) is the proof's only step. */
int kernel_end_load(Kernel *k, Staging *st, int stopped) {
    free(st->pairs);
    st->pairs = NULL;
    if (stopped) return 0;
    if (k->status == UNSAT && k->proof_on && !k->empty_logged) {
        if (proof_add(k, k->tmp, 0, k->refute, k->nrefute) < 0) return -1;
        k->empty_logged = 1;
    }
    return 0;
}

int kernel_solve(Kernel *k, const int32_t *assumps, int64_t nassumps, int64_t max_conflicts) {
    backtrack(k, 0);
    int status = search(k, assumps, nassumps, max_conflicts);
    if (status == SAT) { /* kept: later calls change the assignment, not this answer */
        for (int32_t v = 0; v < k->n; v++) k->model[v] = k->lval[2 * v];
        extend_model(k, k->model); /* eliminated variables get their values back */
        k->has_model = 1;
    }
    return status;
}

/* --- propagation alone (satdoku analyze) ----------------------------------------------------- */
/* What unit propagation, and failed-literal probing to a fixpoint, decide from the loaded
 * formula plus each group of literals, with no search: the group is asserted on decision level
 * 1 and propagated (and probed: every open literal tried on level 2, one that fails negated on
 * level 1, until a round finds none), the values are read, and everything is undone. The
 * loaded clauses serve every group. Readable form: cdcl/readable.py Kernel.propagate_units. */

/* Failed-literal probing on level 1 to a fixpoint: 0 fixpoint, 1 level 1 refuted, -1 out of
 * memory; *failed counts the failed literals. The literals are visited in a cycle (positive ones
 * by variable, then negative ones) until a whole cycle finds no failed literal. stamp[lit] ==
 * *epoch: a probe since the last failure implied lit without a conflict, so probing lit cannot
 * fail (UP is monotone). */
static int probe_failed_literals(Kernel *k, int64_t *stamp, int64_t *epoch, int64_t *failed) {
    int64_t n = k->n, pos = 0, since = 0; /* since: literals visited since the last failure */
    while (since < 2 * n) {
        int32_t lit = (int32_t)(pos < n ? 2 * pos : 2 * (pos - n) + 1);
        pos = pos + 1 == 2 * n ? 0 : pos + 1;
        since++;
        if (k->lval[lit] != 0 || stamp[lit] == *epoch) continue;
        k->trail_lim[1] = (int32_t)k->trail_size;
        k->dl = 2;
        enqueue(k, lit, NO_REASON);
        int32_t confl = propagate(k);
        if (confl == OUT_OF_MEMORY) return -1;
        if (confl == NO_CONFLICT)
            for (int64_t i = k->trail_lim[1] + 1; i < k->trail_size; i++)
                stamp[k->trail[i]] = *epoch;
        backtrack(k, 1);
        if (confl == NO_CONFLICT) continue;
        (*failed)++;
        (*epoch)++;
        since = 0;
        enqueue(k, lit ^ 1, NO_REASON);
        confl = propagate(k);
        if (confl == OUT_OF_MEMORY) return -1;
        if (confl != NO_CONFLICT) return 1;
    }
    return 0;
}

/* One group on level 1: assert, propagate, probe; the values of variables 1..report into vals
 * (all 0 when refuted). Returns -1 refuted, the failed literals found, or -2 out of memory. */
static int64_t propagate_group(Kernel *k, const int32_t *lits, int64_t count, int probe,
                               int64_t *stamp, int64_t *epoch, int8_t *vals, int32_t report) {
    int refuted = k->status == UNSAT;
    int64_t failed = 0;
    if (!refuted) {
        k->trail_lim[0] = (int32_t)k->trail_size;
        k->dl = 1;
        for (int64_t i = 0; i < count && !refuted; i++) {
            int32_t d = lits[i];
            int32_t lit = 2 * ((d < 0 ? -d : d) - 1) + (d < 0 ? 1 : 0);
            if (k->lval[lit] == -1) refuted = 1;
            else if (k->lval[lit] == 0) enqueue(k, lit, NO_REASON);
        }
    }
    if (!refuted) {
        int32_t confl = propagate(k);
        if (confl == OUT_OF_MEMORY) return -2;
        refuted = confl != NO_CONFLICT;
    }
    if (!refuted && probe) {
        (*epoch)++;
        int r = probe_failed_literals(k, stamp, epoch, &failed);
        if (r < 0) return -2;
        refuted = r == 1;
    }
    for (int32_t v = 0; v < report; v++) vals[v] = refuted ? 0 : k->lval[2 * v];
    backtrack(k, 0);
    return refuted ? -1 : failed;
}

int kernel_propagate_groups(Kernel *k, const int32_t *lits, int64_t count, int probe,
                            int32_t report, int32_t *out, int8_t *vals) {
    int64_t *stamp = calloc((size_t)(2 * (int64_t)k->n + 1), sizeof(int64_t));
    if (!stamp) return -1;
    int nomem = 0;
    backtrack(k, 0);
    if (k->status != UNSAT) {
        int32_t confl = propagate(k);
        if (confl == OUT_OF_MEMORY) nomem = 1;
        else if (confl != NO_CONFLICT) k->status = UNSAT;
    }
    int64_t epoch = 1, start = 0, g = 0;
    for (int64_t i = 0; i < count && !nomem; i++) {
        if (lits[i] != 0) continue;
        int64_t r = propagate_group(k, lits + start, i - start, probe, stamp, &epoch,
                                    vals + g * report, report);
        if (r == -2) nomem = 1;
        out[g++] = (int32_t)r;
        start = i + 1;
    }
    free(stamp);
    return nomem ? -1 : 0;
}


/* --- the proof as text or binary ------------------------------------------------------------ */
/* Buffered output for write_proof: numbers formatted by hand (fprintf per number made
 * writing a proof cost a third of the search it records). */
typedef struct {
    FILE *fh;
    char buf[1 << 16];
    size_t n;
    int bad;
} Out;

static void out_flush(Out *o) {
    if (o->n && fwrite(o->buf, 1, o->n, o->fh) != o->n) o->bad = 1;
    o->n = 0;
}

/* The number x, then the character after (a space, or a newline). */
static inline void out_num(Out *o, int64_t x, char after) {
    if (o->n > sizeof o->buf - 32) out_flush(o);
    char tmp[24];
    int t = 0;
    uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    do {
        tmp[t++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (x < 0) o->buf[o->n++] = '-';
    while (t) o->buf[o->n++] = tmp[--t];
    o->buf[o->n++] = after;
}

static inline void out_str(Out *o, const char *text) {
    size_t len = strlen(text);
    if (o->n + len > sizeof o->buf) out_flush(o);
    memcpy(o->buf + o->n, text, len);
    o->n += len;
}

/* One byte of a binary proof (a step's 'a' or 'd', or the 0 that ends a list). */
static inline void out_byte(Out *o, char c) {
    if (o->n >= sizeof o->buf) out_flush(o);
    o->buf[o->n++] = c;
}

/* x as a number of the binary proof formats (= write_varint of cnf/drat.py): 2*|x| + (x < 0)
 * in 7-bit groups, low first, the high bit set on every group but the last. */
static inline void out_varint(Out *o, int64_t x) {
    if (o->n > sizeof o->buf - 16) out_flush(o);
    uint64_t u = x < 0 ? 2 * ((uint64_t)0 - (uint64_t)x) + 1 : 2 * (uint64_t)x;
    while (u >= 0x80) {
        o->buf[o->n++] = (char)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    o->buf[o->n++] = (char)u;
}

/* The proof log in the binary formats (= to_binary of cnf/lrat.py over lrat_lines, or of
 * cnf/drat.py over drup_lines): LRAT 'a' id literals 0 hints 0, consecutive deletions one
 * 'd' ids 0; DRAT 'a' or 'd', literals, 0. Shorter than the text and read without decimal
 * parsing: what the solve path writes for a proof nobody keeps (issue 29). */
static void write_binary(const Kernel *k, Out *o) {
    int64_t pos = 0;
    if (k->proof_on == PROOF_LRAT) {
        int deleting = 0;
        while (pos < k->ptop && !o->bad) {
            const int32_t *p = k->proof + pos;
            int32_t tag = p[0], id = p[1], size = p[2];
            if (tag == 2) {
                if (!deleting) out_byte(o, 'd');
                out_varint(o, id);
                deleting = 1;
                pos += 3 + size;
                continue;
            }
            if (deleting) out_byte(o, 0);
            deleting = 0;
            out_byte(o, 'a');
            out_varint(o, id);
            for (int32_t i = 0; i < size; i++) out_varint(o, p[3 + i]);
            out_byte(o, 0);
            int32_t nh = p[3 + size];
            for (int32_t i = 0; i < nh; i++) out_varint(o, p[4 + size + i]);
            out_byte(o, 0);
            pos += 4 + size + nh;
        }
        if (deleting) out_byte(o, 0);
        return;
    }
    while (pos < k->ptop && !o->bad) {
        int32_t tag = k->proof[pos], size = k->proof[pos + 1];
        out_byte(o, tag == 2 ? 'd' : 'a');
        for (int32_t i = 0; i < size; i++) out_varint(o, k->proof[pos + 2 + i]);
        out_byte(o, 0);
        pos += 2 + size;
    }
}

int kernel_write_proof(const Kernel *k, FILE *fh, int binary) {
    Out *o = malloc(sizeof(Out));
    if (!o) return -1;
    o->fh = fh;
    o->n = 0;
    o->bad = 0;
    int64_t pos = 0;
    if (binary) {
        write_binary(k, o);
    } else if (k->proof_on == PROOF_LRAT) {
        /* = lrat_lines: consecutive deletions on one line, led by the last added id */
        int64_t last = k->loaded;
        int deleting = 0;
        while (pos < k->ptop && !o->bad) {
            const int32_t *p = k->proof + pos;
            int32_t tag = p[0], id = p[1], size = p[2];
            if (tag == 2) {
                if (!deleting) {
                    out_num(o, last, ' ');
                    out_str(o, "d ");
                }
                out_num(o, id, ' ');
                deleting = 1;
                pos += 3 + size;
                continue;
            }
            if (deleting) out_str(o, "0\n");
            deleting = 0;
            out_num(o, id, ' ');
            for (int32_t i = 0; i < size; i++) out_num(o, p[3 + i], ' ');
            int32_t nh = p[3 + size];
            out_str(o, "0 ");
            for (int32_t i = 0; i < nh; i++) out_num(o, p[4 + size + i], ' ');
            out_str(o, "0\n");
            last = id;
            pos += 4 + size + nh;
        }
        if (deleting) out_str(o, "0\n");
    } else { /* = drup_lines */
        while (pos < k->ptop && !o->bad) {
            int32_t tag = k->proof[pos], size = k->proof[pos + 1];
            if (tag == 2) out_str(o, "d ");
            for (int32_t i = 0; i < size; i++) out_num(o, k->proof[pos + 2 + i], ' ');
            out_str(o, "0\n");
            pos += 2 + size;
        }
    }
    out_flush(o);
    int bad = o->bad;
    free(o);
    return bad ? -1 : 0;
}
