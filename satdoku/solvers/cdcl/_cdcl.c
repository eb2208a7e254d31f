/* The CPython binding of satdoku's CDCL kernel (kernel.c; setup.py compiles the two into the
 * extension module satdoku.solvers.cdcl._cdcl): the Kernel type, its methods' argument
 * parsing and checks, Python values and errors from the kernel's codes, and the module.
 * The search runs without the GIL (solve, propagate_units); a kernel that is searching refuses
 * every other call. Clause loading takes Python lists (or any buffer of int32 DIMACS literals,
 * 0-terminated clauses) directly. Parameters (params, in cdcl/params.py's order) come from
 * Python at construction: cdcl/params.py is their one source.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"

/* A Python object holding one kernel's state. */
typedef struct {
    PyObject_HEAD
    Kernel k;
} KernelObject;

static void Kernel_dealloc(KernelObject *self) {
    kernel_free(&self->k);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Kernel_init(KernelObject *self, PyObject *args, PyObject *kwds) {
    Kernel *k = &self->k;
    static char *kwlist[] = {"num_vars", "restart_mode", "negative_phase", "decay", "proof",
                             "params", NULL};
    int num_vars, restart_mode = RESTART_GLUCOSE, negative = 1, proof = 0;
    double decay = 0.95;
    PyObject *params = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "i|ipdiO", kwlist, &num_vars, &restart_mode,
                                     &negative, &decay, &proof, &params))
        return -1;
    if (proof < PROOF_NONE || proof > PROOF_LRAT) {
        PyErr_SetString(PyExc_ValueError, "unknown proof mode");
        return -1;
    }
    if (num_vars < 0 || num_vars > (1 << 29)) {
        PyErr_SetString(PyExc_ValueError, "num_vars out of range");
        return -1;
    }
    if (k->lval) {
        PyErr_SetString(PyExc_RuntimeError, "Kernel already initialised");
        return -1;
    }
    if (params == Py_None) {
        PyErr_SetString(PyExc_ValueError, "params required (cdcl/params.py DEFAULTS, overridden)");
        return -1;
    }
    PyObject *seq = PySequence_Fast(params, "params must be a sequence of ints");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != P_SIZE) { /* cdcl/params.py order */
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "params must hold %d ints", P_SIZE);
        return -1;
    }
    for (int i = 0; i < P_SIZE; i++) {
        k->P[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (k->P[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    if (k->P[P_LBDQ_LEN] < 1 || k->P[P_LBDQ_LEN] > MAX_WINDOW || k->P[P_TRAILQ_LEN] < 1 ||
        k->P[P_TRAILQ_LEN] > MAX_WINDOW || k->P[P_LUBY_UNIT] < 1) {
        PyErr_SetString(PyExc_ValueError, "bad window or restart parameter");
        return -1;
    }
    if (k->P[P_SWITCH] < 1) {
        PyErr_SetString(PyExc_ValueError, "the mode switch interval must be positive");
        return -1;
    }
    if (kernel_init(k, num_vars, restart_mode, negative, decay, proof)) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int set_deadline(Kernel *k, PyObject *seconds) {
    if (seconds == Py_None) {
        kernel_no_deadline(k);
        return 0;
    }
    double s = PyFloat_AsDouble(seconds);
    if (s == -1.0 && PyErr_Occurred()) return -1;
    kernel_set_deadline(k, s);
    return 0;
}

/* The end of loading: 0 loaded, 1 stopped at the deadline; NULL out of memory. */
static PyObject *loaded(Kernel *k, Staging *st, int stopped) {
    if (kernel_end_load(k, st, stopped)) {
        k->error = 1;
        return PyErr_NoMemory();
    }
    return PyLong_FromLong(stopped);
}

/* Methods refuse to run while another thread searches with this kernel. */
static int in_use(Kernel *k) {
    if (!k->busy) return 0;
    PyErr_SetString(PyExc_RuntimeError, "this cdcl kernel is searching in another thread");
    return 1;
}

/* load(clauses, seconds=None) -> 0 loaded, 1 deadline passed (formula incomplete) (= load of
 * cdcl/readable.py). clauses: a sequence of sequences of DIMACS ints, or a buffer of int32
 * 0-terminated clauses. After a search it adds clauses for the later calls (incremental use).
 * Before: no variable is eliminated (refused otherwise: the driver loads afresh), every literal
 * is within the kernel's variables (ValueError naming it otherwise).
 * After (0): the search is at level 0 with qhead 0, so that search propagates every level-0
 * literal again against the new clauses; every clause is loaded as load_clause says and
 * attached (watches, implication lists, in input order); a refuted formula has status UNSAT
 * and, with a proof, its empty clause logged. After (1): the clauses up to the deadline are
 * loaded, the rest not. NULL: a Python error is set (out of memory marks the kernel broken). */
static PyObject *Kernel_load(KernelObject *self, PyObject *args) {
    Kernel *k = &self->k;
    PyObject *clauses, *seconds = Py_None;
    if (in_use(k)) return NULL;
    if (!PyArg_ParseTuple(args, "O|O", &clauses, &seconds)) return NULL;
    if (k->error) return PyErr_NoMemory();
    if (k->s_eliminated) {
        PyErr_SetString(PyExc_RuntimeError, "no clauses can be added once preprocessing has "
                                            "eliminated variables");
        return NULL;
    }
    if (set_deadline(k, seconds)) return NULL;
    if (kernel_expired(k)) return PyLong_FromLong(1);
    Staging st;
    kernel_begin_load(k, &st);
    int32_t n = k->n;
    int64_t done = 0;
    if (PyObject_CheckBuffer(clauses) && !PyList_Check(clauses)) {
        Py_buffer view;
        if (PyObject_GetBuffer(clauses, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)) return NULL;
        if (view.itemsize != 4 ||
            (view.format && strcmp(view.format, "i") != 0 && strcmp(view.format, "<i") != 0 &&
             strcmp(view.format, "=i") != 0)) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_TypeError, "expected a buffer of int32 literals");
            return NULL;
        }
        const int32_t *lits = view.buf;
        int64_t count = view.len / 4, start = 0;
        for (int64_t i = 0; i < count; i++) {
            int32_t d = lits[i];
            if (d == 0) {
                if (kernel_load_clause(k, &st, lits + start, i - start)) goto nomem_buf;
                start = i + 1;
                if ((++done & (LOAD_CHUNK - 1)) == 0 && kernel_expired(k)) {
                    PyBuffer_Release(&view);
                    return loaded(k, &st, 1);
                }
            } else if (d < -n || d > n) {
                PyBuffer_Release(&view);
                free(st.pairs);
                return PyErr_Format(PyExc_ValueError, "literal %d out of range for %d variables",
                                    d, n);
            }
        }
        if (start < count && kernel_load_clause(k, &st, lits + start, count - start))
            goto nomem_buf;
        PyBuffer_Release(&view);
        if (kernel_attach_staged(k, &st)) goto nomem;
        return loaded(k, &st, kernel_expired(k));
    nomem_buf:
        PyBuffer_Release(&view);
        goto nomem;
    }
    PyObject *seq = PySequence_Fast(clauses, "clauses must be a sequence of sequences");
    if (!seq) return NULL;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    int32_t *buf = NULL;
    int64_t bufcap = 0;
    for (Py_ssize_t c = 0; c < m; c++) {
        PyObject *clause = PySequence_Fast(items[c], "each clause must be a sequence of ints");
        if (!clause) goto fail;
        Py_ssize_t size = PySequence_Fast_GET_SIZE(clause);
        PyObject **lits = PySequence_Fast_ITEMS(clause);
        if (kernel_grow((void **)&buf, &bufcap, size + 1, sizeof(int32_t))) {
            Py_DECREF(clause);
            free(buf);
            Py_DECREF(seq);
            goto nomem;
        }
        for (Py_ssize_t i = 0; i < size; i++) {
            long d = PyLong_AsLong(lits[i]);
            if (d == -1 && PyErr_Occurred()) {
                Py_DECREF(clause);
                goto fail;
            }
            if (d == 0 || d < -(long)n || d > (long)n) {
                Py_DECREF(clause);
                PyErr_Format(PyExc_ValueError, "literal %ld out of range for %d variables", d, n);
                goto fail;
            }
            buf[i] = (int32_t)d;
        }
        Py_DECREF(clause);
        if (kernel_load_clause(k, &st, buf, size)) {
            free(buf);
            Py_DECREF(seq);
            goto nomem;
        }
        if (((c + 1) & (LOAD_CHUNK - 1)) == 0 && kernel_expired(k)) {
            free(buf);
            Py_DECREF(seq);
            return loaded(k, &st, 1);
        }
    }
    free(buf);
    Py_DECREF(seq);
    if (kernel_attach_staged(k, &st)) goto nomem;
    return loaded(k, &st, kernel_expired(k));
fail:
    free(buf);
    free(st.pairs);
    Py_DECREF(seq);
    return NULL;
nomem:
    free(st.pairs);
    k->error = 1;
    return PyErr_NoMemory();
}

/* solve(assumptions, seconds=None, max_conflicts=-1) -> SAT / UNSAT / UNSAT_ASSUMED / UNKNOWN.
 * assumptions: internal literals (2*v + sign), distinct variables. */
static PyObject *Kernel_solve(KernelObject *self, PyObject *args) {
    Kernel *k = &self->k;
    PyObject *assumptions, *seconds = Py_None;
    long long max_conflicts = -1;
    if (in_use(k)) return NULL;
    if (!PyArg_ParseTuple(args, "O|OL", &assumptions, &seconds, &max_conflicts)) return NULL;
    if (k->error) return PyErr_NoMemory();
    if (k->status == UNSAT) return PyLong_FromLong(UNSAT);
    PyObject *seq = PySequence_Fast(assumptions, "assumptions must be a sequence of ints");
    if (!seq) return NULL;
    Py_ssize_t na = PySequence_Fast_GET_SIZE(seq);
    int32_t *assumps = malloc((size_t)(na > 0 ? na : 1) * sizeof(int32_t));
    if (!assumps) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < na; i++) {
        long lit = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((lit == -1 && PyErr_Occurred()) || lit < 0 || lit >= 2 * (long)k->n) {
            free(assumps);
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "assumption out of range");
            return NULL;
        }
        assumps[i] = (int32_t)lit;
    }
    Py_DECREF(seq);
    for (Py_ssize_t i = 0; i < na; i++) { /* assumed variables are never eliminated */
        if (!k->simplified) {
            k->frozen[assumps[i] >> 1] = 1;
        } else if (k->elim[assumps[i] >> 1]) {
            int32_t v = (assumps[i] >> 1) + 1;
            free(assumps);
            return PyErr_Format(PyExc_ValueError,
                                "assumption on variable %d, which preprocessing eliminated "
                                "(freeze it before the search starts)", v);
        }
    }
    if (set_deadline(k, seconds)) {
        free(assumps);
        return NULL;
    }
    int status;
    k->busy = 1;
    k->stop = 0;
    Py_BEGIN_ALLOW_THREADS
    status = kernel_solve(k, assumps, na, max_conflicts < 0 ? INT64_MAX : max_conflicts);
    Py_END_ALLOW_THREADS
    k->busy = 0;
    free(assumps);
    if (status < 0) {
        k->error = 1;
        return PyErr_NoMemory();
    }
    return PyLong_FromLong(status);
}

/* interrupt(): the search in progress (in another thread) ends at its next look at the clock
 * with UNKNOWN, as at a deadline; a signal relay calls it on Ctrl-C. Safe while busy. */
static PyObject *Kernel_interrupt(KernelObject *self, PyObject *Py_UNUSED(ignored)) {
    Kernel *k = &self->k;
    k->stop = 1;
    Py_RETURN_NONE;
}

/* model(): the model of the last SAT answer, [] before one. */
static PyObject *Kernel_model(KernelObject *self, PyObject *Py_UNUSED(ignored)) {
    Kernel *k = &self->k;
    if (in_use(k)) return NULL;
    PyObject *list = PyList_New(k->has_model ? k->n : 0);
    if (!list) return NULL;
    for (int32_t v = 0; k->has_model && v < k->n; v++) {
        PyObject *x = PyLong_FromLong(k->model[v] == 1 ? v + 1 : -(v + 1));
        if (!x) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, v, x);
    }
    return list;
}

static PyObject *Kernel_stats(KernelObject *self, PyObject *Py_UNUSED(ignored)) {
    Kernel *k = &self->k;
    return Py_BuildValue(
        "{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "decisions",
        (long long)k->decisions,
        "conflicts", (long long)k->conflicts, "propagations", (long long)k->props, "restarts",
        (long long)k->restarts, "learnt", (long long)k->learnt, "max_level",
        (long long)k->max_level, "deleted", (long long)k->deleted, "reductions",
        (long long)k->reduces, "collections", (long long)k->collects, "minimised_literals",
        (long long)k->minimised, "blocked_restarts", (long long)k->blocked, "mode_switches",
        (long long)k->switches, "eliminated_vars", (long long)k->s_eliminated,
        "subsumed_clauses", (long long)k->s_subsumed, "strengthened_clauses",
        (long long)k->s_strengthened, "resolvents", (long long)k->s_resolvents);
}

/* first_eliminated(literals): the first 0-based variable of these internal literals that
 * preprocessing eliminated, or -1. */
static PyObject *Kernel_first_eliminated(KernelObject *self, PyObject *lits) {
    Kernel *k = &self->k;
    PyObject *seq = PySequence_Fast(lits, "literals must be a sequence of ints");
    if (!seq) return NULL;
    long found = -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && found < 0; i++) {
        long lit = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((lit == -1 && PyErr_Occurred()) || lit < 0 || lit >= 2 * (long)k->n) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "literal out of range");
            return NULL;
        }
        if (k->elim[lit >> 1]) found = lit >> 1;
    }
    Py_DECREF(seq);
    return PyLong_FromLong(found);
}

/* freeze(variables): 0-based variables that preprocessing must keep (later assumptions). */
static PyObject *Kernel_freeze(KernelObject *self, PyObject *vars) {
    Kernel *k = &self->k;
    if (in_use(k)) return NULL;
    PyObject *seq = PySequence_Fast(vars, "variables must be a sequence of ints");
    if (!seq) return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if ((v == -1 && PyErr_Occurred()) || v < 0 || v >= k->n) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "variable out of range");
            return NULL;
        }
        if (k->elim[v]) {
            Py_DECREF(seq);
            return PyErr_Format(PyExc_ValueError,
                                "variable %ld was eliminated by preprocessing", v + 1);
        }
        k->frozen[v] = 1;
    }
    Py_DECREF(seq);
    Py_RETURN_NONE;
}

/* The proof buffer (tag, size, DIMACS literals ...) as bytes of int32. */
static PyObject *Kernel_proof_buffer(KernelObject *self, PyObject *Py_UNUSED(ignored)) {
    Kernel *k = &self->k;
    if (in_use(k)) return NULL;
    return PyBytes_FromStringAndSize((const char *)k->proof, (Py_ssize_t)(k->ptop * 4));
}

/* write_proof(path, binary=False): the proof log as text (DRUP, or LRAT lines), or in the
 * binary format of the same steps. */
static PyObject *Kernel_write_proof(KernelObject *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"path", "binary", NULL};
    Kernel *k = &self->k;
    PyObject *path_obj;
    int binary = 0;
    if (in_use(k)) return NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|p:write_proof", names,
                                     PyUnicode_FSConverter, &path_obj, &binary))
        return NULL;
    FILE *fh = fopen(PyBytes_AS_STRING(path_obj), binary ? "wb" : "w");
    if (!fh) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_obj);
        Py_DECREF(path_obj);
        return NULL;
    }
    int bad = kernel_write_proof(k, fh, binary);
    bad |= fclose(fh) != 0;
    if (bad) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_obj);
        Py_DECREF(path_obj);
        return NULL;
    }
    Py_DECREF(path_obj);
    Py_RETURN_NONE;
}

/* propagate_units(groups, report, probe=False) -> (outcomes, values).
 * groups: a buffer of int32 DIMACS literals, each group ended by 0; outcomes: int32 bytes, per
 * group -1 refuted (a conflict: no model extends the group) or the failed literals found;
 * values: int8 bytes, per group the values of variables 1..report (1 true, -1 false, 0 open;
 * all 0 when refuted). A conflict of the formula alone refutes it (status UNSAT). */
static PyObject *Kernel_propagate_units(KernelObject *self, PyObject *args) {
    Kernel *k = &self->k;
    PyObject *groups;
    int report, probe = 0;
    if (in_use(k)) return NULL;
    if (!PyArg_ParseTuple(args, "Oi|p", &groups, &report, &probe)) return NULL;
    if (k->error) return PyErr_NoMemory();
    if (report < 0 || report > k->n)
        return PyErr_Format(PyExc_ValueError, "report %d outside 0..%d variables", report, k->n);
    Py_buffer view;
    if (PyObject_GetBuffer(groups, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)) return NULL;
    const int32_t *lits = view.buf;
    int64_t count = view.len / 4, ngroups = 0;
    const char *why = NULL;
    if (view.itemsize != 4 || (view.format && strcmp(view.format, "i") != 0 &&
                               strcmp(view.format, "<i") != 0 && strcmp(view.format, "=i") != 0))
        why = "expected a buffer of int32 literals";
    else if (count > 0 && lits[count - 1] != 0)
        why = "each group of literals must end with 0";
    for (int64_t i = 0; !why && i < count; i++) {
        if (lits[i] == 0) ngroups++;
        else if (lits[i] < -k->n || lits[i] > k->n) why = "literal out of range";
    }
    if (why) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, why);
        return NULL;
    }
    PyObject *outcomes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(4 * ngroups));
    PyObject *values = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(ngroups * report));
    if (!outcomes || !values) {
        PyBuffer_Release(&view);
        Py_XDECREF(outcomes);
        Py_XDECREF(values);
        return PyErr_NoMemory();
    }
    int32_t *out = (int32_t *)PyBytes_AS_STRING(outcomes);
    int8_t *vals = (int8_t *)PyBytes_AS_STRING(values);
    int nomem;
    k->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    nomem = kernel_propagate_groups(k, lits, count, probe, report, out, vals) != 0;
    Py_END_ALLOW_THREADS
    k->busy = 0;
    PyBuffer_Release(&view);
    if (nomem) {
        k->error = 1;
        Py_DECREF(outcomes);
        Py_DECREF(values);
        return PyErr_NoMemory();
    }
    return Py_BuildValue("(NN)", outcomes, values);
}

static PyObject *Kernel_get_status(KernelObject *self, void *Py_UNUSED(closure)) {
    Kernel *k = &self->k;
    return PyLong_FromLong(k->status);
}

static PyObject *Kernel_get_num_vars(KernelObject *self, void *Py_UNUSED(closure)) {
    Kernel *k = &self->k;
    return PyLong_FromLong(k->n);
}

static PyObject *Kernel_get_loaded(KernelObject *self, void *Py_UNUSED(closure)) {
    Kernel *k = &self->k;
    return PyLong_FromLongLong((long long)k->loaded);
}

static PyMethodDef Kernel_methods[] = {
    {"load", (PyCFunction)Kernel_load, METH_VARARGS,
     "load(clauses, seconds=None) -> 0 loaded, 1 stopped at the deadline"},
    {"solve", (PyCFunction)Kernel_solve, METH_VARARGS,
     "solve(assumptions, seconds=None, max_conflicts=-1) -> status code"},
    {"interrupt", (PyCFunction)Kernel_interrupt, METH_NOARGS,
     "end the search in progress at its next look at the clock (UNKNOWN)"},
    {"model", (PyCFunction)Kernel_model, METH_NOARGS,
     "the model of the last SAT answer as DIMACS literals ([] before one)"},
    {"stats", (PyCFunction)Kernel_stats, METH_NOARGS, "search counters"},
    {"first_eliminated", (PyCFunction)Kernel_first_eliminated, METH_O,
     "first_eliminated(literals): the first eliminated variable among them (0-based), or -1"},
    {"freeze", (PyCFunction)Kernel_freeze, METH_O,
     "freeze(variables): 0-based variables preprocessing must not eliminate"},
    {"proof_buffer", (PyCFunction)Kernel_proof_buffer, METH_NOARGS, "the proof log as bytes"},
    {"write_proof", (PyCFunction)(void (*)(void))Kernel_write_proof, METH_VARARGS | METH_KEYWORDS,
     "write_proof(path, binary=False): the proof, text or binary"},
    {"propagate_units", (PyCFunction)Kernel_propagate_units, METH_VARARGS,
     "propagate_units(groups, report, probe=False) -> (outcomes, values): no search"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Kernel_getset[] = {
    {"status", (getter)Kernel_get_status, NULL, "UNSAT once refuted at level 0, else 0", NULL},
    {"num_vars", (getter)Kernel_get_num_vars, NULL, "number of variables", NULL},
    {"loaded", (getter)Kernel_get_loaded, NULL, "clauses loaded (their ids are 1..loaded)",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "satdoku.solvers.cdcl._cdcl.Kernel",
    .tp_basicsize = sizeof(KernelObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CDCL kernel state (see satdoku/solvers/cdcl/readable.py for the algorithm)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Kernel_init,
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_methods = Kernel_methods,
    .tp_getset = Kernel_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_cdcl", "satdoku's compiled CDCL kernel", -1, NULL, NULL, NULL, NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__cdcl(void) {
    if (PyType_Ready(&KernelType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(m, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(&KernelType);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "UNKNOWN", UNKNOWN);
    PyModule_AddIntConstant(m, "SAT", SAT);
    PyModule_AddIntConstant(m, "UNSAT", UNSAT);
    PyModule_AddIntConstant(m, "UNSAT_ASSUMED", UNSAT_ASSUMED);
    PyModule_AddIntConstant(m, "P_SIZE", P_SIZE);
    return m;
}
