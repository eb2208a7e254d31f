/* The compiled DRAT checker of satdoku (module satdoku.cnf._drat; Python side and semantics:
 * satdoku/cnf/drat.py, whose readable forward checker in Python is its twin and oracle).
 *
 * check(formula, num_vars, proof, time_limit, mode) -> (code, message, lemmas, checked)
 *   formula: flat int32 literals, a 0 after each clause; proof: text or binary DRAT bytes;
 *   time_limit: seconds (< 0: none); mode 0 backward (core-first, only the lemmas the
 *   refutation needs are checked), 1 forward (every lemma). code 0 verified, 1 rejected,
 *   2 out of budget.
 *
 * Backward mode, as drat-trim: a forward pass adds every lemma (watched literals, top-level
 * unit propagation) until propagation conflicts; the conflict's clauses are marked; then the
 * proof is walked back: a deletion is undone, a lemma is removed and, if marked, checked by
 * RUP (negate, propagate marked clauses first, mark what the conflict used) or else RAT on its
 * first literal. A removed lemma that is the reason of a top-level literal truncates the
 * top-level trail there and propagation starts again from the first literal (so the top level
 * is always the full unit-propagation closure of the active clauses). Deleting a clause that
 * is unit at the top level (every literal assigned, one true: it may be the reason of that
 * literal) is ignored whole, as drat-trim ignores deletions of unit clauses and as the
 * reference does: the clause stays for propagation and for RAT checks (kept for propagation
 * but left out of RAT, a lemma RAT on the negation of its true literal made the top level
 * inconsistent: [[1]] with "d 1 0", "-1 0" was a "refutation"). Literals are 2*v + (negative).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_VAR (1 << 27)
#define HDR 3 /* clause header before its literals: flags, id, size */
#define F_CORE 1
#define F_TAUT 2
#define F_DELREQ 4   /* a deletion request, not a clause */
#define F_ATTACHED 8

typedef struct { int cls, blocker; } Watch;
typedef struct { Watch *w; int n, cap; } WList;
typedef struct { int *a; size_t n, cap; } IVec;

typedef struct {
    IVec arena;      /* clause headers + literals */
    IVec offs;       /* clause id -> offset of its first literal */
    IVec added;      /* clause id -> step that added it (0: formula) */
    IVec deleted;    /* clause id -> step that deleted it (INT_MAX: never) */
    IVec pivot;      /* clause id -> its first literal as written */
    IVec hnext;      /* clause id -> next clause id in its hash bucket */
    IVec steps;      /* step k (1-based at index k-1) -> clause offset (add) or request */
    IVec units;      /* offsets of attached unit clauses */
    int nformula;    /* clauses of the formula */
    int nvars;
    signed char *val;
    int *reason, *tpos, *trail, *stamp;
    unsigned char *seen;
    int tlen, qcore, qall, corefirst;
    WList *watch;
    int *hbucket;
    size_t hmask;
    double deadline;
    unsigned long ticks;
    int out, oom;
    char msg[320];
} S;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int over(S *s) {
    if (s->deadline > 0 && now() > s->deadline) { s->out = 1; return 1; }
    return 0;
}

static int ipush(S *s, IVec *v, int x) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 1024;
        int *a = realloc(v->a, cap * sizeof(int));
        if (!a) { s->oom = 1; return 0; }
        v->a = a; v->cap = cap;
    }
    v->a[v->n++] = x;
    return 1;
}

static int wpush(S *s, WList *l, int cls, int blocker) {
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 4;
        Watch *w = realloc(l->w, (size_t)cap * sizeof(Watch));
        if (!w) { s->oom = 1; return 0; }
        l->w = w; l->cap = cap;
    }
    l->w[l->n].cls = cls;
    l->w[l->n].blocker = blocker;
    l->n++;
    return 1;
}

static void wremove(WList *l, int cls) {
    for (int i = 0; i < l->n; i++)
        if (l->w[i].cls == cls) { l->w[i] = l->w[--l->n]; return; }
}

#define FLAGS(s, c) ((s)->arena.a[(c) - 3])
#define CID(s, c) ((s)->arena.a[(c) - 2])
#define SIZE(s, c) ((s)->arena.a[(c) - 1])
#define LITS(s, c) ((s)->arena.a + (c))

static inline int enc(int lit) { return lit > 0 ? 2 * lit : -2 * lit + 1; }
static inline int dec(int l) { return (l & 1) ? -(l >> 1) : (l >> 1); }

/* Start a clause in the arena (its literals follow with ipush); returns its offset. */
static int begin_clause(S *s, int flags) {
    ipush(s, &s->arena, flags);
    ipush(s, &s->arena, (int)s->offs.n);
    ipush(s, &s->arena, 0);
    int off = (int)s->arena.n;
    ipush(s, &s->offs, off);
    return off;
}

static void end_clause(S *s, int off, int step) {
    SIZE(s, off) = (int)s->arena.n - off;
    int n = SIZE(s, off);
    ipush(s, &s->added, step);
    ipush(s, &s->deleted, INT_MAX);
    ipush(s, &s->pivot, n ? s->arena.a[off] : 0);
    ipush(s, &s->hnext, -1);
}

/* ---- parsing (the proof parsers return 1, 0 on a malformed proof, -1 out of budget) ---- */

static int parse_formula(S *s, const int *f, Py_ssize_t n) {
    Py_ssize_t i = 0;
    while (i < n) {
        int off = begin_clause(s, 0);
        while (i < n && f[i] != 0) {
            int lit = f[i++];
            if (lit < -MAX_VAR || lit > MAX_VAR) {
                snprintf(s->msg, sizeof s->msg, "formula literal %d out of range", lit);
                return 0;
            }
            if (abs(lit) > s->nvars) s->nvars = abs(lit);
            ipush(s, &s->arena, enc(lit));
        }
        i++; /* the 0 (a missing last 0 ends the clause all the same) */
        end_clause(s, off, 0);
        if (s->oom) return 0;
    }
    s->nformula = (int)s->offs.n;
    return 1;
}

static int add_step(S *s, int off, int deleting, int step) {
    end_clause(s, off, step);
    if (deleting) s->added.a[s->added.n - 1] = INT_MAX;
    return ipush(s, &s->steps, off);
}

static int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int parse_text(S *s, const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t i = 0;
    int line = 1, in_step = 0, deleting = 0, off = 0, step = 0;
    while (1) {
        while (i < n && is_space(p[i])) { if (p[i] == '\n') line++; i++; }
        if (i >= n) break;
        unsigned char c = p[i];
        if (c == '-' || (c >= '0' && c <= '9')) {
            Py_ssize_t start = i;
            int neg = c == '-';
            if (neg) i++;
            if (i >= n || p[i] < '0' || p[i] > '9') {
                snprintf(s->msg, sizeof s->msg, "proof line %d: unexpected '-'", line);
                return 0;
            }
            long long v = 0;
            int big = 0;
            while (i < n && p[i] >= '0' && p[i] <= '9') {
                if (v <= MAX_VAR) v = 10 * v + (p[i] - '0'); else big = 1;
                i++;
            }
            if (big || v > MAX_VAR) {
                int len = (int)(i - start) > 40 ? 40 : (int)(i - start);
                snprintf(s->msg, sizeof s->msg, "proof line %d: literal %.*s out of range",
                         line, len, (const char *)p + start);
                return 0;
            }
            if (!in_step) {
                if ((step & 0xffff) == 0xffff && over(s)) return -1;
                in_step = 1; deleting = 0; off = begin_clause(s, 0);
            }
            if (v == 0) {
                if (!add_step(s, off, deleting, ++step)) return 0;
                if (deleting) FLAGS(s, off) |= F_DELREQ;
                in_step = 0;
            } else {
                int lit = neg ? -(int)v : (int)v;
                if ((int)v > s->nvars) s->nvars = (int)v;
                ipush(s, &s->arena, enc(lit));
            }
        } else if (in_step || (c != 'c' && c != 'd')) {
            if (c >= 32 && c < 127)
                snprintf(s->msg, sizeof s->msg, "proof line %d: unexpected '%c'", line, c);
            else
                snprintf(s->msg, sizeof s->msg, "proof line %d: unexpected byte 0x%02x", line, c);
            return 0;
        } else if (c == 'd') {
            in_step = 1; deleting = 1; off = begin_clause(s, 0); i++;
        } else {
            while (i < n && p[i] != '\n') i++;
        }
        if (s->oom) return 0;
    }
    if (in_step) {
        snprintf(s->msg, sizeof s->msg, "proof ends inside a step (truncated?)");
        return 0;
    }
    return 1;
}

static int parse_binary(S *s, const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t i = 0;
    int step = 0;
    while (i < n) {
        unsigned char kind = p[i];
        if ((step & 0xffff) == 0xffff && over(s)) return -1;
        if (kind != 'a' && kind != 'd') {
            snprintf(s->msg, sizeof s->msg,
                     "binary proof byte %zd: step starts with 0x%02x, not 'a' or 'd'", i, kind);
            return 0;
        }
        i++;
        int off = begin_clause(s, 0);
        while (1) {
            unsigned long v = 0;
            int shift = 0;
            while (1) {
                if (i >= n) {
                    snprintf(s->msg, sizeof s->msg, "binary proof ends inside a step (truncated?)");
                    return 0;
                }
                unsigned char b = p[i++];
                v |= (unsigned long)(b & 0x7f) << shift;
                shift += 7;
                if (!(b & 0x80)) break;
                if (shift > 28) {
                    snprintf(s->msg, sizeof s->msg, "binary proof byte %zd: literal out of range", i);
                    return 0;
                }
            }
            if (v == 0) break;
            unsigned long var = v >> 1;
            if (var == 0 || var > MAX_VAR) {
                snprintf(s->msg, sizeof s->msg, "binary proof byte %zd: literal out of range", i);
                return 0;
            }
            if ((int)var > s->nvars) s->nvars = (int)var;
            ipush(s, &s->arena, (int)(2 * var + (v & 1)));
        }
        if (!add_step(s, off, kind == 'd', ++step)) return 0;
        if (kind == 'd') FLAGS(s, off) |= F_DELREQ;
        if (s->oom) return 0;
    }
    return 1;
}

/* Drop repeated literals of every clause, flag tautologies. */
static void normalize(S *s) {
    int stamp_id = 0;
    for (size_t k = 0; k < s->offs.n; k++) {
        int c = s->offs.a[k];
        int *l = LITS(s, c), n = SIZE(s, c), m = 0, taut = 0;
        stamp_id++;
        for (int i = 0; i < n; i++) {
            int v = l[i] >> 1, tag = 2 * stamp_id + (l[i] & 1);
            if (s->stamp[v] == tag) continue;
            if (s->stamp[v] == (tag ^ 1)) taut = 1;
            s->stamp[v] = tag; /* a later opposite literal is seen as taut again; fine */
            l[m++] = l[i];
        }
        SIZE(s, c) = m;
        if (taut) FLAGS(s, c) |= F_TAUT;
    }
}

/* ---- hash of clauses (commutative: the order of literals does not matter) ---- */

static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static size_t chash(S *s, int c) {
    uint64_t h = 0;
    const int *l = LITS(s, c);
    for (int i = 0; i < SIZE(s, c); i++) h += mix((uint64_t)l[i]);
    return (size_t)(h & s->hmask);
}

static void hinsert(S *s, int c) {
    size_t b = chash(s, c);
    int id = CID(s, c);
    s->hnext.a[id] = s->hbucket[b];
    s->hbucket[b] = id;
}

/* The id of a clause in the table equal (as a set) to request r, unlinked; -1 if none. */
static int hfind_remove(S *s, int r) {
    size_t b = chash(s, r);
    int n = SIZE(s, r);
    const int *rl = LITS(s, r);
    int tag = 2 * (int)(s->offs.n + 1 + CID(s, r));
    for (int i = 0; i < n; i++) s->stamp[rl[i] >> 1] = tag + (rl[i] & 1);
    int prev = -1;
    for (int id = s->hbucket[b]; id >= 0; prev = id, id = s->hnext.a[id]) {
        int c = s->offs.a[id];
        if (SIZE(s, c) != n) continue;
        const int *cl = LITS(s, c);
        int i = 0;
        for (; i < n; i++)
            if (s->stamp[cl[i] >> 1] != tag + (cl[i] & 1)) break;
        if (i < n) continue;
        if (prev < 0) s->hbucket[b] = s->hnext.a[id]; else s->hnext.a[prev] = s->hnext.a[id];
        return id;
    }
    return -1;
}

/* ---- assignment, propagation ---- */

static inline void assign(S *s, int l, int reason) {
    s->val[l] = 1;
    s->val[l ^ 1] = -1;
    s->reason[l >> 1] = reason;
    s->tpos[l >> 1] = s->tlen;
    s->trail[s->tlen++] = l;
}

static void backtrack(S *s, int to) {
    while (s->tlen > to) {
        int l = s->trail[--s->tlen];
        s->val[l] = s->val[l ^ 1] = 0;
        s->reason[l >> 1] = -1;
    }
    if (s->qcore > to) s->qcore = to;
    if (s->qall > to) s->qall = to;
}

/* Unit propagation from the queue heads; the conflicting clause, -1 for none, -2 out of
 * budget. Core-first: clauses marked core propagate before any other. */
static int propagate(S *s) {
    signed char *val = s->val;
    int *arena = s->arena.a;
    for (;;) {
        int lit, mode;
        if (s->corefirst) {
            if (s->qcore < s->tlen) { lit = s->trail[s->qcore++]; mode = 1; }
            else if (s->qall < s->tlen) { lit = s->trail[s->qall++]; mode = 0; }
            else return -1;
        } else {
            if (s->qall < s->tlen) { lit = s->trail[s->qall++]; mode = 2; }
            else return -1;
        }
        if ((++s->ticks & 2047) == 0 && over(s)) return -2;
        int fl = lit ^ 1;
        WList *wl = &s->watch[fl];
        Watch *w = wl->w;
        int i = 0, j = 0, n = wl->n;
        for (; i < n; i++) {
            Watch cur = w[i];
            if (val[cur.blocker] == 1) { w[j++] = cur; continue; }
            int c = cur.cls;
            if (mode != 2 && ((arena[c - 3] & F_CORE) != 0) != mode) { w[j++] = cur; continue; }
            int *cl = arena + c;
            if (cl[0] == fl) { cl[0] = cl[1]; cl[1] = fl; }
            int first = cl[0];
            if (val[first] == 1) { cur.blocker = first; w[j++] = cur; continue; }
            int sz = arena[c - 1], k = 2;
            while (k < sz && val[cl[k]] == -1) k++;
            if (k < sz) {
                cl[1] = cl[k];
                cl[k] = fl;
                if (!wpush(s, &s->watch[cl[1]], c, first)) { wl->n = j; return -2; }
                continue;
            }
            w[j++] = cur;
            if (val[first] == -1) {
                for (i++; i < n; i++) w[j++] = w[i];
                wl->n = j;
                return c;
            }
            assign(s, first, c);
        }
        wl->n = j;
    }
}

/* Attach clause c at the top level: watches on its best two literals (non-false first, then
 * the latest false). Returns c when it is false at the top level (a conflict), else -1. */
static int attach(S *s, int c) {
    int *l = LITS(s, c), n = SIZE(s, c);
    FLAGS(s, c) |= F_ATTACHED;
    if (n == 0) return c;
    if (n == 1) {
        ipush(s, &s->units, c);
        if (s->val[l[0]] == -1) return c;
        if (s->val[l[0]] == 0) assign(s, l[0], c);
        return -1;
    }
    for (int w = 0; w < 2; w++) { /* move the best literal into position w */
        int best = w;
        for (int i = w + 1; i < n; i++) {
            int vi = s->val[l[i]], vb = s->val[l[best]];
            if (vb == -1 && (vi != -1 || s->tpos[l[i] >> 1] > s->tpos[l[best] >> 1])) best = i;
        }
        int t = l[w]; l[w] = l[best]; l[best] = t;
    }
    wpush(s, &s->watch[l[0]], c, l[1]);
    wpush(s, &s->watch[l[1]], c, l[0]);
    if (s->val[l[0]] == -1) return c;
    if (s->val[l[1]] == -1 && s->val[l[0]] == 0) assign(s, l[0], c);
    return -1;
}

static void detach(S *s, int c) {
    int *l = LITS(s, c), n = SIZE(s, c);
    FLAGS(s, c) &= ~F_ATTACHED;
    if (n == 1) {
        for (size_t i = 0; i < s->units.n; i++)
            if (s->units.a[i] == c) { s->units.a[i] = s->units.a[--s->units.n]; break; }
    } else if (n >= 2) {
        wremove(&s->watch[l[0]], c);
        wremove(&s->watch[l[1]], c);
    }
}

/* Whether clause c is unit at the top level: every literal assigned, one of them (repeats
 * aside) true. A reason of a top-level literal is such a clause; its deletion is ignored. */
static int unit_at_top(S *s, int c) {
    const int *l = LITS(s, c);
    int t = -1;
    for (int i = 0; i < SIZE(s, c); i++) {
        int v = s->val[l[i]];
        if (v == 0) return 0;
        if (v == 1) {
            if (t >= 0 && l[i] != t) return 0;
            t = l[i];
        }
    }
    return t >= 0;
}

static int is_reason(S *s, int c) {
    const int *l = LITS(s, c);
    for (int i = 0; i < SIZE(s, c); i++)
        if (s->reason[l[i] >> 1] == c) return 1;
    return 0;
}

/* Unassign the top level from the literal c is the reason of, and propagate again from the
 * start (units first): the top level stays the closure of the attached clauses. */
static void retract(S *s, int c) {
    const int *l = LITS(s, c);
    int at = s->tlen;
    for (int i = 0; i < SIZE(s, c); i++)
        if (s->reason[l[i] >> 1] == c && s->tpos[l[i] >> 1] < at) at = s->tpos[l[i] >> 1];
    if (at == s->tlen) return;
    backtrack(s, at);
    s->qcore = s->qall = 0;
    for (size_t i = 0; i < s->units.n; i++) {
        int u = s->units.a[i], x = LITS(s, u)[0];
        if (s->val[x] == 0) assign(s, x, u);
    }
}

/* Mark as core the conflict clause and every reason the conflict depends on. */
static void analyze(S *s, int confl, int truelit) {
    int pending = 0;
    if (confl >= 0) {
        FLAGS(s, confl) |= F_CORE;
        const int *l = LITS(s, confl);
        for (int i = 0; i < SIZE(s, confl); i++) {
            int v = l[i] >> 1;
            if (!s->seen[v]) { s->seen[v] = 1; pending++; }
        }
    }
    if (truelit >= 0 && !s->seen[truelit >> 1]) { s->seen[truelit >> 1] = 1; pending++; }
    for (int i = s->tlen - 1; i >= 0 && pending > 0; i--) {
        int v = s->trail[i] >> 1;
        if (!s->seen[v]) continue;
        s->seen[v] = 0;
        pending--;
        int r = s->reason[v];
        if (r < 0) continue;
        FLAGS(s, r) |= F_CORE;
        const int *l = LITS(s, r);
        for (int k = 0; k < SIZE(s, r); k++) {
            int u = l[k] >> 1;
            if (u != v && !s->seen[u]) { s->seen[u] = 1; pending++; }
        }
    }
}

/* Is the clause a (plus b without literal skip) implied by unit propagation? 1 yes (core
 * marked when mark), 0 no, -2 out of budget. Called at the top level, which it restores. */
static int rup(S *s, const int *a, int na, const int *b, int nb, int skip, int mark) {
    int top = s->tlen, truelit = -1, confl = -1;
    for (int i = 0; i < na + nb && truelit < 0; i++) {
        int l = i < na ? a[i] : b[i - na];
        if (i >= na && l == skip) continue;
        if (s->val[l] == 1) truelit = l;
        else if (s->val[l] == 0) assign(s, l ^ 1, -1);
    }
    if (truelit < 0) confl = propagate(s);
    int ok = confl == -2 ? -2 : (truelit >= 0 || confl >= 0);
    if (ok == 1 && mark) analyze(s, confl, truelit);
    backtrack(s, top);
    return ok;
}

/* RAT on the first literal p of lemma c (as written), against the clauses active before
 * step t: every resolvent with a clause holding -p is RUP. */
static int rat(S *s, int c, int t, int mark) {
    int p = s->pivot.a[CID(s, c)];
    const int *l = LITS(s, c);
    int n = SIZE(s, c);
    if (n == 0) return 0;
    for (size_t id = 0; id < s->offs.n; id++) {
        if ((++s->ticks & 2047) == 0 && over(s)) return -2;
        int d = s->offs.a[id];
        if (s->added.a[id] >= t || s->deleted.a[id] <= t || (FLAGS(s, d) & (F_TAUT | F_DELREQ)))
            continue;
        const int *dl = LITS(s, d);
        int k = 0;
        while (k < SIZE(s, d) && dl[k] != (p ^ 1)) k++;
        if (k == SIZE(s, d)) continue;
        int r = rup(s, l, n, dl, SIZE(s, d), p ^ 1, mark);
        if (r != 1) return r;
        if (mark) FLAGS(s, d) |= F_CORE;
    }
    return 1;
}

static void lemma_text(S *s, int c, char *out, size_t size) {
    const int *l = LITS(s, c);
    size_t k = 0;
    int n = SIZE(s, c), shown = n > 12 ? 12 : n;
    out[0] = 0;
    for (int i = 0; i < shown && k + 16 < size; i++)
        k += (size_t)snprintf(out + k, size - k, "%d ", dec(l[i]));
    snprintf(out + k, size - k, n > 12 ? "... 0" : "0");
}

/* ---- the check ---- */

enum { VERIFIED = 0, REJECTED = 1, OUT = 2, FAILED = 3 };

/* Process step k (1-based) going forward; returns a conflict clause (>= 0), -1, or -2. */
static int forward_step(S *s, int k, int check, int *deletions) {
    int c = s->steps.a[k - 1];
    if (FLAGS(s, c) & F_DELREQ) {
        int id = hfind_remove(s, c);
        s->steps.a[k - 1] = id < 0 ? -1 : s->offs.a[id];
        if (id < 0) return -1;
        int d = s->offs.a[id];
        if (unit_at_top(s, d)) { /* ignored whole (see the header): back in the table */
            hinsert(s, d);
            s->steps.a[k - 1] = -1;
            return -1;
        }
        (*deletions)++;
        s->deleted.a[id] = k;
        detach(s, d);
        return -1;
    }
    if (check) {
        int r = rup(s, LITS(s, c), SIZE(s, c), NULL, 0, -1, 0);
        if (r == 0) r = rat(s, c, k, 0);
        if (r == -2) return -2;
        if (r == 0) {
            char text[200];
            lemma_text(s, c, text, sizeof text);
            snprintf(s->msg, sizeof s->msg,
                     "proof step %d: lemma '%s' is neither RUP nor RAT", k, text);
            return -3;
        }
    }
    if (FLAGS(s, c) & F_TAUT) return -1;
    hinsert(s, c);
    int confl = attach(s, c);
    if (confl < 0) confl = propagate(s);
    return confl;
}

static int run(S *s, int mode, int *lemmas, int *checked) {
    int nsteps = (int)s->steps.n, deletions = 0, confl = -1, last = 0;
    s->corefirst = 0;
    if (over(s)) return OUT;
    for (int i = 0; i < s->nformula && confl < 0; i++) {
        int c = s->offs.a[i];
        if (FLAGS(s, c) & F_TAUT) continue;
        hinsert(s, c);
        confl = attach(s, c);
        if (confl < 0) confl = propagate(s);
        if (s->oom) return FAILED;
    }
    if (confl == -2) return OUT;
    for (int k = 1; k <= nsteps && confl == -1; k++) {
        if ((k & 255) == 0 && over(s)) return OUT;
        if (!(FLAGS(s, s->steps.a[k - 1]) & F_DELREQ)) (*lemmas)++;
        confl = forward_step(s, k, mode == 1, &deletions);
        last = k;
        if (s->oom) return FAILED;
    }
    if (confl == -2) return OUT;
    if (confl == -3) return REJECTED;
    if (confl < 0) {
        snprintf(s->msg, sizeof s->msg,
                 "proof does not derive the empty clause (%d lemmas)", *lemmas);
        return REJECTED;
    }
    if (mode == 1) {
        *checked = *lemmas;
        snprintf(s->msg, sizeof s->msg,
                 "refutation verified: %d lemmas checked (forward), %d deletions",
                 *lemmas, deletions);
        return VERIFIED;
    }
    /* backward: mark the final conflict, then walk the proof back */
    analyze(s, confl, -1);
    backtrack(s, 0);
    s->qcore = s->qall = 0;
    for (size_t i = 0; i < s->units.n; i++) {
        int u = s->units.a[i], x = LITS(s, u)[0];
        if (s->val[x] == 0) assign(s, x, u);
    }
    s->corefirst = 1;
    for (int k = last; k >= 1; k--) {
        if ((k & 255) == 0 && over(s)) return OUT;
        int c = s->steps.a[k - 1];
        if (c < 0) continue; /* a deletion of a clause that was not there */
        int flags = FLAGS(s, c);
        if (!(flags & F_DELREQ) && s->added.a[CID(s, c)] == k) { /* the lemma of step k */
            if (flags & F_TAUT) continue;
            if (flags & F_ATTACHED) { /* detach first: a retracted unit must not come back */
                int was_reason = is_reason(s, c);
                detach(s, c);
                if (was_reason) retract(s, c);
            }
            if (!(FLAGS(s, c) & F_CORE)) continue;
            int top = propagate(s);
            if (top == -2) return OUT;
            if (top >= 0) { /* the clauses before step k already conflict */
                analyze(s, top, -1);
                (*checked)++;
                continue;
            }
            int r = rup(s, LITS(s, c), SIZE(s, c), NULL, 0, -1, 1);
            if (r == 0) r = rat(s, c, k, 1);
            if (r == -2) return OUT;
            if (s->oom) return FAILED;
            if (r == 0) {
                char text[200];
                lemma_text(s, c, text, sizeof text);
                snprintf(s->msg, sizeof s->msg,
                         "proof step %d: lemma '%s' is neither RUP nor RAT", k, text);
                return REJECTED;
            }
            (*checked)++;
        } else { /* step k deleted clause c: it is back */
            int confl2 = attach(s, c);
            if (confl2 >= 0) analyze(s, confl2, -1); /* cannot happen: k's past was consistent */
        }
        if (s->oom) return FAILED;
    }
    snprintf(s->msg, sizeof s->msg,
             "refutation verified: %d of %d lemmas needed and checked (backward, core-first), "
             "%d deletions", *checked, *lemmas, deletions);
    return VERIFIED;
}

static void release(S *s) {
    free(s->arena.a); free(s->offs.a); free(s->added.a); free(s->deleted.a);
    free(s->pivot.a); free(s->hnext.a); free(s->steps.a); free(s->units.a);
    free(s->val); free(s->reason); free(s->tpos); free(s->trail); free(s->stamp);
    free(s->seen); free(s->hbucket);
    if (s->watch) {
        for (int i = 0; i < 2 * (s->nvars + 1); i++) free(s->watch[i].w);
        free(s->watch);
    }
}

static int setup(S *s) {
    size_t nl = 2 * ((size_t)s->nvars + 1), nv = (size_t)s->nvars + 1;
    s->val = calloc(nl, 1);
    s->reason = malloc(nv * sizeof(int));
    s->tpos = calloc(nv, sizeof(int));
    s->trail = malloc(nv * sizeof(int));
    s->stamp = calloc(nv, sizeof(int));
    s->seen = calloc(nv, 1);
    s->watch = calloc(nl, sizeof(WList));
    size_t hsize = 1024;
    while (hsize < 2 * s->offs.n) hsize *= 2;
    s->hmask = hsize - 1;
    s->hbucket = malloc(hsize * sizeof(int));
    if (!s->val || !s->reason || !s->tpos || !s->trail || !s->stamp || !s->seen || !s->watch
        || !s->hbucket)
        return 0;
    for (size_t i = 0; i < nv; i++) s->reason[i] = -1;
    for (size_t i = 0; i < hsize; i++) s->hbucket[i] = -1;
    return 1;
}

static PyObject *check(PyObject *self, PyObject *args) {
    Py_buffer formula, proof;
    int num_vars, mode;
    double limit;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*iy*di", &formula, &num_vars, &proof, &limit, &mode))
        return NULL;
    S s;
    memset(&s, 0, sizeof s);
    s.deadline = limit >= 0 ? now() + limit : -1.0;
    if (limit == 0) s.deadline = now() - 1.0;
    s.nvars = num_vars > 0 ? num_vars : 0;
    int code = FAILED, lemmas = 0, checked = 0, formula_vars = 0, parsed = 0;
    const unsigned char *p = proof.buf;
    Py_ssize_t plen = proof.len;
    Py_BEGIN_ALLOW_THREADS
    int binary = plen > 0 && (p[0] == 'a' || memchr(p, 0, (size_t)plen) != NULL);
    if (!parse_formula(&s, formula.buf, formula.len / (Py_ssize_t)sizeof(int)))
        code = s.oom ? FAILED : REJECTED;
    else if ((formula_vars = s.nvars,
              (parsed = binary ? parse_binary(&s, p, plen) : parse_text(&s, p, plen)) != 1))
        code = s.oom ? FAILED : parsed < 0 ? OUT : REJECTED;
    else if (s.nvars > formula_vars + (int)(s.offs.n - (size_t)s.nformula)) {
        snprintf(s.msg, sizeof s.msg, "proof variable %d is past the formula's %d by more "
                 "than its steps could introduce", s.nvars, formula_vars);
        code = REJECTED;
    } else if (!setup(&s))
        code = FAILED;
    else {
        normalize(&s);
        code = run(&s, mode, &lemmas, &checked);
        if (s.oom) code = FAILED;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&formula);
    PyBuffer_Release(&proof);
    release(&s);
    if (code == FAILED) return PyErr_NoMemory();
    return Py_BuildValue("(isii)", code, s.msg, lemmas, checked);
}

static PyMethodDef methods[] = {
    {"check", check, METH_VARARGS,
     "check(formula, num_vars, proof, time_limit, mode) -> (code, message, lemmas, checked)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_drat",
                                    "The compiled DRAT checker (see satdoku/cnf/drat.py).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__drat(void) { return PyModule_Create(&module); }
