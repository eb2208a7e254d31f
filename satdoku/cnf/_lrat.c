/* The compiled LRAT checker of satdoku (module satdoku.cnf._lrat; format, semantics and the
 * readable Python twin: satdoku/cnf/lrat.py, whose verdicts and messages this file repeats).
 *
 * check(formula, num_vars, proof, time_limit) -> (code, message, lemmas)
 *   formula: flat int32 literals, a 0 after each clause (clause ids 1..m in that order);
 *   proof: text or binary LRAT bytes; time_limit: seconds (< 0: none). code 0 verified,
 *   1 rejected, 2 out of budget.
 *
 * One pass: each step is parsed and checked at once (the first empty clause that checks ends
 * the check). An added clause's literals are set false, then each hint is visited once: a
 * clause with one literal not false sets it true, one with none ends the check of the step.
 * The work is linear in the size of the proof plus the clauses its hints name: the formula's
 * clauses are read where they are (clause id -> offset of its first literal in the formula
 * buffer, 0-terminated; repeated literals need no copy, a hint counts a literal once), added
 * clauses go to one arena, 0-terminated too (ids above the formula's: offset in the arena);
 * -1 marks a clause that is not live. Literals are DIMACS ints; val points into the middle of
 * its array, so val[-v] and val[v] are both there.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_NUMBER 2147483647LL
#define MAX_ID_JUMP (1LL << 24)

enum { VERIFIED = 0, REJECTED = 1, OUT = 2, FAILED = 3 };
/* what a step's check says: go on, stop verified, stop rejected, out of budget, no memory */
enum { GO_ON = 0, DONE = 1 };

typedef struct { int32_t *a; int64_t n, cap; } Ints;

typedef struct {
    const int32_t *formula; /* the formula's clauses, each 0-terminated */
    int64_t nformula;       /* their number: ids 1..nformula */
    Ints arena;     /* added clauses: their distinct literals, then 0 */
    int64_t *off;   /* clause id -> offset of its first literal (formula or arena), -1: dead */
    int64_t nids, capids;
    int64_t last;   /* the largest clause id so far */
    int nvars;
    signed char *val;  /* per literal (val[-v] .. val[v]): 1 true, -1 false, 0 unassigned */
    int64_t *stamp;    /* per literal (the same way): repeated literals of one clause */
    int64_t stamp_id;
    int32_t *assigned; /* literals set during one step's check, to undo */
    Ints lemma, hints; /* the step being read */
    int64_t ident;     /* its id */
    int64_t steps, lemmas, deletions;
    double deadline;
    uint64_t ticks;
    int oom, out;
    char msg[320];
} L;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int over(L *s) {
    if (s->deadline > 0 && now() > s->deadline) { s->out = 1; return 1; }
    return 0;
}

static int push(L *s, Ints *v, int32_t x) {
    if (v->n == v->cap) {
        int64_t cap = v->cap ? 2 * v->cap : 1024;
        int32_t *a = realloc(v->a, (size_t)cap * sizeof(int32_t));
        if (!a) { s->oom = 1; return 0; }
        v->a = a;
        v->cap = cap;
    }
    v->a[v->n++] = x;
    return 1;
}

/* Room for clause id ``id`` in the id table (new slots not live). */
static int room_for(L *s, int64_t id) {
    if (id < s->capids) {
        while (s->nids <= id) s->off[s->nids++] = -1;
        return 1;
    }
    int64_t cap = s->capids ? 2 * s->capids : 1024;
    while (cap <= id) cap *= 2;
    int64_t *a = realloc(s->off, (size_t)cap * sizeof(int64_t));
    if (!a) { s->oom = 1; return 0; }
    s->off = a;
    s->capids = cap;
    while (s->nids <= id) s->off[s->nids++] = -1;
    return 1;
}

/* Store added clause ``id``: its distinct literals lits[0..n), then 0. */
static int store(L *s, int64_t id, const int32_t *lits, int64_t n) {
    if (!room_for(s, id)) return 0;
    int64_t at = s->arena.n;
    for (int64_t i = 0; i < n; i++)
        if (!push(s, &s->arena, lits[i])) return 0;
    if (!push(s, &s->arena, 0)) return 0;
    s->off[id] = at;
    return 1;
}

static inline const int32_t *clause_of(L *s, int64_t id) {
    return id <= s->nformula ? s->formula + s->off[id] : s->arena.a + s->off[id];
}

/* ---- the check of one added clause (lemma and hints read into s->lemma, s->hints) ---- */

static void undo(L *s, int64_t count) {
    for (int64_t i = 0; i < count; i++) {
        int32_t l = s->assigned[i];
        s->val[l] = s->val[-l] = 0;
    }
}

/* '' (ok = 1) when the hints refute the negation of the distinct literals lem[0..n), else 0
 * with the reason in why; -1 out of budget. */
static int follow(L *s, const int32_t *lem, int64_t n, char *why, size_t size) {
    signed char *val = s->val;
    int64_t count = 0;
    int ok = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t l = lem[i];
        if (val[l] == 1) { ok = 1; goto done; } /* l and -l: true without hints */
        val[l] = -1;
        val[-l] = 1;
        s->assigned[count++] = l;
    }
    for (int64_t k = 0; k < s->hints.n; k++) {
        int32_t h = s->hints.a[k];
        if (h < 0) { snprintf(why, size, "RAT hints (negative ids) are not supported"); goto done; }
        if (h >= s->nids || s->off[h] < 0) {
            snprintf(why, size, "hint %d is not a live clause", h);
            goto done;
        }
        const int32_t *c = clause_of(s, h);
        int32_t unit = 0;
        for (; *c; c++) {
            int32_t l = *c;
            if (val[l] != -1 && l != unit) { /* a repeated literal counts once */
                if (unit) {
                    snprintf(why, size, "hint %d is not unit (two literals not false)", h);
                    goto done;
                }
                unit = l;
            }
        }
        s->ticks += (uint64_t)(c - clause_of(s, h)) + 1;
        if (!unit) { ok = 1; goto done; }
        if (val[unit] == 0) {
            val[unit] = 1;
            val[-unit] = -1;
            s->assigned[count++] = -unit;
        }
        if (s->ticks > (1u << 16)) {
            s->ticks = 0;
            if (over(s)) { ok = -1; goto done; }
        }
    }
    snprintf(why, size, "its hints end without a conflict");
done:
    undo(s, count);
    return ok;
}

/* Check and store the added clause just read. GO_ON, DONE (the empty clause: verified, or
 * a rejection: s->msg set), or -1 out of budget / no memory. */
static int add_step(L *s, int *verdict) {
    char why[200];
    int64_t id = s->ident;
    if (id <= s->last) {
        snprintf(s->msg, sizeof s->msg, "proof step %lld (clause %lld): its id is not above the "
                 "last, %lld", (long long)s->steps, (long long)id, (long long)s->last);
        *verdict = REJECTED;
        return DONE;
    }
    if (id - s->last > MAX_ID_JUMP) {
        snprintf(s->msg, sizeof s->msg, "proof step %lld (clause %lld): its id jumps more than "
                 "%lld past %lld", (long long)s->steps, (long long)id, MAX_ID_JUMP,
                 (long long)s->last);
        *verdict = REJECTED;
        return DONE;
    }
    for (int64_t i = 0; i < s->lemma.n; i++) {
        int32_t lit = s->lemma.a[i];
        if (lit > s->nvars || -lit > s->nvars) {
            snprintf(s->msg, sizeof s->msg, "proof step %lld (clause %lld): literal %d is not a "
                     "variable of the formula (1..%d)", (long long)s->steps, (long long)id, lit,
                     s->nvars);
            *verdict = REJECTED;
            return DONE;
        }
    }
    /* the distinct literals, in order (in place) */
    int64_t stamp = ++s->stamp_id, m = 0;
    for (int64_t i = 0; i < s->lemma.n; i++) {
        int32_t l = s->lemma.a[i];
        if (s->stamp[l] == stamp) continue;
        s->stamp[l] = stamp;
        s->lemma.a[m++] = l;
    }
    int ok = follow(s, s->lemma.a, m, why, sizeof why);
    if (ok < 0) return -1;
    if (!ok) {
        snprintf(s->msg, sizeof s->msg, "proof step %lld (clause %lld): %s", (long long)s->steps,
                 (long long)id, why);
        *verdict = REJECTED;
        return DONE;
    }
    s->lemmas++;
    if (!store(s, id, s->lemma.a, m)) return -1;
    s->last = id;
    if (m == 0) {
        snprintf(s->msg, sizeof s->msg, "refutation verified: %lld lemmas, %lld deletions (LRAT)",
                 (long long)s->lemmas, (long long)s->deletions);
        *verdict = VERIFIED;
        return DONE;
    }
    return GO_ON;
}

/* GO_ON, or DONE (a negative id: rejected, message set). */
static int delete_step(L *s) {
    for (int64_t k = 0; k < s->hints.n; k++) {
        if (s->hints.a[k] < 0) {
            snprintf(s->msg, sizeof s->msg, "proof step %lld: deletes %d, not a clause id",
                     (long long)s->steps, s->hints.a[k]);
            return DONE;
        }
    }
    for (int64_t k = 0; k < s->hints.n; k++) {
        int32_t x = s->hints.a[k];
        if (x < s->nids && s->off[x] >= 0) {
            s->off[x] = -1;
            s->deletions++;
        }
    }
    return GO_ON;
}

/* A step read: check it. Returns GO_ON or DONE (verdict set), -1 out of budget/memory. */
static int step_read(L *s, int deleting, int *verdict) {
    s->steps++;
    if ((s->steps & 255) == 0 && over(s)) return -1;
    if (deleting) return delete_step(s); /* the verdict stays REJECTED */
    return add_step(s, verdict);
}

/* ---- reading (the parsers return the verdict; -1 out of budget or memory) ---- */

static int is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int parse_text(L *s, const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t i = 0;
    long long line = 1;
    int state = 0; /* 0 between steps, 1 after the id, 2 literals, 3 hints, 4 deleted ids */
    while (1) {
        while (i < n && is_space(p[i])) { if (p[i] == '\n') line++; i++; }
        if (i >= n) break;
        unsigned char c = p[i];
        if (c == '-' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9') {
            /* a number: below */
        } else if (c >= '0' && c <= '9') {
        } else if (c == 'd' && state == 1) {
            state = 4;
            s->hints.n = 0;
            i++;
            continue;
        } else if (c == 'c' && state == 0) {
            while (i < n && p[i] != '\n') i++;
            continue;
        } else {
            if (c >= 32 && c < 127)
                snprintf(s->msg, sizeof s->msg, "proof line %lld: unexpected '%c'", line, c);
            else
                snprintf(s->msg, sizeof s->msg, "proof line %lld: unexpected byte 0x%02x", line, c);
            return REJECTED;
        }
        Py_ssize_t start = i;
        int neg = c == '-';
        if (neg) i++;
        long long v = 0;
        int big = 0;
        while (i < n && p[i] >= '0' && p[i] <= '9') {
            if (v <= MAX_NUMBER) v = 10 * v + (p[i] - '0'); else big = 1;
            i++;
        }
        if (big || v > MAX_NUMBER) {
            int len = (int)(i - start) > 40 ? 40 : (int)(i - start);
            snprintf(s->msg, sizeof s->msg, "proof line %lld: number %.*s out of range", line,
                     len, (const char *)p + start);
            return REJECTED;
        }
        int32_t x = (int32_t)(neg ? -v : v);
        if (state == 0) {
            state = 1;
            s->ident = x;
            s->lemma.n = s->hints.n = 0;
        } else if (state == 1 || state == 2) {
            if (x == 0) state = 3;
            else {
                state = 2;
                if (!push(s, &s->lemma, x)) return -1;
            }
        } else if (x == 0) {
            int verdict = REJECTED;
            int r = step_read(s, state == 4, &verdict);
            if (r < 0) return -1;
            if (r == DONE) return verdict;
            state = 0;
        } else if (!push(s, &s->hints, x)) {
            return -1;
        }
    }
    if (state != 0) {
        snprintf(s->msg, sizeof s->msg, "proof ends inside a step (truncated?)");
        return REJECTED;
    }
    return -2; /* the end, no refutation */
}

/* One variable-byte number at *i; 1 read, 0 malformed (message set). */
static int number(L *s, const unsigned char *p, Py_ssize_t n, Py_ssize_t *i, int32_t *x) {
    unsigned long long value = 0;
    int shift = 0;
    while (1) {
        if (*i >= n) {
            snprintf(s->msg, sizeof s->msg, "binary proof ends inside a step (truncated?)");
            return 0;
        }
        unsigned char b = p[(*i)++];
        value |= (unsigned long long)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) break;
        if (shift > 28) {
            snprintf(s->msg, sizeof s->msg, "binary proof byte %zd: number out of range", *i);
            return 0;
        }
    }
    if ((value >> 1) > (unsigned long long)MAX_NUMBER) {
        snprintf(s->msg, sizeof s->msg, "binary proof byte %zd: number out of range", *i);
        return 0;
    }
    *x = (value & 1) ? -(int32_t)(value >> 1) : (int32_t)(value >> 1);
    return 1;
}

static int until_zero(L *s, const unsigned char *p, Py_ssize_t n, Py_ssize_t *i, Ints *into) {
    into->n = 0;
    while (1) {
        int32_t x;
        if (!number(s, p, n, i, &x)) return 0;
        if (x == 0) return 1;
        if (!push(s, into, x)) return -1;
    }
}

static int parse_binary(L *s, const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t i = 0;
    while (i < n) {
        unsigned char kind = p[i];
        if (kind != 'a' && kind != 'd') {
            snprintf(s->msg, sizeof s->msg,
                     "binary proof byte %zd: step starts with 0x%02x, not 'a' or 'd'", i, kind);
            return REJECTED;
        }
        i++;
        int r;
        if (kind == 'd') {
            r = until_zero(s, p, n, &i, &s->hints);
        } else {
            int32_t id;
            if (!number(s, p, n, &i, &id)) return REJECTED;
            s->ident = id;
            r = until_zero(s, p, n, &i, &s->lemma);
            if (r == 1) r = until_zero(s, p, n, &i, &s->hints);
        }
        if (r < 0) return -1;
        if (r == 0) return REJECTED;
        int verdict = REJECTED;
        r = step_read(s, kind == 'd', &verdict);
        if (r < 0) return -1;
        if (r == DONE) return verdict;
    }
    return -2;
}

/* ---- the formula ---- */

/* Index the formula's clauses where they are (f[n-1] is 0: the caller made sure). */
static int load_formula(L *s, const int32_t *f, Py_ssize_t n) {
    s->formula = f;
    int64_t id = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!room_for(s, ++id)) return 0;
        s->off[id] = i;
        while (f[i] != 0) i++;
        if ((id & 65535) == 0 && over(s)) return 0;
    }
    s->nformula = s->last = id;
    return 1;
}

static int formula_vars(const int32_t *f, Py_ssize_t n, int num_vars) {
    int vars = num_vars > 0 ? num_vars : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t v = f[i] < 0 ? -f[i] : f[i];
        if (v > vars) vars = v;
    }
    return vars;
}

static PyObject *check(PyObject *self, PyObject *args) {
    Py_buffer formula, proof;
    int num_vars;
    double limit;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*iy*d", &formula, &num_vars, &proof, &limit)) return NULL;
    L s;
    memset(&s, 0, sizeof s);
    s.deadline = limit >= 0 ? now() + limit : -1.0;
    if (limit == 0) s.deadline = now() - 1.0;
    const int32_t *f = formula.buf;
    Py_ssize_t nf = formula.len / (Py_ssize_t)sizeof(int32_t);
    int32_t *copy = NULL; /* a formula whose last clause lacks its 0: copied with one */
    if (nf > 0 && f[nf - 1] != 0) {
        copy = malloc((size_t)(nf + 1) * sizeof(int32_t));
        if (!copy) {
            PyBuffer_Release(&formula);
            PyBuffer_Release(&proof);
            return PyErr_NoMemory();
        }
        memcpy(copy, f, (size_t)nf * sizeof(int32_t));
        copy[nf++] = 0;
        f = copy;
    }
    const unsigned char *p = proof.buf;
    Py_ssize_t plen = proof.len;
    int code = FAILED;
    signed char *val = NULL;
    int64_t *stamp = NULL;
    Py_BEGIN_ALLOW_THREADS
    s.nvars = formula_vars(f, nf, num_vars);
    size_t nl = 2 * ((size_t)s.nvars + 1), nv = (size_t)s.nvars + 1;
    val = calloc(nl, 1);
    stamp = calloc(nl, sizeof(int64_t));
    s.val = val ? val + nv : NULL; /* val[-v] .. val[v] */
    s.stamp = stamp ? stamp + nv : NULL;
    s.assigned = malloc(nv * sizeof(int32_t));
    if (!s.val || !s.stamp || !s.assigned) {
        code = FAILED;
    } else if (over(&s)) {
        code = OUT;
    } else if (!load_formula(&s, f, nf)) {
        code = s.oom ? FAILED : OUT;
    } else {
        int binary = plen > 0 && (p[0] == 'a' || p[0] == 'd' || memchr(p, 0, (size_t)plen));
        int r = binary ? parse_binary(&s, p, plen) : parse_text(&s, p, plen);
        if (r == -1) {
            code = s.oom ? FAILED : OUT;
        } else if (r == -2) {
            snprintf(s.msg, sizeof s.msg, "proof does not derive the empty clause (%lld lemmas "
                     "checked)", (long long)s.lemmas);
            code = REJECTED;
        } else {
            code = r;
        }
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&formula);
    PyBuffer_Release(&proof);
    free(copy);
    free(s.arena.a);
    free(s.off);
    free(val);
    free(stamp);
    free(s.assigned);
    free(s.lemma.a);
    free(s.hints.a);
    if (code == FAILED) return PyErr_NoMemory();
    return Py_BuildValue("(isL)", code, s.msg, (long long)s.lemmas);
}

static PyMethodDef methods[] = {
    {"check", check, METH_VARARGS,
     "check(formula, num_vars, proof, time_limit) -> (code, message, lemmas)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_lrat",
                                    "The compiled LRAT checker (see satdoku/cnf/lrat.py).", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__lrat(void) { return PyModule_Create(&module); }
