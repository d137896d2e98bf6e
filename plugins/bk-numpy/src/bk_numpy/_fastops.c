/* bk-numpy's compiled fast calls (optional: see `_math.py`).
 *
 * A `UfuncCall(ufunc, ndarray, arity, derive)` is a fast call (`bk.rules.kernel(fast=...)`): the core calls it
 * as `(backend, *args)` while no precision is set, before the operation's plan, and it returns either
 * `ufunc(*args)` or `NotImplemented` (the plan serves the call). It serves, for exact `numpy.ndarray`s:
 * - `arity` 1: `ufunc(x)` where x's dtype is in its table of arrays;
 * - `arity` 2: `ufunc(a, b)` for two arrays of the same dtype object in that table; for an array and a Python
 *   float on either side where the array's dtype is in its table of floats; for an array and a Python int on
 *   either side where the array's dtype is in its table of ints and the int lies in that dtype's bounds
 *   (NumPy 2 treats a Python number as weak, NEP 50, as bk's rules do);
 * - `arity` 3: `numpy.where(condition, x, y)` for a bool array condition and arrays x and y of one dtype in the
 *   table of arrays, or one of them an array whose dtype is in the table of floats and the other a Python float.
 * The tables are not written by hand: they start empty, and the first time a call misses with an array of a
 * dtype not asked about yet, `derive(backend, array)` gives `(arrays, floats, ints)` for that dtype
 * (`bk.rules.framework_call(..., caller=UfuncCall)`, whose core derives them from the operation's plans: serves
 * one array or two of it; a Python float beside it; the `(low, high)` of the Python ints beside it, or None),
 * and the call is tried again.
 * A ValueError or OverflowError of an array and a number is left to the plan (which names the bk error); any
 * other failure is raised for the core to explain, as the kernel's would be.
 * In Python the same test costs as much as a ufunc on ten elements (two attribute reads and a frame), which is
 * why it lives here.
 *
 * The dtype is read from the array struct: its first fields (`PyArrayObject_fields` of NumPy's
 * `ndarraytypes.h`) have been NumPy's stable ABI since 1.7. `layout_matches(array)` compares it with
 * `array.dtype`, and `_math.py` uses these calls only when that holds, so no NumPy headers are needed to build
 * this file.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    PyObject *descr;
} ArrayHead;

#define DESCR(array) (((ArrayHead *)(array))->descr)

typedef struct {
    PyObject_HEAD
    PyObject *ufunc;
    PyObject *ndarray;
    PyObject *derive;         /* learns a dtype's entries on its first miss */
    PyObject *condition;      /* `numpy.dtype(bool)`, the dtype of `where`'s condition (arity 3), or NULL */
    PyObject *dtypes;         /* tuple: the dtype objects of the arrays served */
    PyObject *float_scalars;  /* tuple: the dtypes of an array that a Python float joins weakly */
    PyObject *int_scalars;    /* tuple: the dtypes of an array that a Python int in `low[i]..high[i]` joins */
    long long *low, *high;    /* the bounds of the ints, by position in `int_scalars` */
    PyObject *seen;           /* dict: the dtypes `derive` was asked about */
    int arity;
    vectorcallfunc ufunc_call;  /* the ufunc's vectorcall function, called directly, or NULL */
    vectorcallfunc vectorcall;
} UfuncCall;

static inline PyObject *
call_ufunc(UfuncCall *self, PyObject *const *args, Py_ssize_t nargs)
{
    return self->ufunc_call != NULL ? self->ufunc_call(self->ufunc, args, nargs, NULL) : PyObject_Vectorcall(self->ufunc, args, nargs, NULL);
}

/* The position of `item` (by identity) in `tuple`, or -1. */
static inline Py_ssize_t
position(PyObject *tuple, PyObject *item)
{
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyTuple_GET_ITEM(tuple, i) == item) {
            return i;
        }
    }
    return -1;
}

/* `ufunc(*args)` of an array and a weak Python number; NotImplemented where the tables do not serve it. */
static PyObject *
scalar_call(UfuncCall *self, PyObject *const *args, Py_ssize_t nargs, PyObject *array, PyObject *number)
{
    if (PyFloat_CheckExact(number)) {
        if (position(self->float_scalars, DESCR(array)) < 0) {
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    else if (PyLong_CheckExact(number) && self->arity == 2) {
        Py_ssize_t i = position(self->int_scalars, DESCR(array));
        if (i < 0) {
            Py_RETURN_NOTIMPLEMENTED;
        }
        int overflow;
        long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
        if (overflow || (value == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
        if (value < self->low[i] || value > self->high[i]) {
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    else {
        Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *result = call_ufunc(self, args, nargs);
    if (result == NULL && (PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_OverflowError))) {
        PyErr_Clear();  /* the plan names the bk error */
        Py_RETURN_NOTIMPLEMENTED;
    }
    return result;
}

/* The call as the tables say (`args` without the backend). */
static PyObject *
try_call(UfuncCall *self, PyObject *const *args, Py_ssize_t nargs, PyObject **array)
{
    PyObject *ndarray = self->ndarray;
    *array = NULL;
    if (self->arity == 1) {
        if ((PyObject *)Py_TYPE(args[0]) != ndarray) {
            Py_RETURN_NOTIMPLEMENTED;
        }
        *array = args[0];
        return position(self->dtypes, DESCR(args[0])) >= 0 ? call_ufunc(self, args, 1) : Py_NewRef(Py_NotImplemented);
    }
    PyObject *a = args[nargs - 2], *b = args[nargs - 1];  /* `where`: x and y after the condition */
    if (self->arity == 3 && ((PyObject *)Py_TYPE(args[0]) != ndarray || DESCR(args[0]) != self->condition)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    int a_array = (PyObject *)Py_TYPE(a) == ndarray, b_array = (PyObject *)Py_TYPE(b) == ndarray;
    if (a_array && b_array) {
        *array = a;
        if (DESCR(a) == DESCR(b) && position(self->dtypes, DESCR(a)) >= 0) {
            return call_ufunc(self, args, nargs);
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (a_array || b_array) {
        *array = a_array ? a : b;
        return scalar_call(self, args, nargs, *array, a_array ? b : a);
    }
    Py_RETURN_NOTIMPLEMENTED;
}

/* `tuple` with `item` appended (a new reference), or NULL. */
static PyObject *
appended(PyObject *tuple, PyObject *item)
{
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    PyObject *grown = PyTuple_New(n + 1);
    if (grown == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyTuple_SET_ITEM(grown, i, Py_NewRef(PyTuple_GET_ITEM(tuple, i)));
    }
    PyTuple_SET_ITEM(grown, n, Py_NewRef(item));
    return grown;
}

/* Asks `derive(backend, array)` about the dtype of `array` once and adds its entries to the tables: 1 when the
 * tables changed (the call is worth trying again), 0 when not, -1 with an error set. */
static int
learn(UfuncCall *self, PyObject *backend, PyObject *array)
{
    PyObject *dtype = DESCR(array);
    int known = PyDict_Contains(self->seen, dtype);
    if (known != 0) {
        if (known < 0) {  /* a dtype that refuses hashing: the plan serves it */
            PyErr_Clear();
        }
        return 0;
    }
    if (PyDict_SetItem(self->seen, dtype, Py_True) < 0) {
        return -1;
    }
    PyObject *entry = PyObject_CallFunctionObjArgs(self->derive, backend, array, NULL);
    if (entry == NULL) {
        return -1;
    }
    long long low = 0, high = 0;
    int arrays, floats, ints = 0;
    if (!PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) != 3
        || (arrays = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 0))) < 0 || (floats = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1))) < 0
        || (PyTuple_GET_ITEM(entry, 2) != Py_None && !PyArg_ParseTuple(PyTuple_GET_ITEM(entry, 2), "LL", &low, &high))) {
        Py_DECREF(entry);
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "UfuncCall: derive(backend, array) must return (bool, bool, (low, high) or None)");
        }
        return -1;
    }
    ints = PyTuple_GET_ITEM(entry, 2) != Py_None;
    Py_DECREF(entry);
    if (arrays) {
        PyObject *grown = appended(self->dtypes, dtype);
        if (grown == NULL) {
            return -1;
        }
        Py_SETREF(self->dtypes, grown);
    }
    if (floats) {
        PyObject *grown = appended(self->float_scalars, dtype);
        if (grown == NULL) {
            return -1;
        }
        Py_SETREF(self->float_scalars, grown);
    }
    if (ints) {
        Py_ssize_t n = PyTuple_GET_SIZE(self->int_scalars);
        long long *lows = PyMem_Realloc(self->low, (size_t)(n + 1) * sizeof(long long));
        if (lows == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->low = lows;
        long long *highs = PyMem_Realloc(self->high, (size_t)(n + 1) * sizeof(long long));
        if (highs == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        self->high = highs;
        self->low[n] = low;
        self->high[n] = high;
        PyObject *grown = appended(self->int_scalars, dtype);  /* the bounds are in place before the dtype is */
        if (grown == NULL) {
            return -1;
        }
        Py_SETREF(self->int_scalars, grown);
    }
    return arrays || floats || ints;
}

static PyObject *
ufunc_call_vectorcall(UfuncCall *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || nargs != self->arity + 1) {  /* (backend, *args) */
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (nargs == 3) {  /* the common calls, one array or two of one dtype the table holds: nothing else is looked at */
        PyObject *a = args[1], *b = args[2];
        if ((PyObject *)Py_TYPE(a) == self->ndarray && (PyObject *)Py_TYPE(b) == self->ndarray && DESCR(a) == DESCR(b)
            && position(self->dtypes, DESCR(a)) >= 0) {
            return call_ufunc(self, args + 1, 2);
        }
    }
    else if (nargs == 2 && (PyObject *)Py_TYPE(args[1]) == self->ndarray && position(self->dtypes, DESCR(args[1])) >= 0) {
        return call_ufunc(self, args + 1, 1);
    }
    PyObject *array;
    PyObject *result = try_call(self, args + 1, nargs - 1, &array);
    if (result != Py_NotImplemented || array == NULL) {
        return result;
    }
    int learned = learn(self, args[0], array);
    if (learned <= 0) {
        if (learned < 0) {
            Py_DECREF(result);
            return NULL;
        }
        return result;
    }
    Py_DECREF(result);
    return try_call(self, args + 1, nargs - 1, &array);
}

static PyObject *
ufunc_call_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"ufunc", "ndarray", "arity", "derive", NULL};
    PyObject *ufunc, *ndarray, *derive;
    int arity;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOiO", keywords, &ufunc, &ndarray, &arity, &derive)) {
        return NULL;
    }
    if (!PyCallable_Check(ufunc) || !PyType_Check(ndarray) || arity < 1 || arity > 3 || !PyCallable_Check(derive)) {
        PyErr_SetString(PyExc_TypeError, "UfuncCall(ufunc, ndarray, arity, derive): a callable, a type, 1 to 3 arguments, a callable");
        return NULL;
    }
    UfuncCall *self = (UfuncCall *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->ufunc = Py_NewRef(ufunc);
    self->ndarray = Py_NewRef(ndarray);
    self->derive = Py_NewRef(derive);
    self->dtypes = PyTuple_New(0);
    self->float_scalars = PyTuple_New(0);
    self->int_scalars = PyTuple_New(0);
    self->seen = PyDict_New();
    if (self->dtypes == NULL || self->float_scalars == NULL || self->int_scalars == NULL || self->seen == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    if (arity == 3) {  /* `where`'s condition: bool, whose dtype object NumPy keeps one of */
        PyObject *numpy = PyImport_ImportModule("numpy");
        PyObject *dtype = numpy != NULL ? PyObject_GetAttrString(numpy, "dtype") : NULL;
        self->condition = dtype != NULL ? PyObject_CallOneArg(dtype, (PyObject *)&PyBool_Type) : NULL;
        Py_XDECREF(dtype);
        Py_XDECREF(numpy);
        if (self->condition == NULL) {
            Py_DECREF(self);
            return NULL;
        }
    }
    self->arity = arity;
    self->ufunc_call = PyVectorcall_Function(ufunc);
    self->vectorcall = (vectorcallfunc)ufunc_call_vectorcall;
    return (PyObject *)self;
}

static int
ufunc_call_traverse(UfuncCall *self, visitproc visit, void *arg)
{
    Py_VISIT(self->ufunc);
    Py_VISIT(self->ndarray);
    Py_VISIT(self->derive);
    Py_VISIT(self->condition);
    Py_VISIT(self->dtypes);
    Py_VISIT(self->float_scalars);
    Py_VISIT(self->int_scalars);
    Py_VISIT(self->seen);
    return 0;
}

static int
ufunc_call_clear(UfuncCall *self)
{
    Py_CLEAR(self->ufunc);
    Py_CLEAR(self->ndarray);
    Py_CLEAR(self->derive);
    Py_CLEAR(self->condition);
    Py_CLEAR(self->dtypes);
    Py_CLEAR(self->float_scalars);
    Py_CLEAR(self->int_scalars);
    Py_CLEAR(self->seen);
    return 0;
}

static void
ufunc_call_dealloc(UfuncCall *self)
{
    PyObject_GC_UnTrack(self);
    ufunc_call_clear(self);
    PyMem_Free(self->low);
    PyMem_Free(self->high);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
ufunc_call_repr(UfuncCall *self)
{
    return PyUnicode_FromFormat("<bk-numpy fast call of %R>", self->ufunc);
}

static PyMemberDef ufunc_call_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(UfuncCall, vectorcall), READONLY, NULL},
    {"function", T_OBJECT, offsetof(UfuncCall, ufunc), READONLY, "the ufunc"},
    {"dtypes", T_OBJECT, offsetof(UfuncCall, dtypes), READONLY, "the dtypes of the arrays served, as learned so far"},
    {"float_scalars", T_OBJECT, offsetof(UfuncCall, float_scalars), READONLY, "the dtypes an array keeps beside a Python float"},
    {"int_scalars", T_OBJECT, offsetof(UfuncCall, int_scalars), READONLY, "the dtypes an array keeps beside a Python int in its bounds"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject UfuncCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bk_numpy._fastops.UfuncCall",
    .tp_doc = "A fast call of a NumPy ufunc, called as (backend, *args): the ufunc's result, or NotImplemented for the plan.",
    .tp_basicsize = sizeof(UfuncCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = ufunc_call_new,
    .tp_dealloc = (destructor)ufunc_call_dealloc,
    .tp_traverse = (traverseproc)ufunc_call_traverse,
    .tp_clear = (inquiry)ufunc_call_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(UfuncCall, vectorcall),
    .tp_repr = (reprfunc)ufunc_call_repr,
    .tp_members = ufunc_call_members,
};

static PyObject *
layout_matches(PyObject *module, PyObject *array)
{
    if (strcmp(Py_TYPE(array)->tp_name, "numpy.ndarray") != 0) {
        PyErr_Format(PyExc_TypeError, "layout_matches expects a numpy.ndarray but got %s", Py_TYPE(array)->tp_name);
        return NULL;
    }
    PyObject *dtype = PyObject_GetAttrString(array, "dtype");
    if (dtype == NULL) {
        return NULL;
    }
    int same = DESCR(array) == dtype;
    Py_DECREF(dtype);
    return PyBool_FromLong(same);
}

static PyMethodDef module_methods[] = {
    {"layout_matches", layout_matches, METH_O, "Whether the dtype read from the struct of the ndarray `array` is `array.dtype`."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastops", "bk-numpy's compiled fast calls of NumPy ufuncs.", -1, module_methods,
};

PyMODINIT_FUNC
PyInit__fastops(void)
{
    if (PyType_Ready(&UfuncCallType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "UfuncCall", (PyObject *)&UfuncCallType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
