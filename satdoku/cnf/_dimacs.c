/* The clause-body pass of satdoku's DIMACS reader, compiled at install time (setup.py builds it
 * as the extension module satdoku.cnf._dimacs; engine "c" of satdoku/cnf/dimacs_fast.py).
 *
 * A translation of parse_body in satdoku/cnf/dimacs_kernel.py (the numba pass): same results,
 * same error codes and positions (tests run every engine on the same good and bad inputs). It
 * returns the literals as plain int32 bytes, so a caller needs neither numpy nor numba.
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

static PyMethodDef module_methods[] = {
    {"parse_dimacs_body", parse_dimacs_body, METH_VARARGS,
     "parse_dimacs_body(data, offset, num_vars) -> (int32 bytes, clauses, error, error_pos, "
     "end_pos)"},
    {"unsatisfied", unsatisfied, METH_VARARGS,
     "unsatisfied(lits, value, num_vars) -> (clauses a model leaves unsatisfied, first index)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dimacs", "satdoku's compiled DIMACS body pass", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__dimacs(void) { return PyModule_Create(&module); }
