/* The solve stage's per-puzzle loop in compiled code (extension module satdoku.pipeline._batch,
 * built by setup.py). Its Python side is satdoku/pipeline/batch.py; its oracle is the plain
 * loop of satdoku/pipeline/stage_solve.py (one satdoku.solve.solve call per instance), which runs
 * wherever this module is not built or does not apply.
 *
 * Two functions:
 *
 * - scan_bundle(data): the blocks of a SatInput bundle (satdoku/stagefiles/bundles.py) in one
 *   pass: every rules block's place, and per instance block its id, whether it is the usual
 *   unit-clause block (a puzzle's givens), invalid, or anything else, its rules key, and its
 *   unit literals in one flat int32 buffer;
 * - Runner(...).run(...): for a run of puzzles that share one layout and one loaded incremental
 *   solver (python-sat MiniSat/Glucose through pysolvers' compiled functions, or our CDCL
 *   kernel), each puzzle's givens as assumptions, the search under the time limit, the model
 *   decoded into a board, the board checked against the puzzle (givens kept, every group
 *   all-different, every inequality), and the three stage-file texts: the SatOutput block with
 *   its v lines, the SatOutputTimes row and the SatSols row.
 *
 * Only the plain outcomes are written here: a verified board, a timeout, and (for solvers that
 * write no proofs) UNSAT. Anything else (an UNSAT that needs a proof, an answer past the limit,
 * a model that does not decode or a board that does not check, an error) stops the run at that
 * puzzle, and the Python side solves it through the plain solve path, which writes what it
 * finds. The texts follow satdoku/stagefiles/outputs.py and tsv.py exactly; the tests
 * compare both paths' files (tests/test_solve_batch.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../cnf/decimal.h"

/* ---- growing text buffer ------------------------------------------------------------------ */
typedef struct {
    char *p;
    size_t n, cap;
} Buf;

static int buf_reserve(Buf *b, size_t extra) {
    if (b->n + extra <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->n + extra) cap *= 2;
    char *p = PyMem_Realloc(b->p, cap);
    if (!p) {
        PyErr_NoMemory();
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static int buf_put(Buf *b, const char *s, size_t n) {
    if (buf_reserve(b, n)) return -1;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    return 0;
}

static int buf_ch(Buf *b, char c) { return buf_put(b, &c, 1); }

static int buf_fmt(Buf *b, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k < 0 || (size_t)k >= sizeof tmp) {
        PyErr_SetString(PyExc_ValueError, "number too long to format");
        return -1;
    }
    return buf_put(b, tmp, (size_t)k);
}

static int buf_long(Buf *b, long long v) {
    if (buf_reserve(b, 20)) return -1;
    b->n += decimal_text(b->p + b->n, v);
    return 0;
}

static PyObject *buf_text(Buf *b) { return PyUnicode_DecodeASCII(b->p ? b->p : "", (Py_ssize_t)b->n, NULL); }

/* ---- scan_bundle ------------------------------------------------------------------------------ */
/* Python's str.split() whitespace among ASCII characters */
static int is_ws(unsigned char c) { return c == ' ' || (c >= 9 && c <= 13) || (c >= 28 && c <= 31); }

static int starts(const unsigned char *s, size_t n, const char *prefix) {
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

/* the third whitespace-separated part of a line, stripped (line.split(maxsplit=2)[2].strip()) */
static int block_key(const unsigned char *s, size_t n, size_t *ks, size_t *kn) {
    size_t i = 0;
    for (int word = 0; word < 2; word++) {
        while (i < n && is_ws(s[i])) i++;
        if (i == n) return -1;
        while (i < n && !is_ws(s[i])) i++;
    }
    while (i < n && is_ws(s[i])) i++;
    if (i == n) return -1;
    size_t e = n;
    while (e > i && is_ws(s[e - 1])) e--;
    *ks = i;
    *kn = e - i;
    return 0;
}

/* An instance block being read: 'u' while it still looks like the unit-clause form */
typedef struct {
    char kind;            /* 'u' unit block, 'i' invalid, 'o' other */
    long long line;       /* its "c instance" line */
    size_t key_s, key_n;  /* its id */
    size_t rk_s, rk_n;    /* its rules key (rk_n == 0: none) */
    long body;            /* body lines seen */
    long long vars, declared;
    Py_ssize_t lit_start;
    int parity;           /* 0: a literal comes next, 1: its 0 */
    size_t head_s, head_n; /* its header comment line */
    size_t pline_end;      /* the byte after its p line's newline */
} Inst;

typedef struct {
    int32_t *p;
    Py_ssize_t n, cap;
} IntVec;

static int iv_push(IntVec *v, int32_t x) {
    if (v->n == v->cap) {
        Py_ssize_t cap = v->cap ? v->cap * 2 : 1 << 16;
        int32_t *p = PyMem_Realloc(v->p, (size_t)cap * sizeof *p);
        if (!p) {
            PyErr_NoMemory();
            return -1;
        }
        v->p = p;
        v->cap = cap;
    }
    v->p[v->n++] = x;
    return 0;
}

/* A decimal word of ASCII digits (Python's isdigit on ASCII), at most 18 of them */
static int digits_value(const unsigned char *s, size_t n, long long *out) {
    if (n == 0 || n > 18) return -1;
    long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

/* _unit_clauses' literal table: canonical text of a literal within 1..vars */
#define TABLE_VARS (1 << 17)
static int canonical_literal(const unsigned char *s, size_t n, long long vars, int32_t *out) {
    int neg = 0;
    if (n && s[0] == '-') {
        neg = 1;
        s++;
        n--;
    }
    if (n == 0 || n > 7 || s[0] == '0') return -1;
    long long v;
    if (digits_value(s, n, &v) || v > vars) return -1;
    *out = (int32_t)(neg ? -v : v);
    return 0;
}

/* the rules key of a header comment (the value of its last "rules" pair; _parse_header) */
static void header_rules(const unsigned char *s, size_t n, size_t base, Inst *in) {
    size_t i = 1; /* body[0][1:] */
    size_t words[2][2];
    int k = 0;
    in->rk_n = 0;
    while (1) {
        while (i < n && is_ws(s[i])) i++;
        if (i == n) break;
        size_t w = i;
        while (i < n && !is_ws(s[i])) i++;
        words[k][0] = w;
        words[k][1] = i - w;
        if (k == 1) {
            if (words[0][1] == 5 && memcmp(s + words[0][0], "rules", 5) == 0) {
                in->rk_s = base + words[1][0];
                in->rk_n = words[1][1];
            }
            k = 0;
        } else {
            k = 1;
        }
    }
}

/* one body line of an instance block */
static int inst_line(Inst *in, const unsigned char *s, size_t n, size_t base, IntVec *lits) {
    long b = in->body++;
    if (in->kind == 'i' && starts(s, n, "p ")) in->kind = 'o'; /* an invalid block with a formula */
    if (in->kind != 'u') return 0;
    if (b == 0) {
        if (starts(s, n, "c invalid")) {
            in->kind = 'i';
        } else if (starts(s, n, "c ")) {
            header_rules(s, n, base, in);
            in->head_s = base;
            in->head_n = n;
        } else {
            in->kind = 'o';
        }
        return 0;
    }
    if (b == 1) {
        /* "p cnf V C": exactly four words, V and C digits */
        size_t w[5][2];
        int k = 0;
        size_t i = 0;
        if (!starts(s, n, "p cnf ")) {
            in->kind = 'o';
            return 0;
        }
        while (k < 5) {
            while (i < n && is_ws(s[i])) i++;
            if (i == n) break;
            w[k][0] = i;
            while (i < n && !is_ws(s[i])) i++;
            w[k][1] = i - w[k][0];
            k++;
        }
        if (k != 4 || digits_value(s + w[2][0], w[2][1], &in->vars)
            || digits_value(s + w[3][0], w[3][1], &in->declared) || in->vars > TABLE_VARS) {
            in->kind = 'o';
        }
        in->pline_end = base + n + 1;
        return 0;
    }
    size_t i = 0;
    while (1) {
        while (i < n && is_ws(s[i])) i++;
        if (i == n) break;
        size_t w = i;
        while (i < n && !is_ws(s[i])) i++;
        if (in->parity == 0) {
            int32_t lit;
            if (canonical_literal(s + w, i - w, in->vars, &lit)) {
                in->kind = 'o';
                return 0;
            }
            if (iv_push(lits, lit)) return -1;
        } else if (!(i - w == 1 && s[w] == '0')) {
            in->kind = 'o';
            return 0;
        }
        in->parity ^= 1;
    }
    return 0;
}

typedef struct {
    PyObject *ids, *rule_keys, *rules, *lines, *headers, *sizes;
    Buf kinds;
    IntVec lits;
    IntVec vars;
    PyObject *declared; /* list of ints */
    long long *offsets;
    Py_ssize_t n_off, cap_off;
} Scan;

static int scan_push_offset(Scan *sc, long long off) {
    if (sc->n_off == sc->cap_off) {
        Py_ssize_t cap = sc->cap_off ? sc->cap_off * 2 : 1 << 12;
        long long *p = PyMem_Realloc(sc->offsets, (size_t)cap * sizeof *p);
        if (!p) {
            PyErr_NoMemory();
            return -1;
        }
        sc->offsets = p;
        sc->cap_off = cap;
    }
    sc->offsets[sc->n_off++] = off;
    return 0;
}

static int finish_inst(Scan *sc, Inst *in, const unsigned char *data, size_t end) {
    if (in->kind == 'u' && (in->body < 2 || in->parity != 0)) in->kind = 'o';
    if (in->kind != 'u') sc->lits.n = in->lit_start; /* its literals are not needed */
    PyObject *key = PyUnicode_DecodeASCII((const char *)data + in->key_s, (Py_ssize_t)in->key_n, NULL);
    PyObject *rk = PyUnicode_DecodeASCII((const char *)data + in->rk_s, (Py_ssize_t)in->rk_n, NULL);
    PyObject *line = PyLong_FromLongLong(in->line);
    PyObject *decl = PyLong_FromLongLong(in->kind == 'u' ? in->declared : -1);
    int unit = in->kind == 'u';
    PyObject *head = PyUnicode_DecodeASCII((const char *)data + in->head_s, unit ? (Py_ssize_t)in->head_n : 0, NULL);
    PyObject *size = unit ? Py_BuildValue("(nn)", (Py_ssize_t)(in->pline_end - in->head_s - in->head_n - 1),
                                          (Py_ssize_t)(end - in->pline_end))
                          : Py_BuildValue("(nn)", (Py_ssize_t)-1, (Py_ssize_t)-1);
    int bad = !head || !size || PyList_Append(sc->headers, head) || PyList_Append(sc->sizes, size);
    Py_XDECREF(head);
    Py_XDECREF(size);
    bad = bad || !key || !rk || !line || !decl || PyList_Append(sc->ids, key) || PyList_Append(sc->rule_keys, rk)
              || PyList_Append(sc->lines, line) || PyList_Append(sc->declared, decl) || buf_ch(&sc->kinds, in->kind)
              || iv_push(&sc->vars, (int32_t)(in->kind == 'u' ? in->vars : 0))
              || scan_push_offset(sc, (long long)sc->lits.n);
    Py_XDECREF(key);
    Py_XDECREF(rk);
    Py_XDECREF(line);
    Py_XDECREF(decl);
    return bad ? -1 : 0;
}

static int finish_rules(Scan *sc, size_t ks, size_t kn, long long line, size_t body_s, size_t body_e,
                        const unsigned char *data) {
    PyObject *t = Py_BuildValue("(NLnn)", PyUnicode_DecodeASCII((const char *)data + ks, (Py_ssize_t)kn, NULL), line,
                                (Py_ssize_t)body_s, (Py_ssize_t)body_e);
    if (!t) return -1;
    int bad = PyList_Append(sc->rules, t);
    Py_DECREF(t);
    return bad;
}

/* scan_bundle(data: bytes) -> None | (rules, ids, kinds, rule_keys, lines, declared, vars,
 *                                      offsets, lits, headers, sizes)
 * rules: [(key, line of its "c rules" line, body start byte, body end byte)]; per instance
 * block: id, kind ('u' unit clauses only, 'i' invalid, 'o' other), rules key ('' none), its
 * "c instance" line number, declared clauses ('u' only, else -1), variables ('u'); offsets:
 * int64 bytes, n+1 entries into lits (int32 bytes: each 'u' block's unit literals); headers:
 * each 'u' block's header comment line ('' otherwise); sizes: each 'u' block's (p line bytes
 * with its newline, bytes after it up to the next block), (-1, -1) otherwise. None when the
 * data is not plain ASCII text with '\n' line ends (the Python reader takes those). */
static PyObject *scan_bundle(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    const unsigned char *data = view.buf;
    size_t len = (size_t)view.len;
    for (size_t i = 0; i < len; i++) {
        if (data[i] >= 0x80 || data[i] == '\r' || data[i] == 0) {
            PyBuffer_Release(&view);
            Py_RETURN_NONE;
        }
    }
    Scan sc;
    memset(&sc, 0, sizeof sc);
    sc.ids = PyList_New(0);
    sc.rule_keys = PyList_New(0);
    sc.rules = PyList_New(0);
    sc.lines = PyList_New(0);
    sc.declared = PyList_New(0);
    sc.headers = PyList_New(0);
    sc.sizes = PyList_New(0);
    PyObject *result = NULL;
    if (!sc.ids || !sc.rule_keys || !sc.rules || !sc.lines || !sc.declared || !sc.headers || !sc.sizes
        || scan_push_offset(&sc, 0))
        goto done;
    int kind = 0; /* 0 none yet, 1 rules, 2 instance */
    Inst in;
    size_t rk_s = 0, rk_n = 0, rules_body = 0;
    long long rules_line = 0, lineno = 0;
    size_t pos = 0;
    while (pos < len) {
        size_t e = pos;
        while (e < len && data[e] != '\n') e++;
        const unsigned char *s = data + pos;
        size_t n = e - pos;
        lineno++;
        int is_rules = starts(s, n, "c rules "), is_inst = starts(s, n, "c instance ");
        if (is_rules || is_inst) {
            if (kind == 1 && finish_rules(&sc, rk_s, rk_n, rules_line, rules_body, pos, data)) goto done;
            if (kind == 2 && finish_inst(&sc, &in, data, pos)) goto done;
            size_t ks, kn;
            if (block_key(s, n, &ks, &kn)) {
                result = Py_None; /* the Python reader reports it */
                Py_INCREF(result);
                goto done;
            }
            if (is_rules) {
                kind = 1;
                rk_s = pos + ks;
                rk_n = kn;
                rules_line = lineno;
                rules_body = e < len ? e + 1 : e;
            } else {
                kind = 2;
                memset(&in, 0, sizeof in);
                in.kind = 'u';
                in.line = lineno;
                in.key_s = pos + ks;
                in.key_n = kn;
                in.lit_start = sc.lits.n;
            }
        } else if (kind == 2) {
            if (inst_line(&in, s, n, pos, &sc.lits)) goto done;
        }
        pos = e < len ? e + 1 : e;
    }
    if (kind == 1 && finish_rules(&sc, rk_s, rk_n, rules_line, rules_body, len, data)) goto done;
    if (kind == 2 && finish_inst(&sc, &in, data, len)) goto done;
    result = Py_BuildValue("(OOy#OOOy#y#y#OO)", sc.rules, sc.ids, sc.kinds.p ? sc.kinds.p : "", (Py_ssize_t)sc.kinds.n,
                           sc.rule_keys, sc.lines, sc.declared, (const char *)sc.vars.p,
                           (Py_ssize_t)(sc.vars.n * (Py_ssize_t)sizeof(int32_t)), (const char *)sc.offsets,
                           (Py_ssize_t)(sc.n_off * (Py_ssize_t)sizeof(long long)), (const char *)sc.lits.p,
                           (Py_ssize_t)(sc.lits.n * (Py_ssize_t)sizeof(int32_t)), sc.headers, sc.sizes);
done:
    PyBuffer_Release(&view);
    Py_XDECREF(sc.ids);
    Py_XDECREF(sc.rule_keys);
    Py_XDECREF(sc.rules);
    Py_XDECREF(sc.lines);
    Py_XDECREF(sc.declared);
    Py_XDECREF(sc.headers);
    Py_XDECREF(sc.sizes);
    PyMem_Free(sc.kinds.p);
    PyMem_Free(sc.vars.p);
    PyMem_Free(sc.lits.p);
    PyMem_Free(sc.offsets);
    return result;
}

/* ---- Runner ---------------------------------------------------------------------------------- */
enum { DRV_PYSAT = 1, DRV_CDCL = 2 };
enum { ST_SAT, ST_UNSAT, ST_TIMEOUT };

/* columns of SatOutputTimes this loop fills per row; any other column takes its constant */
enum {
    COL_CONST, COL_ID, COL_LINE, COL_HASH, COL_STATUS, COL_SOLVE, COL_TOTAL, COL_CHECK, COL_WALL, COL_CPU,
    COL_RSS, COL_TERM, COL_MESSAGE, COL_STAT
};

typedef struct {
    PyObject_HEAD
    int driver;
    /* python-sat: pysolvers' compiled functions over the solver's handle */
    PyObject *solve_fn, *handle, *main_thread, *model_fn, *stats_fn, *clear_fn, *arm, *disarm, *target;
    /* our CDCL: the kernel's methods */
    PyObject *k_solve, *k_model, *k_stats, *max_conflicts;
    long long kernel_vars; /* variables of the loaded rules (assumptions must lie within) */
    int unsat_stops;       /* UNSAT needs the plain path (a proof is written and checked) */
    PyObject *stat_keys;   /* tuple: the SatOutputTimes statistic columns, in order */
    PyObject *driver_keys; /* the statistics this solver reports (others: empty cells) */
    /* layout */
    Py_ssize_t ncells, domain, ngroups;
    int32_t *groups, *group_off, *less;
    Py_ssize_t nless;
    unsigned char value_of[256]; /* symbol -> value (255: not a symbol) */
    char symbol[256];            /* value -> symbol of the board text */
    int strict;                  /* every cell has at most one true value (cell at-most-one clauses) */
    /* limits */
    double limit, grace;
    int has_limit;
    /* python-sat's watchdog stays armed across puzzles (see search): the deadline it is armed
     * for, 0 when it is not; resumed: searches it stopped before their own deadline */
    double armed_until;
    long long resumed;
    /* texts */
    PyObject *message, *instance_prefix, *w_sat, *w_unsat, *w_timeout, *s_sat, *s_unsat, *s_unknown, *term_exit,
        *term_limit, *text_timeout, *text_unsat, *given_differs, *v_yes, *v_unchecked;
    Py_ssize_t v_width;
    int *col_kind;
    Py_ssize_t ncols;
    PyObject *col_const; /* list: per column its constant text ('' when computed) */
    /* scratch */
    unsigned char *board, *givens, *solution;
    uint32_t *stamp;
    uint32_t stamp_now;
    long long *prev_stats, *cur_stats;
    char *has_stat;
} Runner;

static double now_wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* the solving thread's CPU clock (time.thread_time, as the solve path measures an in-process
 * run: a watchdog or signal-relay thread never counts) */
static double now_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double max_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static void Runner_dealloc(Runner *r) {
    PyObject **objs[] = {&r->solve_fn, &r->handle, &r->main_thread, &r->model_fn, &r->stats_fn, &r->clear_fn,
                         &r->arm, &r->disarm, &r->target, &r->k_solve, &r->k_model, &r->k_stats, &r->max_conflicts,
                         &r->stat_keys, &r->driver_keys, &r->message, &r->instance_prefix, &r->w_sat, &r->w_unsat,
                         &r->w_timeout, &r->s_sat, &r->s_unsat, &r->s_unknown, &r->term_exit, &r->term_limit,
                         &r->text_timeout, &r->text_unsat, &r->given_differs, &r->v_yes, &r->v_unchecked,
                         &r->col_const};
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) Py_CLEAR(*objs[i]);
    PyMem_Free(r->groups);
    PyMem_Free(r->group_off);
    PyMem_Free(r->less);
    PyMem_Free(r->col_kind);
    PyMem_Free(r->board);
    PyMem_Free(r->givens);
    PyMem_Free(r->solution);
    PyMem_Free(r->stamp);
    PyMem_Free(r->prev_stats);
    PyMem_Free(r->cur_stats);
    PyMem_Free(r->has_stat);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

/* stamps: one per value (a group's check) or per variable (an instance's assumptions) */
static Py_ssize_t stamp_size(const Runner *r) {
    return r->domain + 1 > r->kernel_vars + 1 ? r->domain + 1 : (Py_ssize_t)r->kernel_vars + 1;
}

static uint32_t next_stamp(Runner *r) {
    if (++r->stamp_now == 0) {
        memset(r->stamp, 0, (size_t)stamp_size(r) * sizeof(uint32_t));
        r->stamp_now = 1;
    }
    return r->stamp_now;
}

static int32_t *copy_ints(PyObject *buffer, Py_ssize_t *count) {
    Py_buffer v;
    if (PyObject_GetBuffer(buffer, &v, PyBUF_SIMPLE)) return NULL;
    *count = v.len / (Py_ssize_t)sizeof(int32_t);
    int32_t *p = PyMem_Malloc((size_t)(v.len ? v.len : 1));
    if (p) memcpy(p, v.buf, (size_t)v.len);
    else PyErr_NoMemory();
    PyBuffer_Release(&v);
    return p;
}

static int get_str(PyObject *tuple, Py_ssize_t i, PyObject **out) {
    PyObject *s = PyTuple_GetItem(tuple, i);
    if (!s) return -1;
    if (!PyUnicode_Check(s) || !PyUnicode_IS_ASCII(s)) {
        PyErr_SetString(PyExc_ValueError, "batch texts must be ASCII str");
        return -1;
    }
    Py_INCREF(s);
    *out = s;
    return 0;
}

static int put_str(Buf *b, PyObject *s) {
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(s, &n);
    return p ? buf_put(b, p, (size_t)n) : -1;
}

/* Runner(driver, stat_keys, layout, limits, texts, columns, constants)
 *   driver: ("pysat", solve_lim, handle, main_thread, model, acc_stats, clearint, arm, disarm,
 *            target, reported keys) or ("cdcl", kernel, max_conflicts or None, variables,
 *            reported keys)
 *   layout: (ncells, domain, groups int32 bytes, group offsets int32 bytes, less-than pairs
 *            int32 bytes, symbol->value table (256 bytes, 255: none), value->symbol bytes,
 *            strict)
 *   limits: (time limit or None, grace, UNSAT stops the run)
 *   texts:  (message, "c instance ", SAT, UNSAT, TIMEOUT, s SAT line, s UNSAT line, s UNKNOWN
 *            line, exit, timelimit, timeout text, unsat text, given-differs detail, yes, -,
 *            v width)
 *   columns: SatOutputTimes columns; constants: {column: text} for the columns not filled here */
static int Runner_init(Runner *r, PyObject *args, PyObject *kw) {
    PyObject *driver, *stat_keys, *layout, *limits, *texts, *columns, *constants;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!O!", &PyTuple_Type, &driver, &PyTuple_Type, &stat_keys, &PyTuple_Type,
                          &layout, &PyTuple_Type, &limits, &PyTuple_Type, &texts, &PyTuple_Type, &columns,
                          &PyDict_Type, &constants))
        return -1;
    const char *kind;
    if (PyTuple_GET_SIZE(driver) < 1 || !(kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(driver, 0)))) {
        PyErr_SetString(PyExc_ValueError, "driver: expected a tuple naming its kind");
        return -1;
    }
    if (strcmp(kind, "pysat") == 0) {
        int main_thread;
        if (!PyArg_ParseTuple(driver, "sOOpOOOOOOO!", &kind, &r->solve_fn, &r->handle, &main_thread, &r->model_fn,
                              &r->stats_fn, &r->clear_fn, &r->arm, &r->disarm, &r->target, &PyTuple_Type,
                              &r->driver_keys))
            return -1;
        r->driver = DRV_PYSAT;
        r->main_thread = PyLong_FromLong(main_thread);
        Py_INCREF(r->solve_fn);
        Py_INCREF(r->handle);
        Py_INCREF(r->model_fn);
        Py_INCREF(r->stats_fn);
        Py_INCREF(r->clear_fn);
        Py_INCREF(r->arm);
        Py_INCREF(r->disarm);
        Py_INCREF(r->target);
        Py_INCREF(r->driver_keys);
    } else if (strcmp(kind, "cdcl") == 0) {
        PyObject *kernel;
        if (!PyArg_ParseTuple(driver, "sOOLO!", &kind, &kernel, &r->max_conflicts, &r->kernel_vars, &PyTuple_Type,
                              &r->driver_keys))
            return -1;
        r->driver = DRV_CDCL;
        Py_INCREF(r->max_conflicts);
        Py_INCREF(r->driver_keys);
        r->k_solve = PyObject_GetAttrString(kernel, "solve");
        r->k_model = PyObject_GetAttrString(kernel, "model");
        r->k_stats = PyObject_GetAttrString(kernel, "stats");
        if (!r->k_solve || !r->k_model || !r->k_stats) return -1;
    } else {
        PyErr_Format(PyExc_ValueError, "unknown batch driver %s", kind);
        return -1;
    }
    Py_INCREF(stat_keys);
    r->stat_keys = stat_keys;
    PyObject *groups, *goff, *less, *table, *symbols;
    if (!PyArg_ParseTuple(layout, "nnOOOSSp", &r->ncells, &r->domain, &groups, &goff, &less, &table, &symbols,
                          &r->strict))
        return -1;
    Py_ssize_t ng, no, nl;
    if (r->ncells < 1 || r->domain < 1 || r->domain > 254 || PyBytes_GET_SIZE(table) != 256
        || PyBytes_GET_SIZE(symbols) != r->domain + 1) {
        PyErr_SetString(PyExc_ValueError, "layout: bad sizes");
        return -1;
    }
    if (!(r->groups = copy_ints(groups, &ng)) || !(r->group_off = copy_ints(goff, &no)) || !(r->less = copy_ints(less, &nl)))
        return -1;
    r->ngroups = no - 1;
    r->nless = nl / 2;
    if (no < 1 || r->group_off[no - 1] != ng) {
        PyErr_SetString(PyExc_ValueError, "layout: group offsets do not match the groups");
        return -1;
    }
    for (Py_ssize_t i = 0; i < ng; i++)
        if (r->groups[i] < 0 || r->groups[i] >= r->ncells) {
            PyErr_SetString(PyExc_ValueError, "layout: a group cell outside the grid");
            return -1;
        }
    for (Py_ssize_t i = 0; i < 2 * r->nless; i++)
        if (r->less[i] < 0 || r->less[i] >= r->ncells) {
            PyErr_SetString(PyExc_ValueError, "layout: an inequality cell outside the grid");
            return -1;
        }
    memcpy(r->value_of, PyBytes_AS_STRING(table), 256);
    memset(r->symbol, 0, sizeof r->symbol);
    memcpy(r->symbol, PyBytes_AS_STRING(symbols), (size_t)r->domain + 1);
    PyObject *limit;
    if (!PyArg_ParseTuple(limits, "Odp", &limit, &r->grace, &r->unsat_stops)) return -1;
    r->has_limit = limit != Py_None;
    r->armed_until = 0;
    r->resumed = 0;
    if (r->has_limit && (r->limit = PyFloat_AsDouble(limit)) == -1.0 && PyErr_Occurred()) return -1;
    if (PyTuple_GET_SIZE(texts) != 16) {
        PyErr_SetString(PyExc_ValueError, "texts: expected 16 items");
        return -1;
    }
    PyObject **tx[] = {&r->message, &r->instance_prefix, &r->w_sat, &r->w_unsat, &r->w_timeout, &r->s_sat,
                       &r->s_unsat, &r->s_unknown, &r->term_exit, &r->term_limit, &r->text_timeout,
                       &r->text_unsat, &r->given_differs, &r->v_yes, &r->v_unchecked};
    for (Py_ssize_t i = 0; i < 15; i++)
        if (get_str(texts, i, tx[i])) return -1;
    r->v_width = PyLong_AsSsize_t(PyTuple_GET_ITEM(texts, 15));
    if (r->v_width < 1) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "v width must be positive");
        return -1;
    }
    r->ncols = PyTuple_GET_SIZE(columns);
    r->col_kind = PyMem_Calloc((size_t)r->ncols + 1, sizeof(int));
    r->col_const = PyList_New(r->ncols);
    if (!r->col_kind || !r->col_const) return -1;
    static const struct {
        const char *name;
        int kind;
    } known[] = {{"id", COL_ID}, {"line", COL_LINE}, {"instance_hash", COL_HASH}, {"status", COL_STATUS},
                 {"solve_seconds", COL_SOLVE}, {"total_seconds", COL_TOTAL}, {"check_seconds", COL_CHECK},
                 {"wall_seconds", COL_WALL}, {"cpu_seconds", COL_CPU}, {"max_rss_mb", COL_RSS},
                 {"termination", COL_TERM}, {"message", COL_MESSAGE}};
    for (Py_ssize_t c = 0; c < r->ncols; c++) {
        PyObject *name = PyTuple_GET_ITEM(columns, c);
        const char *s = PyUnicode_AsUTF8(name);
        if (!s) return -1;
        int k = COL_CONST;
        for (size_t j = 0; j < sizeof known / sizeof known[0]; j++)
            if (strcmp(s, known[j].name) == 0) k = known[j].kind;
        int in_stats = PySequence_Contains(stat_keys, name);
        if (in_stats < 0) return -1;
        if (in_stats) k = COL_STAT + (int)PySequence_Index(stat_keys, name);
        r->col_kind[c] = k;
        PyObject *text = PyUnicode_FromString("");
        if (k == COL_CONST) {
            Py_XDECREF(text);
            text = PyDict_GetItemWithError(constants, name);
            if (!text) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "no value for SatOutputTimes column %s", s);
                return -1;
            }
            if (!PyUnicode_Check(text) || !PyUnicode_IS_ASCII(text)) {
                PyErr_Format(PyExc_ValueError, "column %s: constant must be ASCII text", s);
                return -1;
            }
            Py_INCREF(text);
        }
        if (!text) return -1;
        PyList_SET_ITEM(r->col_const, c, text);
    }
    Py_ssize_t nstats = PyTuple_GET_SIZE(stat_keys);
    r->board = PyMem_Malloc((size_t)r->ncells);
    r->givens = PyMem_Malloc((size_t)r->ncells);
    r->solution = PyMem_Malloc((size_t)r->ncells);
    r->stamp = PyMem_Calloc((size_t)stamp_size(r), sizeof(uint32_t));
    r->prev_stats = PyMem_Calloc((size_t)nstats + 1, sizeof(long long));
    r->cur_stats = PyMem_Calloc((size_t)nstats + 1, sizeof(long long));
    r->has_stat = PyMem_Calloc((size_t)nstats + 1, 1);
    if (!r->board || !r->givens || !r->solution || !r->stamp || !r->prev_stats || !r->cur_stats || !r->has_stat) {
        PyErr_NoMemory();
        return -1;
    }
    (void)kw;
    return 0;
}

/* a board string in symbols -> values; -1 when it is not one of this layout */
static int read_board(Runner *r, PyObject *text, unsigned char *out) {
    if (!PyUnicode_Check(text) || !PyUnicode_IS_ASCII(text) || PyUnicode_GET_LENGTH(text) != r->ncells) return -1;
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    for (Py_ssize_t i = 0; i < r->ncells; i++) {
        unsigned char v = r->value_of[s[i]];
        if (v == 255 || v > r->domain) return -1;
        out[i] = v;
    }
    return 0;
}

/* Puzzle.check_solution on a full board: every given kept, every value in 1..D, every group
 * all-different, every inequality; 1 when it is a solution */
static int solves(Runner *r, const unsigned char *board, const unsigned char *givens) {
    for (Py_ssize_t c = 0; c < r->ncells; c++) {
        if (board[c] < 1 || board[c] > r->domain) return 0;
        if (givens[c] && givens[c] != board[c]) return 0;
    }
    for (Py_ssize_t g = 0; g < r->ngroups; g++) {
        uint32_t st = next_stamp(r);
        for (int32_t k = r->group_off[g]; k < r->group_off[g + 1]; k++) {
            unsigned char v = board[r->groups[k]];
            if (r->stamp[v] == st) return 0;
            r->stamp[v] = st;
        }
    }
    for (Py_ssize_t i = 0; i < r->nless; i++)
        if (!(board[r->less[2 * i]] < board[r->less[2 * i + 1]])) return 0;
    return 1;
}

/* decode_model for a direct encoding: true literals 1..ncells*D give cell (lit-1)//D the value
 * (lit-1)%D+1; strict: a second value is a wrong model; otherwise the lowest value is taken.
 * 0 when every cell got a value */
static int decode(Runner *r, PyObject *model) {
    memset(r->board, 0, (size_t)r->ncells);
    long long top = (long long)r->ncells * r->domain;
    Py_ssize_t n = PyList_GET_SIZE(model);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyList_GET_ITEM(model, i);
        long long lit = PyLong_AsLongLong(item);
        if (lit == -1 && PyErr_Occurred()) return -1;
        if (lit <= 0 || lit > top) continue;
        Py_ssize_t cell = (Py_ssize_t)((lit - 1) / r->domain);
        unsigned char d = (unsigned char)((lit - 1) % r->domain + 1);
        if (r->board[cell]) {
            if (r->strict) return 1;
            if (d < r->board[cell]) r->board[cell] = d;
            continue;
        }
        r->board[cell] = d;
    }
    for (Py_ssize_t c = 0; c < r->ncells; c++)
        if (!r->board[c]) return 1;
    return 0;
}

static int read_stats(Runner *r, long long *out) {
    PyObject *d = r->driver == DRV_PYSAT ? PyObject_CallOneArg(r->stats_fn, r->handle)
                                         : PyObject_CallNoArgs(r->k_stats);
    if (!d) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(r->stat_keys);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *key = PyTuple_GET_ITEM(r->stat_keys, k);
        r->has_stat[k] = 0;
        out[k] = 0;
        int reported = PySequence_Contains(r->driver_keys, key);
        if (reported < 0) goto fail;
        if (!reported || !PyDict_Check(d)) continue;
        PyObject *v = PyDict_GetItemWithError(d, key);
        if (!v) {
            if (PyErr_Occurred()) goto fail;
            continue;
        }
        out[k] = PyLong_AsLongLong(v);
        if (out[k] == -1 && PyErr_Occurred()) goto fail;
        r->has_stat[k] = 1;
    }
    Py_DECREF(d);
    return 0;
fail:
    Py_DECREF(d);
    return -1;
}

/* one search: 0 SAT, 1 UNSAT, 2 timeout, 3 stop (UNSAT needing the plain path, an assumption
 * out of range or repeated), -1 an exception */
static int search(Runner *r, const int32_t *lits, Py_ssize_t n, double t0, PyObject **model) {
    *model = NULL;
    double deadline = t0 + r->limit;
    if (r->driver == DRV_PYSAT) {
        PyObject *a = PyList_New(n);
        if (!a) return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = PyLong_FromLong(lits[i]);
            if (!v) {
                Py_DECREF(a);
                return -1;
            }
            PyList_SET_ITEM(a, i, v);
        }
        PyObject *answer = NULL;
        while (1) {
            if (r->has_limit) {
                double now = now_wall(), left = deadline - now;
                if (left <= 0) {
                    answer = Py_None;
                    Py_INCREF(answer);
                    break;
                }
                /* The watchdog is armed once and left armed from puzzle to puzzle: a deadline set
                 * for an earlier puzzle (its start plus the same limit) is no later than this
                 * one's, so it still bounds this search. It is armed again only when that
                 * deadline has passed; it then stops at most one search before its own deadline
                 * (once per time limit of the shard), and that search resumes below. Arming and
                 * disarming per puzzle cost more than a 9x9's search does. */
                if (!(r->armed_until > now && r->armed_until <= deadline)) {
                    PyObject *sec = PyFloat_FromDouble(left);
                    PyObject *armed = sec ? PyObject_CallFunctionObjArgs(r->arm, r->target, sec, NULL) : NULL;
                    Py_XDECREF(sec);
                    if (!armed) {
                        Py_DECREF(a);
                        return -1;
                    }
                    Py_DECREF(armed);
                    r->armed_until = deadline;
                }
            }
            PyObject *argv[] = {r->handle, a, r->main_thread, Py_True};
            answer = PyObject_Vectorcall(r->solve_fn, argv, 4, NULL);
            PyObject *err_t = NULL, *err_v = NULL, *err_tb = NULL;
            if (!answer) PyErr_Fetch(&err_t, &err_v, &err_tb);
            PyObject *y = PyObject_CallOneArg(r->clear_fn, r->handle);
            Py_XDECREF(y);
            if (!answer) {
                PyErr_Restore(err_t, err_v, err_tb);
                Py_DECREF(a);
                return -1;
            }
            if (!y) {
                Py_DECREF(answer);
                Py_DECREF(a);
                return -1;
            }
            if (PyErr_CheckSignals()) {
                Py_DECREF(answer);
                Py_DECREF(a);
                return -1;
            }
            /* solve_limited: a search interrupted before the deadline (a signal, or the watchdog
             * at an earlier puzzle's deadline: armed again above) resumes */
            if (answer != Py_None || !r->has_limit || now_wall() >= deadline) break;
            Py_DECREF(answer);
            r->armed_until = 0;
            r->resumed++;
        }
        Py_DECREF(a);
        int status = answer == Py_True ? ST_SAT : answer == Py_False ? ST_UNSAT : ST_TIMEOUT;
        Py_DECREF(answer);
        if (status == ST_SAT) {
            *model = PyObject_CallOneArg(r->model_fn, r->handle);
            if (!*model) return -1;
            if (!PyList_Check(*model)) {
                Py_CLEAR(*model);
                return 3;
            }
        }
        return status;
    }
    /* our CDCL: Cdcl.solve with distinct assumptions as internal literals 2*(var-1)+sign (a
     * puzzle without givens: Cdcl.solve keeps a SAT answer without assumptions, the plain
     * path does that) */
    if (n == 0) return 3;
    uint32_t st = next_stamp(r);
    PyObject *a = PyList_New(n);
    if (!a) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        long long d = lits[i], v = d < 0 ? -d : d;
        if (v < 1 || v > r->kernel_vars || r->stamp[v] == st) {
            Py_DECREF(a);
            return 3; /* outside the rules, or repeated: the plain path sorts it out */
        }
        r->stamp[v] = st;
        PyObject *x = PyLong_FromLongLong(2 * (v - 1) + (d < 0));
        if (!x) {
            Py_DECREF(a);
            return -1;
        }
        PyList_SET_ITEM(a, i, x);
    }
    PyObject *left;
    if (r->has_limit) {
        double rem = deadline - now_wall();
        if (rem <= 0) {
            Py_DECREF(a);
            return ST_TIMEOUT;
        }
        left = PyFloat_FromDouble(rem);
    } else {
        left = Py_None;
        Py_INCREF(left);
    }
    if (!left) {
        Py_DECREF(a);
        return -1;
    }
    PyObject *argv[] = {a, left, r->max_conflicts};
    PyObject *code = PyObject_Vectorcall(r->k_solve, argv, 3, NULL);
    Py_DECREF(a);
    Py_DECREF(left);
    if (!code) return -1;
    long c = PyLong_AsLong(code);
    Py_DECREF(code);
    if (c == -1 && PyErr_Occurred()) return -1;
    if (PyErr_CheckSignals()) return -1;
    if (c == 10) {
        *model = PyObject_CallNoArgs(r->k_model);
        if (!*model) return -1;
        if (!PyList_Check(*model)) {
            Py_CLEAR(*model);
            return 3;
        }
        return ST_SAT;
    }
    if (c == 20) return 3; /* the rules alone are UNSAT: the driver keeps that, the plain path knows */
    if (c == 30) return ST_UNSAT;
    return ST_TIMEOUT;
}

/* a TSV cell must not need quoting (TsvWriter writes such rows through the csv module) */
static int plain_cell(PyObject *s) {
    if (!PyUnicode_Check(s) || !PyUnicode_IS_ASCII(s)) return 0;
    const unsigned char *p = PyUnicode_1BYTE_DATA(s);
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(s); i++)
        if (p[i] == '\t' || p[i] == '\n' || p[i] == '\r' || p[i] == '"') return 0;
    return 1;
}

typedef struct {
    double solve, total, check, cpu, rss;
    int given_differs;
} Row;

static int write_times(Runner *r, Buf *b, PyObject *id, PyObject *line, PyObject *hash, int status,
                       const Row *row) {
    for (Py_ssize_t c = 0; c < r->ncols; c++) {
        if (c && buf_ch(b, '\t')) return -1;
        int k = r->col_kind[c];
        int bad = 0;
        switch (k) {
        case COL_ID: bad = put_str(b, id); break;
        case COL_LINE: bad = put_str(b, line); break;
        case COL_HASH: bad = put_str(b, hash); break;
        case COL_STATUS:
            bad = put_str(b, status == ST_SAT ? r->w_sat : status == ST_UNSAT ? r->w_unsat : r->w_timeout);
            break;
        case COL_SOLVE: bad = buf_fmt(b, "%.6f", row->solve); break;
        case COL_TOTAL:
        case COL_WALL: bad = buf_fmt(b, "%.6f", row->total); break;
        case COL_CHECK: bad = buf_fmt(b, "%.6f", row->check); break;
        case COL_CPU: bad = buf_fmt(b, "%.6f", row->cpu); break;
        case COL_RSS: bad = buf_fmt(b, "%.1f", row->rss); break;
        case COL_TERM: bad = put_str(b, status == ST_TIMEOUT ? r->term_limit : r->term_exit); break;
        case COL_MESSAGE: bad = put_str(b, r->message); break;
        case COL_CONST: bad = put_str(b, PyList_GET_ITEM(r->col_const, c)); break;
        default: {
            Py_ssize_t s = k - COL_STAT;
            if (r->has_stat[s]) bad = buf_long(b, r->cur_stats[s] - r->prev_stats[s]);
        }
        }
        if (bad) return -1;
    }
    return buf_ch(b, '\n');
}

/* a model's `v` lines (outputs.write_block: V_WIDTH literals a line, then the 0): the buffer
 * is reserved once for the longest text the model can make, then written without checks */
static int put_v_lines(Runner *r, Buf *b, PyObject *model) {
    Py_ssize_t m = PyList_GET_SIZE(model);
    size_t most = (size_t)(m + 1) * 22 + ((size_t)(m / r->v_width) + 1) * 2;
    if (buf_reserve(b, most)) return -1;
    char *p = b->p + b->n;
    for (Py_ssize_t i = 0; i <= m; i++) {
        long long lit = i < m ? PyLong_AsLongLong(PyList_GET_ITEM(model, i)) : 0;
        if (lit == -1 && PyErr_Occurred()) return -1;
        if (i % r->v_width == 0) *p++ = 'v';
        *p++ = ' ';
        p += decimal_text(p, lit);
        if (i % r->v_width == r->v_width - 1 || i == m) *p++ = '\n';
    }
    b->n = (size_t)(p - b->p);
    return 0;
}

/* the watchdog disarmed (none of this loop's deadlines outlives a run() call), then any
 * interrupt it delivered after the last search cleared, so that no later search of the plain
 * path is stopped by it; 0, or -1 with an exception */
static int watchdog_off(Runner *r) {
    if (!r->armed_until) return 0;
    r->armed_until = 0;
    PyObject *x = PyObject_CallNoArgs(r->disarm);
    if (!x) return -1;
    Py_DECREF(x);
    PyObject *y = PyObject_CallOneArg(r->clear_fn, r->handle);
    if (!y) return -1;
    Py_DECREF(y);
    return 0;
}

/* run(ids, lines, hashes, givens, solutions, lits, offsets, first) ->
 *   (done, SatOutput text, SatOutputTimes rows, SatSols rows, [SAT, UNSAT, TIMEOUT counts], stop)
 * ids/lines/hashes: str per puzzle; givens/solutions: board strings (solution None: none);
 * lits/offsets: the shard's unit literals and offsets (scan_bundle), puzzle j at first + j.
 * stop: None when every puzzle was written, else why puzzle ``done`` was not. */
static PyObject *Runner_run(Runner *r, PyObject *args) {
    PyObject *ids, *lines, *hashes, *givens, *solutions;
    Py_buffer lv, ov;
    Py_ssize_t first;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!y*y*n", &PyList_Type, &ids, &PyList_Type, &lines, &PyList_Type, &hashes,
                          &PyList_Type, &givens, &PyList_Type, &solutions, &lv, &ov, &first))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(ids);
    const int32_t *lits = lv.buf;
    const long long *off = ov.buf;
    Py_ssize_t noff = ov.len / (Py_ssize_t)sizeof(long long), nlits = lv.len / (Py_ssize_t)sizeof(int32_t);
    Buf out = {0}, times = {0}, sols = {0};
    PyObject *result = NULL;
    const char *stop = NULL;
    long counts[3] = {0, 0, 0};
    Py_ssize_t j = 0;
    if (PyList_GET_SIZE(lines) != n || PyList_GET_SIZE(hashes) != n || PyList_GET_SIZE(givens) != n
        || PyList_GET_SIZE(solutions) != n || first < 0 || first + n + 1 > noff) {
        PyErr_SetString(PyExc_ValueError, "run: lists of different lengths, or outside the offsets");
        goto done;
    }
    if (read_stats(r, r->prev_stats)) goto done;
    for (; j < n; j++) {
        PyObject *id = PyList_GET_ITEM(ids, j), *line = PyList_GET_ITEM(lines, j), *hash = PyList_GET_ITEM(hashes, j);
        PyObject *sol_text = PyList_GET_ITEM(solutions, j);
        long long a = off[first + j], e = off[first + j + 1];
        if (a < 0 || e < a || e > nlits || !plain_cell(id) || !plain_cell(line) || !plain_cell(hash)
            || read_board(r, PyList_GET_ITEM(givens, j), r->givens)
            || (sol_text != Py_None && read_board(r, sol_text, r->solution))) {
            stop = "input";
            break;
        }
        double t0 = now_wall(), c0 = now_cpu();
        double t1 = now_wall();
        PyObject *model;
        int status = search(r, lits + a, (Py_ssize_t)(e - a), t0, &model);
        double t2 = now_wall();
        if (status < 0) {
            if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt) || PyErr_ExceptionMatches(PyExc_SystemExit)) goto done;
            PyErr_Clear(); /* an error: the plain path solves this puzzle and says what it was */
            stop = "error";
            break;
        }
        if (status == 3 || (status == ST_UNSAT && r->unsat_stops)) {
            Py_XDECREF(model);
            stop = status == 3 ? "driver" : "unsat";
            break;
        }
        if (read_stats(r, r->cur_stats)) {
            Py_XDECREF(model);
            PyErr_Clear();
            stop = "error";
            break;
        }
        Row row;
        row.solve = t2 - t1;
        row.total = now_wall() - t0;
        row.cpu = now_cpu() - c0;
        row.rss = max_rss_mb();
        row.given_differs = 0;
        if (r->has_limit && status != ST_TIMEOUT && row.total > r->limit + r->grace) {
            Py_XDECREF(model);
            stop = "late"; /* the plain path turns a late answer into TIMEOUT */
            break;
        }
        double k0 = now_wall();
        int ok = 1;
        if (status == ST_SAT) {
            int dec = decode(r, model);
            if (dec < 0) {
                Py_DECREF(model);
                PyErr_Clear();
                stop = "error";
                break;
            }
            ok = dec == 0 && solves(r, r->board, r->givens);
            if (ok && sol_text != Py_None) row.given_differs = memcmp(r->board, r->solution, (size_t)r->ncells) != 0;
        } else if (status == ST_UNSAT && sol_text != Py_None) {
            ok = !solves(r, r->solution, r->givens); /* a given solution refutes the UNSAT answer */
        }
        row.check = now_wall() - k0;
        if (!ok) {
            Py_XDECREF(model);
            stop = status == ST_SAT ? "model" : "refuted";
            break;
        }
        /* SatOutput block (outputs.write_block) */
        int bad = put_str(&out, r->instance_prefix) || put_str(&out, id) || buf_put(&out, "\nc status ", 10)
                  || put_str(&out, status == ST_SAT ? r->w_sat : status == ST_UNSAT ? r->w_unsat : r->w_timeout);
        if (!bad && PyUnicode_GET_LENGTH(r->message))
            bad = buf_ch(&out, ' ') || put_str(&out, r->message);
        bad = bad || buf_fmt(&out, "\nc time %.6f search %.6f\n", row.total, row.solve)
              || put_str(&out, status == ST_SAT ? r->s_sat : status == ST_UNSAT ? r->s_unsat : r->s_unknown)
              || buf_ch(&out, '\n');
        if (!bad && status == ST_SAT) bad = put_v_lines(r, &out, model);
        Py_XDECREF(model);
        /* SatOutputTimes row (tables.times_row) */
        bad = bad || write_times(r, &times, id, line, hash, status, &row);
        /* SatSols row (tables.sols_row): id line instance_hash status verified solution detail */
        bad = bad || put_str(&sols, id) || buf_ch(&sols, '\t') || put_str(&sols, line) || buf_ch(&sols, '\t')
              || put_str(&sols, hash) || buf_ch(&sols, '\t');
        if (!bad && status == ST_SAT) {
            bad = put_str(&sols, r->w_sat) || buf_ch(&sols, '\t') || put_str(&sols, r->v_yes) || buf_ch(&sols, '\t')
                  || buf_reserve(&sols, (size_t)r->ncells);
            if (!bad) {
                for (Py_ssize_t c = 0; c < r->ncells; c++) sols.p[sols.n++] = r->symbol[r->board[c]];
                bad = buf_ch(&sols, '\t') || (row.given_differs && put_str(&sols, r->given_differs));
            }
        } else if (!bad) {
            bad = put_str(&sols, status == ST_UNSAT ? r->w_unsat : r->w_timeout) || buf_ch(&sols, '\t')
                  || put_str(&sols, r->v_unchecked) || buf_ch(&sols, '\t')
                  || put_str(&sols, status == ST_UNSAT ? r->text_unsat : r->text_timeout) || buf_ch(&sols, '\t')
                  || put_str(&sols, r->message);
        }
        bad = bad || buf_ch(&sols, '\n');
        if (bad) goto done;
        counts[status]++;
        memcpy(r->prev_stats, r->cur_stats, (size_t)PyTuple_GET_SIZE(r->stat_keys) * sizeof(long long));
    }
    {
        PyObject *o = buf_text(&out), *t = buf_text(&times), *s = buf_text(&sols);
        if (o && t && s)
            result = Py_BuildValue("(nNNN[lll]s)", j, o, t, s, counts[ST_SAT], counts[ST_UNSAT], counts[ST_TIMEOUT],
                                   stop);
        else {
            Py_XDECREF(o);
            Py_XDECREF(t);
            Py_XDECREF(s);
        }
    }
done:
    if (r->armed_until) { /* keep an exception already raised; a new one fails the call */
        PyObject *et, *ev, *etb;
        PyErr_Fetch(&et, &ev, &etb);
        int bad = watchdog_off(r);
        if (et) {
            if (bad) PyErr_Clear();
            PyErr_Restore(et, ev, etb);
        } else if (bad) {
            Py_CLEAR(result);
        }
    }
    PyBuffer_Release(&lv);
    PyBuffer_Release(&ov);
    PyMem_Free(out.p);
    PyMem_Free(times.p);
    PyMem_Free(sols.p);
    return result;
}

static PyMethodDef Runner_methods[] = {
    {"run", (PyCFunction)Runner_run, METH_VARARGS,
     "run(ids, lines, hashes, givens, solutions, lits, offsets, first) -> (done, out, times, sols, counts, stop)"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Runner_members[] = {
    {"resumed", T_LONGLONG, offsetof(Runner, resumed), READONLY,
     "searches the watchdog stopped before their own deadline (resumed)"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject RunnerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "satdoku.pipeline._batch.Runner",
    .tp_basicsize = sizeof(Runner),
    .tp_dealloc = (destructor)Runner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "the per-puzzle loop of one solver over runs of puzzles of one layout",
    .tp_methods = Runner_methods,
    .tp_members = Runner_members,
    .tp_init = (initproc)Runner_init,
    .tp_new = PyType_GenericNew,
};

static PyMethodDef module_methods[] = {
    {"scan_bundle", scan_bundle, METH_VARARGS, "scan_bundle(data) -> the blocks of a SatInput bundle, or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_batch", "the solve stage's per-puzzle loop in compiled code", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__batch(void) {
    if (PyType_Ready(&RunnerType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&RunnerType);
    if (PyModule_AddObject(m, "Runner", (PyObject *)&RunnerType) < 0) {
        Py_DECREF(&RunnerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
