/* The clause-body pass of satdoku's DIMACS reader, compiled at install time (setup.py builds it
 * as the extension module satdoku.cnf._dimacs; engine "c" of satdoku/cnf/dimacs_fast.py).
 *
 * Same results and errors as the Python reader (tests run both on the same good and bad
 * inputs). It returns the literals as plain int32 bytes, so a caller needs no numpy.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#define ERR_NONE 0
#define ERR_HEADER 1
#define ERR_GARBAGE 2
#define ERR_RANGE 3

/* parse_dimacs_body(data, offset, num_vars) -> (lits, clauses, error, error_pos, end_pos):
 * the literals of data[offset:] as bytes of native int32, each clause 0-terminated. */
static PyObject *parse_dimacs_body(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer view;
    Py_ssize_t offset;
    long long num_vars;
    if (!PyArg_ParseTuple(args, "y*nL", &view, &offset, &num_vars)) return NULL;
    const unsigned char *buf = view.buf;
    Py_ssize_t n = view.len;
    if (offset < 0 || offset > n) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "offset outside the data");
        return NULL;
    }
    PyObject *lits = PyBytes_FromStringAndSize(NULL, ((n - offset) / 2 + 2) * 4);
    if (!lits) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int32_t *out = (int32_t *)PyBytes_AS_STRING(lits);
    Py_ssize_t i = offset, count = 0, end_pos = n, err_pos = 0;
    long long clauses = 0;
    int line_start = 1, err = ERR_NONE;
    Py_BEGIN_ALLOW_THREADS
    while (i < n) {
        unsigned char ch = buf[i];
        if (ch == '\n') {
            line_start = 1;
            i++;
            continue;
        }
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            i++;
            continue;
        }
        if (line_start) {
            if (ch == 'c') {
                while (i < n && buf[i] != '\n') i++;
                continue;
            }
            if (ch == '%') {
                end_pos = i;
                break;
            }
            if (ch == 'p') {
                err = ERR_HEADER;
                err_pos = i;
                break;
            }
            line_start = 0;
        }
        Py_ssize_t start = i;
        int neg = 0;
        if (ch == '-') {
            neg = 1;
            i++;
        }
        if (i >= n || buf[i] < '0' || buf[i] > '9') {
            err = ERR_GARBAGE;
            err_pos = start;
            break;
        }
        long long value = 0;
        while (i < n && buf[i] >= '0' && buf[i] <= '9') {
            if (value <= 4294967296LL) value = value * 10 + (buf[i] - '0');
            i++;
        }
        if (i < n) {
            ch = buf[i];
            if (!(ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r')) {
                err = ERR_GARBAGE;
                err_pos = start;
                break;
            }
        }
        if (value > num_vars) {
            err = ERR_RANGE;
            err_pos = start;
            break;
        }
        if (value == 0) clauses++;
        out[count++] = (int32_t)(neg ? -value : value);
    }
    if (err == ERR_NONE && count > 0 && out[count - 1] != 0) {
        out[count++] = 0;
        clauses++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (_PyBytes_Resize(&lits, count * 4) < 0) return NULL;
    return Py_BuildValue("(NLinn)", lits, clauses, err, err_pos, end_pos);
}

/* unsatisfied(lits, value, num_vars) -> (count, first index): the clauses of a flat
   0-terminated int32 literal buffer that a model leaves unsatisfied. value is a bytes object of
   2 * num_vars + 1 flags: value[num_vars + lit] != 0 when the literal lit is true. */
static PyObject *unsatisfied(PyObject *Py_UNUSED(module), PyObject *args) {
    Py_buffer lits_view, value_view;
    Py_ssize_t num_vars;
    if (!PyArg_ParseTuple(args, "y*y*n", &lits_view, &value_view, &num_vars)) return NULL;
    const int32_t *lits = (const int32_t *)lits_view.buf;
    const unsigned char *value = (const unsigned char *)value_view.buf;
    Py_ssize_t n = lits_view.len / 4, count = 0, first = -1, index = 0;
    int satisfied = 0, bad = 0;
    if (value_view.len < 2 * num_vars + 1) bad = 1;
    for (Py_ssize_t i = 0; i < n && !bad; i++) {
        int32_t lit = lits[i];
        if (lit == 0) {
            if (!satisfied) {
                if (first < 0) first = index;
                count++;
            }
            satisfied = 0;
            index++;
        } else if (lit > num_vars || -lit > num_vars) {
            bad = 1;
        } else if (!satisfied && value[num_vars + lit]) {
            satisfied = 1;
        }
    }
    PyBuffer_Release(&lits_view);
    PyBuffer_Release(&value_view);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "a literal or the value table is out of range");
        return NULL;
    }
    return Py_BuildValue("(nn)", count, first);
}

/* v_lines(model, width) -> str: the SAT-competition ``v`` lines of a list of int literals,
   ``width`` literals per line, the last line ending in the terminating 0 (the text
   satdoku.stagefiles.outputs.v_lines writes; a literal that is not an int raises TypeError,
   one outside the long long range OverflowError). */
static PyObject *v_lines(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *model;
    Py_ssize_t width;
    if (!PyArg_ParseTuple(args, "O!n", &PyList_Type, &model, &width)) return NULL;
    if (width < 1) {
        PyErr_SetString(PyExc_ValueError, "width must be positive");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(model);
    /* each literal: at most 20 digits and a sign, then a separator; each line "v " */
    Py_ssize_t cap = (n + 1) * 22 + ((n + 1) / width + 1) * 3 + 1;
    char *buf = PyMem_Malloc(cap);
    if (!buf) return PyErr_NoMemory();
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i <= n; i++) {
        long long lit = 0;
        if (i < n) {
            PyObject *item = PyList_GET_ITEM(model, i);
            if (!PyLong_Check(item)) {
                PyMem_Free(buf);
                PyErr_SetString(PyExc_TypeError, "a model literal is not an int");
                return NULL;
            }
            lit = PyLong_AsLongLong(item);
            if (lit == -1 && PyErr_Occurred()) {
                PyMem_Free(buf);
                return NULL;
            }
        }
        if (i % width == 0) {
            buf[at++] = 'v';
        }
        buf[at++] = ' ';
        char digits[24];
        int k = 0;
        unsigned long long u = lit < 0 ? 0ULL - (unsigned long long)lit : (unsigned long long)lit;
        do {
            digits[k++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (lit < 0) buf[at++] = '-';
        while (k) buf[at++] = digits[--k];
        if (i % width == width - 1 || i == n) buf[at++] = '\n';
    }
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

static PyMethodDef module_methods[] = {
    {"parse_dimacs_body", parse_dimacs_body, METH_VARARGS,
     "parse_dimacs_body(data, offset, num_vars) -> (int32 bytes, clauses, error, error_pos, "
     "end_pos)"},
    {"unsatisfied", unsatisfied, METH_VARARGS,
     "unsatisfied(lits, value, num_vars) -> (clauses a model leaves unsatisfied, first index)"},
    {"v_lines", v_lines, METH_VARARGS, "v_lines(model, width) -> the v lines of a model"},
    {"one_value_per_cell", one_value_per_cell, METH_VARARGS,
     "one_value_per_cell(model, dom, ncells) -> board tuple, or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dimacs", "satdoku's compiled DIMACS passes: body, model check, v lines, one-hot decoding", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dimacs(void) { return PyModule_Create(&module); }
