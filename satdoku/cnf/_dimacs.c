/* The compiled passes of satdoku's DIMACS reading and writing, built at install time (setup.py
 * builds it as the extension module satdoku.cnf._dimacs; engine "c" of
 * satdoku/cnf/dimacs_fast.py, the streaming reader satdoku/cnf/dimacs_stream.py).
 *
 * The clause body is one state machine (Body) that reads a piece at a time: the whole-buffer
 * pass parse_dimacs_body and the streaming BodyScanner share it. Same results and errors as
 * the Python reader (tests run every engine, and the stream cut anywhere, on the same good and
 * bad inputs); the scanner also hands on GBD's hashed tokens, taken from its own tokens in the
 * same pass. The common case (whole literals between blanks) runs in body_run, one copy for
 * each use, its digits read eight at once; everything else goes byte by byte. GbdTokens streams
 * GBD's hash on its own (for content the scanner is unsure of; the readable form of both:
 * satdoku/identity.py). A solver's answer: v_run reads a run of whole v lines, parse_ints one
 * line's text (readable form: satdoku/solvers/output.py). The literals come back as plain
 * int32 bytes, so a caller needs no numpy; a model is a list of ints or an int32 buffer.
 * Python loads this module in one place, satdoku/cnf/native.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "decimal.h"

#define ERR_NONE 0
#define ERR_HEADER 1
#define ERR_GARBAGE 2
#define ERR_RANGE 3

/* ---- the clause body, as a stream -----------------------------------------------------------
 * One state machine reads the clause body a piece at a time (pieces may split a line or a
 * number anywhere): a line whose first token starts with 'c' is a comment, with '%' ends the
 * formula (SATLIB's trailer), with 'p' is a second header (an error); every other token must be
 * a decimal integer within +-num_vars; 0 ends a clause. What it does with the literals is
 * chosen per reader: keep them (an int32 buffer, each clause 0-terminated), check them against
 * a model (count the clauses it leaves unsatisfied), or only count clauses. The whole-buffer
 * pass parse_dimacs_body and the streaming BodyScanner are this one machine. */

#define TOKEN_BYTES 160 /* bytes of a bad token kept for its message (40 characters of UTF-8) */

typedef struct {
    long long num_vars;
    Py_ssize_t pos;  /* content offset of the next byte */
    Py_ssize_t line; /* its line */
    int line_start, in_comment, ended, err;
    /* the token being read */
    int in_tok, neg, ndigits;
    long long tok_value;
    Py_ssize_t tok_pos, tok_line;
    /* its bytes, once it spans pieces or is bad (for the message) */
    unsigned char text[TOKEN_BYTES];
    int text_len, collecting;
    Py_ssize_t err_pos, err_line, end_pos, end_line;
    long long clauses;
    int open_clause, closed_last;
    /* keep: the literals */
    PyObject *out; /* bytes, resized as it grows */
    int32_t *lits;
    Py_ssize_t count, cap;
    int keep;
    /* check: bit num_vars + lit of truth is set when lit is true (see pack_truth) */
    const uint8_t *truth;
    int satisfied;
    long long unsat, first_unsat;
    /* gbd: GBD's hashed tokens (satdoku/identity.py) taken from this machine's own tokens, in
       the same pass: each token's bytes as read, one space between tokens, written to g_out
       (room for the piece's bytes and one; NULL: not wanted). g_unsure: the content has a CR
       inside a comment line, after which GBD (a CR ends its lines) reads tokens this machine
       skips: the caller hashes such content by GBD's own pass instead, and nothing more is
       written once it is set. */
    unsigned char *g_out;
    Py_ssize_t g_k;
    int g_any, g_last_zero, g_unsure;
} Body;

/* A model's value table (value[num_vars + lit] != 0 when lit is true: one byte a literal) as
 * one bit a literal, packed: checking a clause looks up its literals at random, and a table
 * of 2 bits a variable stays in the caches where one of 2 bytes a variable does not (a model
 * of 3.8 million variables: 0.9 MB against 7.5 MB; its check ran at a quarter of the parse's
 * speed). NULL when out of memory (an exception set). */
static uint8_t *pack_truth(const unsigned char *value, Py_ssize_t len) {
    uint8_t *bits = PyMem_Calloc((size_t)len / 8 + 1, 1);
    if (!bits) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < len; i++)
        if (value[i]) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    return bits;
}

#define IS_TRUE(bits, i) (((bits)[(i) >> 3] >> ((i) & 7)) & 1)

/* A clause ends, checked against a model: unless one of its literals was true, it is counted,
 * and the first such clause's index kept. The one rule of every checking pass (the clause body
 * machine, its fast run and unsatisfied()); no branch on the clause's outcome, since a model's
 * values are as good as random to the branch predictor. */
static inline void clause_checked(int satisfied, long long index, long long *unsat,
                                  long long *first_unsat) {
    int missed = !satisfied;
    *unsat += missed;
    if (missed & (*first_unsat < 0)) *first_unsat = index;
}

static void body_init(Body *b, long long num_vars, Py_ssize_t pos, Py_ssize_t line) {
    memset(b, 0, sizeof(*b));
    b->num_vars = num_vars;
    b->pos = pos;
    b->line = line;
    b->line_start = 1;
    b->first_unsat = -1;
}

static int is_blank(unsigned char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

/* room in the kept buffer for `more` literals beyond those kept (-1 on memory error) */
static int body_reserve(Body *b, Py_ssize_t more) {
    if (b->cap - b->count >= more) return 0;
    Py_ssize_t cap = b->cap < 1024 ? 1024 : b->cap + b->cap / 2;
    if (cap < b->count + more) cap = b->count + more;
    if (b->out == NULL) {
        b->out = PyBytes_FromStringAndSize(NULL, cap * 4);
        if (!b->out) return -1;
    } else if (_PyBytes_Resize(&b->out, cap * 4) < 0) {
        return -1;
    }
    b->lits = (int32_t *)PyBytes_AS_STRING(b->out);
    b->cap = cap;
    return 0;
}

/* the most literals body_run can keep from n bytes: each takes a digit and the blank after it */
#define BODY_ROOM(n) ((n) / 2 + 2)

/* GBD: a token's bytes tok[0:len] written to out at *k, after a separator when one came
   before (*any). wide: 16 bytes may be read from tok and written to out (a fixed-size copy is
   a move or two; the caller knows there is room) */
static inline void gbd_put(unsigned char *out, Py_ssize_t *k, int *any, const unsigned char *tok,
                           Py_ssize_t len, int wide) {
    out[*k] = ' '; /* the separator, kept when one came before */
    *k += *any;
    *any = 1;
    if (wide)
        memcpy(out + *k, tok, 16);
    else
        memcpy(out + *k, tok, (size_t)len);
    *k += len;
}

static inline int body_emit(Body *b, int32_t lit) {
    if (b->keep) {
        if (b->count == b->cap && body_reserve(b, 1) < 0) return -1;
        b->lits[b->count++] = lit;
    }
    if (lit == 0) {
        if (b->truth) clause_checked(b->satisfied, b->clauses, &b->unsat, &b->first_unsat);
        b->satisfied = 0;
        b->clauses++;
        b->open_clause = 0;
    } else {
        b->open_clause = 1;
        if (b->truth && !b->satisfied && IS_TRUE(b->truth, b->num_vars + lit)) b->satisfied = 1;
    }
    return 0;
}

static void body_error(Body *b, int err) {
    b->err = err;
    b->err_pos = b->tok_pos;
    b->err_line = b->tok_line;
}

/* keep the bytes buf[from:to] of the current token (for a message) */
static void body_text(Body *b, const unsigned char *buf, Py_ssize_t from, Py_ssize_t to) {
    while (from < to && b->text_len < TOKEN_BYTES) b->text[b->text_len++] = buf[from++];
}

/* the token ends (at a blank, or at the end of the content): a literal, or an error */
static int body_token_end(Body *b) {
    b->in_tok = 0;
    b->g_last_zero = b->ndigits == 1 && !b->neg && b->tok_value == 0; /* exactly "0" */
    if (b->ndigits == 0) {
        body_error(b, ERR_GARBAGE);
        return 0;
    }
    if (b->tok_value > b->num_vars) {
        body_error(b, ERR_RANGE);
        return 0;
    }
    return body_emit(b, (int32_t)(b->neg ? -b->tok_value : b->tok_value));
}

#if !defined(SATDOKU_NO_SWAR) && defined(__GNUC__) && defined(__BYTE_ORDER__) \
    && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SWAR_DIGITS 1 /* (else digit by digit) */
/* The leading decimal digits of the 8 bytes at p, all at once (no branch per digit, whose
 * unpredictable end cost more than the digits): how many there are (0-8), their value to
 * *value. */
static inline int eight_digits(const unsigned char *p, long long *value) {
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t x = w - 0x3030303030303030ULL; /* each digit's byte to its value 0-9 */
    /* a byte's top bit is set where it is no digit (borrows and carries only reach the bytes
       after the first such byte, which are not read) */
    uint64_t stop = (x | (x + 0x7676767676767676ULL)) & 0x8080808080808080ULL;
    int len = stop ? __builtin_ctzll(stop) >> 3 : 8;
    if (len == 0) return 0;
    x <<= 8 * (8 - len); /* the digits alone, as an 8-digit number with leading zeros */
    x = ((x & 0x0F0F0F0F0F0F0F0FULL) * 2561) >> 8;
    x = ((x & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
    x = ((x & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32;
    *value = (long long)x;
    return len;
}
#else
#define SWAR_DIGITS 0
#endif

/* The common case at full speed, from buf[i] (outside a token and a comment): blanks, line
 * ends and whole literals (at most 10 digits, within range, ended by a blank inside the piece),
 * with the machine's state in locals (the writes through lits and g_out may alias the Body's
 * fields, so the compiler would reload those after each). Returns where it stopped: the
 * piece's end, or anything else (a comment, the trailer, a second header, a token that goes on
 * in the next piece, a bad token), which body_feed's byte-by-byte way takes from there. The
 * kept buffer must have room for BODY_ROOM(n - i) more literals (body_feed reserves it).
 * keep, check, gbd: whether the literals are kept, checked against b->truth, and written for
 * GBD's hash; constants in each of body_run's copies, so each copy does only its own. */
static inline __attribute__((always_inline)) Py_ssize_t
body_run_as(Body *b, const unsigned char *buf, Py_ssize_t i, Py_ssize_t n, const int keep,
            const int check, const int gbd) {
    const long long num_vars = b->num_vars;
    const uint8_t *truth = b->truth;
    int32_t *lits = b->lits;
    unsigned char *g_out = b->g_out;
    Py_ssize_t count = b->count, line = b->line, g_k = b->g_k;
    long long clauses = b->clauses, unsat = b->unsat, first_unsat = b->first_unsat;
    int line_start = b->line_start, satisfied = b->satisfied, open_clause = b->open_clause;
    int g_any = b->g_any, g_last_zero = b->g_last_zero;
    while (i < n) {
        unsigned char ch = buf[i];
        if (ch == ' ') {
            i++;
            continue;
        }
        if (ch == '\n') {
            line++;
            line_start = 1;
            i++;
            continue;
        }
        if (ch == '\t' || ch == '\r') {
            i++;
            continue;
        }
        Py_ssize_t j = i + (ch == '-'), digits_at = j;
        Py_ssize_t lim = n - j > 10 ? j + 10 : n; /* at most 10 digits, within the piece */
        long long v = 0;
        int len = 0;
#if SWAR_DIGITS
        if (n - j >= 8) {
            len = eight_digits(buf + j, &v);
            if (len == 0) break;
            j += len;
        }
#endif
        if (len == 0 || len == 8) { /* near the piece's end, or more than 8 digits */
            unsigned digit;
            while (j < lim && (digit = (unsigned)buf[j] - '0') <= 9) {
                v = v * 10 + digit;
                j++;
            }
            if (j == digits_at) break;
        }
        if (j == n || !is_blank(buf[j]) || v > num_vars) break; /* (a digit: too many) */
        int32_t lit = (int32_t)(ch == '-' ? -v : v);
        if (keep) lits[count++] = lit;
        if (lit == 0) {
            if (check) clause_checked(satisfied, clauses, &unsat, &first_unsat);
            satisfied = 0;
            clauses++;
            open_clause = 0;
            g_last_zero = j - i == 1;
        } else {
            open_clause = 1;
            if (check) satisfied |= IS_TRUE(truth, num_vars + lit);
            g_last_zero = 0;
        }
        if (gbd) /* 16 bytes at once where the piece has them (room: see BodyScanner) */
            gbd_put(g_out, &g_k, &g_any, buf + i, j - i, n - i >= 16);
        line_start = buf[j] == '\n'; /* and the blank after it, at once */
        line += line_start;
        i = j + 1;
    }
    b->count = count, b->line = line, b->g_k = g_k;
    b->clauses = clauses, b->unsat = unsat, b->first_unsat = first_unsat;
    b->line_start = line_start, b->satisfied = satisfied, b->open_clause = open_clause;
    b->g_any = g_any, b->g_last_zero = g_last_zero;
    return i;
}

/* body_run_as for what this machine does with its literals */
static Py_ssize_t body_run(Body *b, const unsigned char *buf, Py_ssize_t i, Py_ssize_t n) {
    switch ((b->keep ? 1 : 0) | (b->truth ? 2 : 0) | (b->g_out ? 4 : 0)) {
    case 0: return body_run_as(b, buf, i, n, 0, 0, 0); /* counted only */
    case 1: return body_run_as(b, buf, i, n, 1, 0, 0); /* kept */
    case 2: return body_run_as(b, buf, i, n, 0, 1, 0); /* a model checked */
    case 4: return body_run_as(b, buf, i, n, 0, 0, 1); /* GBD's tokens */
    case 5: return body_run_as(b, buf, i, n, 1, 0, 1); /* a file's read: kept, GBD's tokens */
    default: return body_run_as(b, buf, i, n, b->keep, b->truth != NULL, b->g_out != NULL);
    }
}

/* Read buf[0:n] (the next piece of the body). Returns -1 on a memory error, else 0; an error
 * of the input stops the machine (b->err), the trailer ends it (b->ended). */
static int body_feed(Body *b, const unsigned char *buf, Py_ssize_t n) {
    Py_ssize_t i = 0, tok_start = b->in_tok ? 0 : -1;
    if (b->collecting) { /* the rest of a bad token */
        while (i < n && !is_blank(buf[i])) i++;
        body_text(b, buf, 0, i);
        if (i < n) b->collecting = 0;
        b->pos += n;
        return 0;
    }
    if (b->err || b->ended) {
        b->pos += n;
        return 0;
    }
    if (b->keep && body_reserve(b, BODY_ROOM(n)) < 0) return -1;
    while (i < n) {
        unsigned char ch = buf[i];
        if (b->in_comment) {
            const unsigned char *nl = memchr(buf + i, '\n', (size_t)(n - i));
            if (b->g_out) { /* a CR in it, other than just before its LF */
                const unsigned char *end = nl ? nl : buf + n;
                const unsigned char *cr = memchr(buf + i, '\r', (size_t)(end - (buf + i)));
                if (cr && !(nl && cr == nl - 1)) { /* (cr: the first CR) */
                    b->g_unsure = 1;
                    b->g_out = NULL; /* GBD's hash is left to its own pass */
                }
            }
            if (!nl) {
                i = n;
                break;
            }
            i = nl - buf;
            b->in_comment = 0;
            continue;
        }
        if (b->in_tok) {
            if (ch >= '0' && ch <= '9') {
                if (b->tok_value <= 4294967296LL) b->tok_value = b->tok_value * 10 + (ch - '0');
                b->ndigits++;
                if (b->g_out) b->g_out[b->g_k++] = ch;
                i++;
                continue;
            }
            if (is_blank(ch)) {
                if (body_token_end(b) < 0) return -1;
                if (b->err) break;
                tok_start = -1;
            } else {
                body_error(b, ERR_GARBAGE);
                break;
            }
        }
        if (ch == '\n') {
            b->line++;
            b->line_start = 1;
            i++;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            i++;
            continue;
        }
        if (b->line_start) {
            if (ch == 'c') {
                b->in_comment = 1;
                i++;
                continue;
            }
            if (ch == '%') {
                b->ended = 1;
                b->end_pos = b->pos + i;
                b->end_line = b->line;
                break;
            }
            if (ch == 'p') {
                b->tok_pos = b->pos + i;
                b->tok_line = b->line;
                body_error(b, ERR_HEADER);
                break;
            }
        }
        Py_ssize_t run_end = body_run(b, buf, i, n); /* the common case, at once */
        if (run_end > i) {
            i = run_end;
            continue;
        }
        b->line_start = 0; /* a token that body_run leaves: byte by byte */
        b->in_tok = 1;
        b->tok_pos = b->pos + i;
        b->tok_line = b->line;
        b->text_len = 0;
        tok_start = i;
        b->tok_value = 0;
        b->ndigits = 0;
        b->neg = ch == '-';
        if (b->g_out) gbd_put(b->g_out, &b->g_k, &b->g_any, buf + i, 1, 0);
        if (b->neg) {
            i++;
        } else if (ch >= '0' && ch <= '9') {
            b->tok_value = ch - '0';
            b->ndigits = 1;
            i++;
        } else {
            body_error(b, ERR_GARBAGE);
            break;
        }
    }
    if (b->err == ERR_GARBAGE || b->err == ERR_RANGE) { /* the bad token, for its message */
        Py_ssize_t from = tok_start >= 0 ? tok_start : 0, to = from;
        while (to < n && !is_blank(buf[to])) to++;
        body_text(b, buf, from, to);
        b->collecting = to == n;
        b->in_tok = 0;
    } else if (b->in_tok) { /* a token that goes on in the next piece */
        body_text(b, buf, tok_start >= 0 ? tok_start : 0, n);
    }
    b->pos += n;
    return 0;
}

/* The content ended (or the trailer ended the formula): a last token and a last clause
 * without its 0 end here. */
static int body_finish(Body *b) {
    b->collecting = 0;
    if (b->err) return 0;
    if (b->in_tok && body_token_end(b) < 0) return -1; /* (never open at the trailer) */
    if (!b->err && b->open_clause) {
        if (body_emit(b, 0) < 0) return -1;
        b->closed_last = 1;
    }
    return 0;
}

/* the kept literals as exactly sized bytes (the Body keeps none after) */
static PyObject *body_take(Body *b) {
    PyObject *out = b->out;
    if (out == NULL) return PyBytes_FromStringAndSize(NULL, 0);
    b->out = NULL;
    b->lits = NULL;
    if (_PyBytes_Resize(&out, b->count * 4) < 0) {
        b->count = b->cap = 0;
        return NULL;
    }
    b->count = b->cap = 0;
    return out;
}

/* parse_dimacs_body(data, offset, num_vars) -> (lits, clauses, error, error_pos, end_pos):
 * the literals of data[offset:] as bytes of native int32, each clause 0-terminated. */
static PyObject *parse_dimacs_body(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer view;
    Py_ssize_t offset;
    long long num_vars;
    if (!PyArg_ParseTuple(args, "y*nL", &view, &offset, &num_vars)) return NULL;
    Py_ssize_t n = view.len;
    if (offset < 0 || offset > n) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "offset outside the data");
        return NULL;
    }
    Body b;
    body_init(&b, num_vars, offset, 1);
    b.keep = 1;
    b.cap = BODY_ROOM(n - offset); /* a literal takes at least two bytes: never grows */
    b.out = PyBytes_FromStringAndSize(NULL, b.cap * 4);
    if (!b.out) {
        PyBuffer_Release(&view);
        return NULL;
    }
    b.lits = (int32_t *)PyBytes_AS_STRING(b.out);
    int failed;
    Py_BEGIN_ALLOW_THREADS
    failed = body_feed(&b, (const unsigned char *)view.buf + offset, n - offset) < 0
             || body_finish(&b) < 0;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (failed) {
        Py_XDECREF(b.out);
        return NULL;
    }
    PyObject *lits = body_take(&b);
    if (!lits) return NULL;
    return Py_BuildValue("(NLinn)", lits, b.clauses, b.err, b.err ? b.err_pos : 0,
                         b.ended ? b.end_pos : n);
}

/* unsatisfied(lits, value, num_vars) -> (count, first index): the clauses of a flat
   0-terminated int32 literal buffer that a model leaves unsatisfied. value is a bytes object of
   2 * num_vars + 1 flags: value[num_vars + lit] != 0 when the literal lit is true. */
static PyObject *unsatisfied(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer lits_view, value_view;
    Py_ssize_t num_vars;
    if (!PyArg_ParseTuple(args, "y*y*n", &lits_view, &value_view, &num_vars)) return NULL;
    const int32_t *lits = (const int32_t *)lits_view.buf;
    Py_ssize_t n = lits_view.len / 4;
    long long count = 0, first = -1, index = 0;
    int satisfied = 0, bad = 0;
    if (value_view.len < 2 * num_vars + 1) bad = 1;
    uint8_t *truth = bad ? NULL : pack_truth(value_view.buf, 2 * num_vars + 1);
    if (!bad && !truth) {
        PyBuffer_Release(&lits_view);
        PyBuffer_Release(&value_view);
        return NULL;
    }
    /* without a branch on a literal's value or a clause's outcome (a model's values are as
       good as random to the branch predictor, and a wrong guess costs more than a lookup) */
    for (Py_ssize_t i = 0; i < n && !bad; i++) {
        int32_t lit = lits[i];
        if (lit == 0) {
            clause_checked(satisfied, index, &count, &first);
            satisfied = 0;
            index++;
        } else if (lit > num_vars || -lit > num_vars) {
            bad = 1;
        } else {
            satisfied |= IS_TRUE(truth, num_vars + lit);
        }
    }
    PyMem_Free(truth);
    PyBuffer_Release(&lits_view);
    PyBuffer_Release(&value_view);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "a literal or the value table is out of range");
        return NULL;
    }
    return Py_BuildValue("(LL)", count, first);
}

/* ---- models: a list of int literals or an int32 buffer -------------------------------------- */

/* The literals of a model: a list of ints, or a buffer of native int32 (array('i'), bytes of
 * int32, a numpy int32 array). */
typedef struct {
    PyObject *list;
    Py_buffer view;
    const int32_t *lits;
    Py_ssize_t n;
} Lits;

static int lits_open(Lits *m, PyObject *obj) {
    memset(m, 0, sizeof(*m));
    if (PyList_Check(obj)) {
        m->list = obj;
        m->n = PyList_GET_SIZE(obj);
        return 0;
    }
    if (PyObject_GetBuffer(obj, &m->view, PyBUF_FORMAT) < 0) return -1;
    if (m->view.itemsize != 4 && !(m->view.itemsize == 1 && m->view.len % 4 == 0)) {
        PyBuffer_Release(&m->view);
        PyErr_SetString(PyExc_TypeError, "a model is a list of ints or an int32 buffer");
        return -1;
    }
    m->lits = (const int32_t *)m->view.buf;
    m->n = m->view.len / 4;
    return 0;
}

static void lits_close(Lits *m) {
    if (!m->list) PyBuffer_Release(&m->view);
}

/* literal i into *lit (0 and -1: fine; -1 with an exception set: an error) */
static int lits_get(Lits *m, Py_ssize_t i, long long *lit) {
    if (!m->list) {
        *lit = m->lits[i];
        return 0;
    }
    PyObject *item = PyList_GET_ITEM(m->list, i);
    if (!PyLong_Check(item)) {
        PyErr_SetString(PyExc_TypeError, "a model literal is not an int");
        return -1;
    }
    *lit = PyLong_AsLongLong(item);
    if (*lit == -1 && PyErr_Occurred()) return -1;
    return 0;
}

/* model_values(model, num_vars) -> (value, conflict): the value table of a model (bytes of
 * 2 * num_vars + 1 flags, value[num_vars + lit] = 1 when lit is in it; literals outside
 * +-num_vars and 0 are left out) and the first variable it sets both ways (0: none). */
static PyObject *model_values(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *model;
    Py_ssize_t num_vars;
    if (!PyArg_ParseTuple(args, "On", &model, &num_vars)) return NULL;
    if (num_vars < 0) {
        PyErr_SetString(PyExc_ValueError, "num_vars must not be negative");
        return NULL;
    }
    Lits m;
    if (lits_open(&m, model) < 0) return NULL;
    PyObject *table = PyBytes_FromStringAndSize(NULL, 2 * num_vars + 1);
    if (!table) {
        lits_close(&m);
        return NULL;
    }
    unsigned char *value = (unsigned char *)PyBytes_AS_STRING(table);
    memset(value, 0, (size_t)(2 * num_vars + 1));
    long long conflict = 0;
    for (Py_ssize_t i = 0; i < m.n; i++) {
        long long lit;
        if (m.list) { /* a literal beyond the long long range is outside any formula */
            PyObject *item = PyList_GET_ITEM(m.list, i);
            int overflow = 0;
            lit = PyLong_Check(item) ? PyLong_AsLongLongAndOverflow(item, &overflow) : 0;
            if (!PyLong_Check(item) || (lit == -1 && PyErr_Occurred())) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_TypeError, "a model literal is not an int");
                lits_close(&m);
                Py_DECREF(table);
                return NULL;
            }
            if (overflow) continue;
        } else {
            lit = m.lits[i];
        }
        if (lit == 0 || lit > num_vars || -lit > num_vars) continue;
        value[num_vars + lit] = 1;
        if (!conflict && value[num_vars - lit]) conflict = lit < 0 ? -lit : lit;
    }
    lits_close(&m);
    return Py_BuildValue("(NL)", table, conflict);
}

/* literals_text(model) -> str: the literals separated by spaces, then " 0" (a CNF instance's
 * solution in SatSols: " ".join(map(str, [*model, 0]))). */
static PyObject *literals_text(PyObject *Py_UNUSED(module), PyObject *arg) {
    Lits m;
    if (lits_open(&m, arg) < 0) return NULL;
    char *buf = PyMem_Malloc((size_t)(m.n + 1) * 22 + 1);
    if (!buf) {
        lits_close(&m);
        return PyErr_NoMemory();
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < m.n; i++) {
        long long lit;
        if (lits_get(&m, i, &lit) < 0) {
            lits_close(&m);
            PyMem_Free(buf);
            return NULL;
        }
        at += (Py_ssize_t)decimal_text(buf + at, lit);
        buf[at++] = ' ';
    }
    buf[at++] = '0';
    lits_close(&m);
    PyObject *text = PyUnicode_DecodeASCII(buf, at, NULL);
    PyMem_Free(buf);
    return text;
}

/* format_clauses(lits, at_start) -> (bytes, at_start): DIMACS clause lines of a piece of a
 * 0-terminated int32 literal buffer ("1 -2 0\n"; an empty clause " 0\n", as
 * " ".join(map(str, clause)) + " 0\n" writes them); at_start says whether the piece begins a
 * clause, and the result whether the next piece does. */
static PyObject *format_clauses(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *obj;
    int at_start;
    if (!PyArg_ParseTuple(args, "Op", &obj, &at_start)) return NULL;
    Lits m;
    if (lits_open(&m, obj) < 0) return NULL;
    if (m.list) {
        lits_close(&m);
        PyErr_SetString(PyExc_TypeError, "format_clauses takes an int32 buffer");
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, m.n * 13 + 1);
    if (!out) {
        lits_close(&m);
        return NULL;
    }
    char *p = PyBytes_AS_STRING(out);
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < m.n; i++) {
        int32_t lit = m.lits[i];
        if (lit == 0) {
            memcpy(p + at, " 0\n", 3);
            at += 3;
            at_start = 1;
        } else {
            if (!at_start) p[at++] = ' ';
            at += (Py_ssize_t)decimal_text(p + at, lit);
            at_start = 0;
        }
    }
    lits_close(&m);
    if (_PyBytes_Resize(&out, at) < 0) return NULL;
    return Py_BuildValue("(Ni)", out, at_start);
}

/* The integer tokens of buf[i:n] (separated by space, tab, LF, CR, VT, FF; each [+-]?[0-9]+
 * within +-(2**31 - 1)) other than 0, appended to lits at *count; where the first other token
 * is goes to *bad_start, *bad_end (when none was met before). lits has room for (n - i) / 2 + 1
 * more: a token and its separator take two bytes. */
static void int_tokens(const unsigned char *buf, Py_ssize_t i, Py_ssize_t n, int32_t *lits,
                       Py_ssize_t *count, Py_ssize_t *bad_start, Py_ssize_t *bad_end) {
    Py_ssize_t k = *count;
    while (i < n) {
        unsigned char ch = buf[i];
        if (ch == ' ' || (ch >= '\t' && ch <= '\r')) {
            i++;
            continue;
        }
        Py_ssize_t start = i;
        int neg = 0, ok = 1, digits = 0;
        long long value = 0;
        if (ch == '-' || ch == '+') {
            neg = ch == '-';
            i++;
        }
        while (i < n && buf[i] != ' ' && !(buf[i] >= '\t' && buf[i] <= '\r')) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                if (value <= 2147483647LL) value = value * 10 + (buf[i] - '0');
                digits++;
            } else {
                ok = 0;
            }
            i++;
        }
        if (!ok || !digits || value > 2147483647LL) {
            if (*bad_start < 0) {
                *bad_start = start;
                *bad_end = i;
            }
            continue;
        }
        if (value) lits[k++] = (int32_t)(neg ? -value : value);
    }
    *count = k;
}

/* parse_ints(data) -> (lits, bad_start, bad_end): the integer tokens of data other than 0 (see
 * int_tokens), as int32 bytes, and where the first other token is (-1, -1: none). The text of
 * a solver's v line. */
static PyObject *parse_ints(PyObject *Py_UNUSED(module), PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    Py_ssize_t count = 0, bad_start = -1, bad_end = -1;
    PyObject *out = PyBytes_FromStringAndSize(NULL, (view.len / 2 + 1) * 4);
    if (!out) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int_tokens(view.buf, 0, view.len, (int32_t *)PyBytes_AS_STRING(out), &count, &bad_start,
               &bad_end);
    PyBuffer_Release(&view);
    if (_PyBytes_Resize(&out, count * 4) < 0) return NULL;
    return Py_BuildValue("(Nnn)", out, bad_start, bad_end);
}

/* v_run(data, start) -> (lits, bad_start, bad_end, end): the run of whole v lines of a solver's
 * output at data[start:] (a line start): lines that are "v" alone or "v", a space and the
 * rest, each ended by its LF; their integer tokens as parse_ints reads them, and where the
 * run ends (start: no v line there; a last line without its LF is left to the caller). A
 * model of millions of variables has 10^5 v lines: one pass over them, no copy. */
static PyObject *v_run(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer view;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "y*n", &view, &start)) return NULL;
    const unsigned char *buf = view.buf;
    Py_ssize_t n = view.len, i = start < 0 ? 0 : (start > n ? n : start);
    Py_ssize_t count = 0, bad_start = -1, bad_end = -1;
    PyObject *out = PyBytes_FromStringAndSize(NULL, ((n - i) / 2 + 1) * 4);
    if (!out) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int32_t *lits = (int32_t *)PyBytes_AS_STRING(out);
    while (i + 1 < n && buf[i] == 'v' && (buf[i + 1] == ' ' || buf[i + 1] == '\n')) {
        const unsigned char *nl = memchr(buf + i + 1, '\n', (size_t)(n - i - 1));
        if (!nl) break;
        int_tokens(buf, i + 1, nl - buf, lits, &count, &bad_start, &bad_end);
        i = nl - buf + 1;
    }
    PyBuffer_Release(&view);
    if (_PyBytes_Resize(&out, count * 4) < 0) return NULL;
    return Py_BuildValue("(Nnnn)", out, bad_start, bad_end, i);
}

/* v_lines(model, width) -> str: the SAT-competition ``v`` lines of a model (a list of int
   literals or an int32 buffer), ``width`` literals per line, the last line ending in the
   terminating 0 (the text satdoku.cnf.dimacs.v_lines writes; a list item that is not
   an int raises TypeError, one outside the long long range OverflowError). */
static PyObject *v_lines(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *model;
    Py_ssize_t width;
    if (!PyArg_ParseTuple(args, "On", &model, &width)) return NULL;
    if (width < 1) {
        PyErr_SetString(PyExc_ValueError, "width must be positive");
        return NULL;
    }
    Lits m;
    if (lits_open(&m, model) < 0) return NULL;
    Py_ssize_t n = m.n;
    /* each literal: at most 20 digits and a sign, then a separator; each line "v " */
    Py_ssize_t cap = (n + 1) * 22 + ((n + 1) / width + 1) * 3 + 1;
    char *buf = PyMem_Malloc(cap);
    if (!buf) {
        lits_close(&m);
        return PyErr_NoMemory();
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i <= n; i++) {
        long long lit = 0;
        if (i < n && lits_get(&m, i, &lit) < 0) {
            lits_close(&m);
            PyMem_Free(buf);
            return NULL;
        }
        if (i % width == 0) buf[at++] = 'v';
        buf[at++] = ' ';
        at += (Py_ssize_t)decimal_text(buf + at, lit);
        if (i % width == width - 1 || i == n) buf[at++] = '\n';
    }
    lits_close(&m);
    PyObject *text = PyUnicode_DecodeASCII(buf, at, NULL);
    PyMem_Free(buf);
    return text;
}

/* one_value_per_cell(model, dom, ncells) -> tuple | None: the board of a model whose true
   literals among the direct variables 1..ncells*dom give every cell exactly one value (cell
   (lit-1)//dom gets (lit-1)%dom+1; larger literals are auxiliary variables, skipped); None for
   any other model, which the detailed decoder explains. */
static PyObject *one_value_per_cell(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *model;
    Py_ssize_t dom, ncells;
    if (!PyArg_ParseTuple(args, "O!nn", &PyList_Type, &model, &dom, &ncells)) return NULL;
    if (dom < 1 || ncells < 0) {
        PyErr_SetString(PyExc_ValueError, "dom and ncells must be positive");
        return NULL;
    }
    long long top = (long long)ncells * (long long)dom;
    long *board = PyMem_Calloc(ncells ? ncells : 1, sizeof(long));
    if (!board) return PyErr_NoMemory();
    Py_ssize_t filled = 0, n = PyList_GET_SIZE(model);
    int clash = 0;
    for (Py_ssize_t i = 0; i < n && !clash; i++) {
        PyObject *item = PyList_GET_ITEM(model, i);
        if (!PyLong_Check(item)) {
            PyMem_Free(board);
            PyErr_SetString(PyExc_TypeError, "a model literal is not an int");
            return NULL;
        }
        int overflow = 0;
        long long lit = PyLong_AsLongLongAndOverflow(item, &overflow);
        if (overflow > 0) continue; /* a huge positive literal: an auxiliary variable */
        if (overflow < 0 || lit <= 0 || lit > top) continue;
        Py_ssize_t cell = (Py_ssize_t)((lit - 1) / dom);
        if (board[cell]) {
            clash = 1;
            break;
        }
        board[cell] = (long)((lit - 1) % dom + 1);
        filled++;
    }
    if (clash || filled != ncells) {
        PyMem_Free(board);
        Py_RETURN_NONE;
    }
    PyObject *out = PyTuple_New(ncells);
    if (!out) {
        PyMem_Free(board);
        return NULL;
    }
    for (Py_ssize_t c = 0; c < ncells; c++) {
        PyObject *v = PyLong_FromLong(board[c]);
        if (!v) {
            Py_DECREF(out);
            PyMem_Free(board);
            return NULL;
        }
        PyTuple_SET_ITEM(out, c, v);
    }
    PyMem_Free(board);
    return out;
}

/* BodyScanner(num_vars, line, keep=False, value=None): the body machine over pieces of a
 * stream. feed(data) reads the next piece, finish() ends the content, take() hands over (and
 * drops) the literals kept so far, state() says where the machine stands. */
typedef struct {
    PyObject_HEAD
    Body b;
    uint8_t *truth; /* the model's value table, packed (pack_truth): the scanner's own */
    PyObject *gbd;  /* GBD's tokens go to gbd(bytes) (an md5's update), or NULL */
} BodyScanner;

static void BodyScanner_dealloc(BodyScanner *self) {
    Py_XDECREF(self->b.out);
    Py_XDECREF(self->gbd);
    PyMem_Free(self->truth);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int BodyScanner_init(BodyScanner *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"num_vars", "line", "keep", "value", "gbd", NULL};
    long long num_vars;
    Py_ssize_t line = 1;
    int keep = 0;
    PyObject *value = Py_None, *gbd = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "L|npOO", kwlist, &num_vars, &line, &keep,
                                     &value, &gbd))
        return -1;
    if (gbd != Py_None && !PyCallable_Check(gbd)) {
        PyErr_SetString(PyExc_TypeError, "gbd must be callable");
        return -1;
    }
    Py_XSETREF(self->gbd, gbd == Py_None ? NULL : Py_NewRef(gbd));
    if (num_vars < 0 || num_vars > 2147483646LL) {
        PyErr_SetString(PyExc_ValueError, "num_vars outside 0..2**31-2");
        return -1;
    }
    Py_CLEAR(self->b.out);
    PyMem_Free(self->truth);
    self->truth = NULL;
    body_init(&self->b, num_vars, 0, line);
    self->b.keep = keep;
    if (value != Py_None) {
        Py_buffer view;
        if (PyObject_GetBuffer(value, &view, PyBUF_SIMPLE) < 0) return -1;
        if (view.len < 2 * num_vars + 1) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError, "the value table is shorter than 2 * num_vars + 1");
            return -1;
        }
        self->truth = pack_truth(view.buf, 2 * num_vars + 1);
        PyBuffer_Release(&view);
        if (!self->truth) return -1;
        self->b.truth = self->truth;
    }
    return 0;
}

/* hand GBD's tokens of this piece (written to tokens, resized here) to gbd(); steals tokens.
   Once the machine is unsure of them (g_unsure), their hash is GBD's own pass's: none go. */
static PyObject *gbd_hand_on(BodyScanner *self, PyObject *tokens) {
    Py_ssize_t k = self->b.g_k;
    self->b.g_out = NULL;
    self->b.g_k = 0;
    if (k == 0 || self->b.g_unsure) {
        Py_DECREF(tokens);
        Py_RETURN_NONE;
    }
    if (_PyBytes_Resize(&tokens, k) < 0) return NULL;
    PyObject *r = PyObject_CallOneArg(self->gbd, tokens);
    Py_DECREF(tokens);
    return r;
}

static PyObject *BodyScanner_feed(BodyScanner *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *tokens = NULL;
    if (self->gbd && !self->b.g_unsure) { /* room for the piece's bytes and a separator */
        tokens = PyBytes_FromStringAndSize(NULL, view.len + 1 + 16); /* +16: body_run's */
        if (!tokens) {
            PyBuffer_Release(&view);
            return NULL;
        }
        self->b.g_out = (unsigned char *)PyBytes_AS_STRING(tokens);
        self->b.g_k = 0;
    }
    int failed = body_feed(&self->b, (const unsigned char *)view.buf, view.len) < 0;
    PyBuffer_Release(&view);
    if (failed) {
        self->b.g_out = NULL;
        Py_XDECREF(tokens);
        return NULL;
    }
    if (tokens) return gbd_hand_on(self, tokens);
    Py_RETURN_NONE;
}

static PyObject *BodyScanner_finish(BodyScanner *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *tokens = NULL;
    if (self->gbd && !self->b.g_unsure) { /* a last token; GBD's " 0" unless it was "0" */
        tokens = PyBytes_FromStringAndSize(NULL, 4);
        if (!tokens) return NULL;
        self->b.g_out = (unsigned char *)PyBytes_AS_STRING(tokens);
        self->b.g_k = 0;
    }
    if (body_finish(&self->b) < 0) {
        self->b.g_out = NULL;
        Py_XDECREF(tokens);
        return NULL;
    }
    if (!tokens) Py_RETURN_NONE;
    if (self->b.g_any && !self->b.g_last_zero) {
        memcpy(self->b.g_out + self->b.g_k, " 0", 2);
        self->b.g_k += 2;
        self->b.g_last_zero = 1;
    }
    return gbd_hand_on(self, tokens);
}

static PyObject *BodyScanner_take(BodyScanner *self, PyObject *Py_UNUSED(ignored)) {
    return body_take(&self->b);
}

/* state() -> (clauses, error, error_line, error_token, ended, end_line, line, closed_last,
 * unsatisfied, first_unsatisfied, gbd_unsure) */
static PyObject *BodyScanner_state(BodyScanner *self, PyObject *Py_UNUSED(ignored)) {
    Body *b = &self->b;
    return Py_BuildValue("(Liny#inniLLi)", b->clauses, b->err, b->err ? b->err_line : 0,
                         (const char *)b->text, (Py_ssize_t)(b->err ? b->text_len : 0),
                         b->ended, b->ended ? b->end_line : 0, b->line, b->closed_last,
                         b->unsat, b->first_unsat, b->g_unsure);
}

static PyMethodDef BodyScanner_methods[] = {
    {"feed", (PyCFunction)BodyScanner_feed, METH_O, "read the next piece of the body"},
    {"finish", (PyCFunction)BodyScanner_finish, METH_NOARGS, "the content ended"},
    {"take", (PyCFunction)BodyScanner_take, METH_NOARGS,
     "the literals kept since the last take, as int32 bytes"},
    {"state", (PyCFunction)BodyScanner_state, METH_NOARGS,
     "(clauses, error, error_line, error_token, ended, end_line, line, closed_last, "
     "unsatisfied, first_unsatisfied, gbd_unsure)"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject BodyScannerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "satdoku.cnf._dimacs.BodyScanner",
    .tp_basicsize = sizeof(BodyScanner),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BodyScanner(num_vars, line=1, keep=False, value=None, gbd=None): the DIMACS "
              "clause body read a piece at a time (keep: the literals; value: a model's value "
              "table whose unsatisfied clauses are counted; gbd: called with GBD's hashed "
              "tokens of each piece)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)BodyScanner_init,
    .tp_dealloc = (destructor)BodyScanner_dealloc,
    .tp_methods = BodyScanner_methods,
};

/* ---- GBD's hash as a stream ---------------------------------------------------------------
 * GbdTokens(update): the clause tokens of DIMACS content as GBD hashes them
 * (satdoku/identity.py: cnf_hash_bytes, its readable form), handed to update() (an md5's) a
 * piece at a time: CR is a line end; a line whose first non-blank character (space, tab, VT,
 * FF) is '%' ends the content; from any character that is neither a digit, '-' nor blank to
 * the end of its line is skipped; the tokens are written separated by one space; finish()
 * adds " 0" when the last token is not exactly "0". */
/* GBD's byte classes: a token's character (a digit or '-'), a blank (space, tab, VT, FF), a
 * line end (LF, CR), '%', anything else (filled by gbd_classes() at import) */
enum { GBD_OTHER = 0, GBD_TOK, GBD_BLANK, GBD_NL, GBD_PCT };
static unsigned char gbd_class[256];

static void gbd_classes(void) {
    for (int c = '0'; c <= '9'; c++) gbd_class[c] = GBD_TOK;
    gbd_class['-'] = GBD_TOK;
    gbd_class[' '] = gbd_class['\t'] = gbd_class['\v'] = gbd_class['\f'] = GBD_BLANK;
    gbd_class['\n'] = gbd_class['\r'] = GBD_NL;
    gbd_class['%'] = GBD_PCT;
}

typedef struct {
    PyObject_HEAD
    PyObject *update;
    int skip, line_start, done, in_tok, any, tok_len, tok_zero, last_zero;
    unsigned char *scratch;
    Py_ssize_t scratch_cap;
} GbdTokens;

static void GbdTokens_dealloc(GbdTokens *self) {
    Py_XDECREF(self->update);
    PyMem_Free(self->scratch);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int GbdTokens_init(GbdTokens *self, PyObject *args, PyObject *Py_UNUSED(kwds)) {
    PyObject *update;
    if (!PyArg_ParseTuple(args, "O", &update)) return -1;
    if (!PyCallable_Check(update)) {
        PyErr_SetString(PyExc_TypeError, "update must be callable");
        return -1;
    }
    Py_INCREF(update);
    Py_XSETREF(self->update, update);
    self->skip = self->done = self->in_tok = self->any = self->tok_len = 0;
    self->tok_zero = self->last_zero = 0;
    self->line_start = 1;
    return 0;
}

/* a token (if one is open) ends: was it exactly "0"? (on feed's locals, or on g's fields) */
static inline void gbd_token_end(int *in_tok, int *last_zero, int tok_len, int tok_zero) {
    if (*in_tok) {
        *in_tok = 0;
        *last_zero = tok_len == 1 && tok_zero;
    }
}

static PyObject *gbd_emit(GbdTokens *g, const unsigned char *out, Py_ssize_t k) {
    if (k == 0) Py_RETURN_NONE;
    PyObject *chunk = PyBytes_FromStringAndSize((const char *)out, k);
    if (!chunk) return NULL;
    PyObject *r = PyObject_CallOneArg(g->update, chunk);
    Py_DECREF(chunk);
    return r;
}

static PyObject *GbdTokens_feed(GbdTokens *g, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *buf = view.buf;
    Py_ssize_t n = view.len, k = 0;
    if (g->scratch_cap < n + 1) {
        unsigned char *s = PyMem_Realloc(g->scratch, (size_t)n + 1);
        if (!s) {
            PyBuffer_Release(&view);
            return PyErr_NoMemory();
        }
        g->scratch = s;
        g->scratch_cap = n + 1;
    }
    unsigned char *out = g->scratch;
    /* the state in locals: the compiler cannot keep fields of g in registers across the
       writes to out (a char pointer may alias anything) */
    int skip = g->skip, line_start = g->line_start, done = g->done, in_tok = g->in_tok;
    int any = g->any, tok_len = g->tok_len, tok_zero = g->tok_zero, last_zero = g->last_zero;
    Py_ssize_t i = 0;
    while (i < n && !done) {
        if (skip) { /* to the line's end: LF or CR */
            while (i < n && buf[i] != '\n' && buf[i] != '\r') i++;
            if (i == n) break;
            skip = 0;
            line_start = 1;
            i++;
            continue;
        }
        unsigned char cls = gbd_class[buf[i]];
        if (cls == GBD_TOK) {
            if (!in_tok) {
                if (any) out[k++] = ' ';
                in_tok = any = 1;
                tok_len = 0;
                tok_zero = buf[i] == '0';
            }
            Py_ssize_t j = i; /* the token's run of digits and '-' in this piece, copied */
            do {
                out[k++] = buf[j++];
            } while (j < n && gbd_class[buf[j]] == GBD_TOK);
            tok_len = tok_len + (j - i) > 1 ? 2 : 1; /* one character, or more: all it needs */
            i = j;
            line_start = 0;
            continue;
        }
        gbd_token_end(&in_tok, &last_zero, tok_len, tok_zero); /* anything else ends one */
        if (cls == GBD_NL) {
            line_start = 1;
        } else if (cls == GBD_PCT && line_start) {
            done = 1;
        } else if (cls != GBD_BLANK) { /* from anything else to the line's end is skipped */
            skip = 1;
            line_start = 0;
        }
        i++;
    }
    g->skip = skip, g->line_start = line_start, g->done = done, g->in_tok = in_tok;
    g->any = any, g->tok_len = tok_len, g->tok_zero = tok_zero, g->last_zero = last_zero;
    PyBuffer_Release(&view);
    return gbd_emit(g, out, k);
}

static PyObject *GbdTokens_finish(GbdTokens *g, PyObject *Py_UNUSED(ignored)) {
    gbd_token_end(&g->in_tok, &g->last_zero, g->tok_len, g->tok_zero);
    g->done = 1;
    if (g->any && !g->last_zero) {
        g->last_zero = 1;
        return gbd_emit(g, (const unsigned char *)" 0", 2);
    }
    Py_RETURN_NONE;
}

static PyMethodDef GbdTokens_methods[] = {
    {"feed", (PyCFunction)GbdTokens_feed, METH_O, "hash the next piece of the content"},
    {"finish", (PyCFunction)GbdTokens_finish, METH_NOARGS, "the content ended"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject GbdTokensType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "satdoku.cnf._dimacs.GbdTokens",
    .tp_basicsize = sizeof(GbdTokens),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "GbdTokens(update): DIMACS content a piece at a time -> GBD's hashed tokens, "
              "handed to update",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)GbdTokens_init,
    .tp_dealloc = (destructor)GbdTokens_dealloc,
    .tp_methods = GbdTokens_methods,
};

static PyMethodDef module_methods[] = {
    {"parse_dimacs_body", parse_dimacs_body, METH_VARARGS,
     "parse_dimacs_body(data, offset, num_vars) -> (int32 bytes, clauses, error, error_pos, "
     "end_pos)"},
    {"unsatisfied", unsatisfied, METH_VARARGS,
     "unsatisfied(lits, value, num_vars) -> (clauses a model leaves unsatisfied, first index)"},
    {"v_lines", v_lines, METH_VARARGS, "v_lines(model, width) -> the v lines of a model"},
    {"one_value_per_cell", one_value_per_cell, METH_VARARGS,
     "one_value_per_cell(model, dom, ncells) -> board tuple, or None"},
    {"model_values", model_values, METH_VARARGS,
     "model_values(model, num_vars) -> (value table, first variable set both ways or 0)"},
    {"literals_text", literals_text, METH_O, "literals_text(model) -> 'l1 l2 ... 0'"},
    {"format_clauses", format_clauses, METH_VARARGS,
     "format_clauses(int32 lits, at_start) -> (DIMACS clause lines, at_start)"},
    {"parse_ints", parse_ints, METH_O,
     "parse_ints(data) -> (int32 bytes of the nonzero integers, bad token start, end)"},
    {"v_run", v_run, METH_VARARGS,
     "v_run(data, start) -> (int32 bytes of the run of v lines' nonzero integers, bad token "
     "start, end, where the run ends)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dimacs", "satdoku's compiled DIMACS passes: body (whole or streamed), GBD hash, model check, v lines, one-hot decoding", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dimacs(void) {
    gbd_classes();
    if (PyType_Ready(&BodyScannerType) < 0 || PyType_Ready(&GbdTokensType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddObjectRef(m, "BodyScanner", (PyObject *)&BodyScannerType) < 0
        || PyModule_AddObjectRef(m, "GbdTokens", (PyObject *)&GbdTokensType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
