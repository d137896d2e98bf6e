/* The C fast paths of bk-numpy's bare kernels (optional: see `_math.py`).
 *
 * A `BinaryOperator(ufunc, fallback, settings, ndarray, dtypes, float_scalars, int_scalars)` is called
 * as `(backend, a, b)`. With two exact `numpy.ndarray`s whose dtype is the same object, one of `dtypes`,
 * while no precision is set (`settings.precision_free`), it returns `ufunc(a, b)`. So does a call with
 * one exact ndarray and a Python float (int) whose dtype is one of `float_scalars` (`int_scalars`):
 * NumPy 2 treats the Python number as weak (NEP 50), as bk's rules do, so the result keeps the array's
 * dtype; the tables leave out the dtypes where bk's rules differ (an int array and a Python float give
 * bk's default float, not float64).
 * With `ternary=True` it is `where(condition, x, y)`: `ufunc(condition, x, y)` (`numpy.where`) for an
 * exact ndarray `condition` and exact ndarrays `x` and `y` of one of `dtypes`, or one of them an ndarray
 * of one of `float_scalars` and the other a Python float, while no precision is set.
 * With `unary=True` it is a function of one tensor: `ufunc(x)` for an exact ndarray of one of
 * `dtypes` (the float and complex ones, which such functions keep) while no precision is set.
 * Every other call, and a `ValueError` or `OverflowError` from the ufunc, goes to `fallback`. A
 * `fallback` of None makes the object a fast call (`bk.rules.kernel(fast=...)`): it returns `NotImplemented`
 * for those calls instead, which the core's plan then serves with the kernel, except that a
 * `ValueError` of two arrays (shapes that do not broadcast) is raised for the core to explain; and
 * it does not read `settings`, since the core calls a fast path only while no precision is set.
 * In Python the same check costs as much as a ufunc on ten elements (two attribute reads and a
 * frame), which is why it lives here.
 *
 * The dtype is read from the array struct: its first fields (`PyArrayObject_fields` of NumPy's
 * `ndarraytypes.h`) have been NumPy's stable ABI since 1.7. `layout_matches(array)` compares it with
 * `array.dtype`, and `_math.py` uses the fast path only when that holds, so no NumPy headers are
 * needed to build this file.
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

typedef struct {
    PyObject_HEAD
    PyObject *ufunc;
    PyObject *fallback;  /* called for the calls not taken; Py_None: NotImplemented is returned */
    PyObject *settings;
    PyObject *ndarray;
    PyObject *dtypes;  /* tuple of the dtype objects taken by the fast path */
    PyObject *float_scalars;  /* dtypes of an array that a Python float joins weakly */
    PyObject *int_scalars;  /* dtypes of an array that a Python int joins weakly */
    int unary;  /* a function of one tensor, `(backend, x)`: `ufunc(x)` for an ndarray of one of `dtypes` */
    int ternary;  /* `(backend, condition, x, y)`: `ufunc(condition, x, y)` for ndarrays, x and y of one dtype of `dtypes` */
    PyObject *dict;
    PyObject *bound;  /* the instance of a bound copy (`bind`), or NULL */
    vectorcallfunc ufunc_call;  /* the ufunc's vectorcall function, called directly, or NULL */
    vectorcallfunc vectorcall;
} BinaryOperator;

/* `ufunc(*args)`, called directly where it has a vectorcall function (NumPy's ufuncs do). */
static inline PyObject *
call_ufunc(BinaryOperator *self, PyObject *const *args, Py_ssize_t nargs)
{
    return self->ufunc_call != NULL ? self->ufunc_call(self->ufunc, args, nargs, NULL) : PyObject_Vectorcall(self->ufunc, args, nargs, NULL);
}

static PyObject *precision_free_name;

static int
contains(PyObject *tuple, PyObject *item)
{
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyTuple_GET_ITEM(tuple, i) == item) {
            return 1;
        }
    }
    return 0;
}

/* Whether no precision is set (`settings.precision_free`): 1 or 0, -1 with an exception set. A fast path
 * (no fallback) does not look: the core calls it only while no precision is set. */
static int
precision_free(BinaryOperator *self)
{
    if (self->fallback == Py_None) {
        return 1;
    }
    PyObject *flag = PyObject_GetAttr(self->settings, precision_free_name);
    if (flag == NULL) {
        return -1;
    }
    Py_DECREF(flag);  /* settings keeps it alive */
    return flag == Py_True;
}

/* ufunc(a, b) for an ndarray and a weak Python number; NULL without an exception set: not taken. */
static PyObject *
scalar_call(BinaryOperator *self, PyObject *const *args, PyObject *array, PyObject *scalar)
{
    PyObject *table = PyFloat_CheckExact(scalar) ? self->float_scalars : PyLong_CheckExact(scalar) ? self->int_scalars : NULL;
    if (table == NULL || !contains(table, ((ArrayHead *)array)->descr)) {
        return NULL;
    }
    int free = precision_free(self);
    if (free <= 0) {
        return NULL;
    }
    PyObject *result = call_ufunc(self, args + 1, 2);
    if (result == NULL && (PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_OverflowError))) {
        PyErr_Clear();  /* a Python int out of the dtype's range: the fallback names the bk error */
    }
    return result;
}

/* A call the fast path does not take: the fallback's result, or NotImplemented where there is none. */
static PyObject *
leave(BinaryOperator *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (self->fallback == Py_None) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

static PyObject *
binary_unbound(BinaryOperator *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (self->ternary) {
        int taken = 0;
        if (PyVectorcall_NARGS(nargsf) == 4 && kwnames == NULL && (PyObject *)Py_TYPE(args[1]) == self->ndarray) {
            PyObject *x = args[2], *y = args[3];
            int x_array = (PyObject *)Py_TYPE(x) == self->ndarray, y_array = (PyObject *)Py_TYPE(y) == self->ndarray;
            if (x_array && y_array) {
                taken = ((ArrayHead *)x)->descr == ((ArrayHead *)y)->descr && contains(self->dtypes, ((ArrayHead *)x)->descr);
            }
            else if (x_array && PyFloat_CheckExact(y)) {  /* a weak Python float beside a float array (NEP 50) */
                taken = contains(self->float_scalars, ((ArrayHead *)x)->descr);
            }
            else if (y_array && PyFloat_CheckExact(x)) {
                taken = contains(self->float_scalars, ((ArrayHead *)y)->descr);
            }
        }
        if (taken) {
            int free = precision_free(self);
            if (free < 0) {
                return NULL;
            }
            if (free) {
                PyObject *result = call_ufunc(self, args + 1, 3);
                if (result != NULL || !PyErr_ExceptionMatches(PyExc_ValueError) || self->fallback == Py_None) {
                    return result;  /* a fast path's failure is explained by the core, as the kernel's */
                }
                PyErr_Clear();  /* shapes that do not broadcast: the fallback names the bk error */
            }
        }
        return leave(self, args, nargsf, kwnames);
    }
    if (self->unary) {
        if (PyVectorcall_NARGS(nargsf) == 2 && kwnames == NULL && (PyObject *)Py_TYPE(args[1]) == self->ndarray
            && contains(self->dtypes, ((ArrayHead *)args[1])->descr)) {
            int free = precision_free(self);
            if (free < 0) {
                return NULL;
            }
            if (free) {
                return call_ufunc(self, args + 1, 1);
            }
        }
        return leave(self, args, nargsf, kwnames);
    }
    if (PyVectorcall_NARGS(nargsf) == 3 && kwnames == NULL) {  /* (backend, a, b) */
        PyObject *a = args[1], *b = args[2];
        PyObject *array = (PyObject *)Py_TYPE(a) == self->ndarray ? a : (PyObject *)Py_TYPE(b) == self->ndarray ? b : NULL;
        if (array != NULL && (PyObject *)Py_TYPE(array == a ? b : a) != self->ndarray) {
            PyObject *result = scalar_call(self, args, array, array == a ? b : a);
            if (result != NULL || PyErr_Occurred()) {
                return result;
            }
            return leave(self, args, nargsf, kwnames);
        }
        if ((PyObject *)Py_TYPE(a) == self->ndarray && (PyObject *)Py_TYPE(b) == self->ndarray) {
            PyObject *dtype = ((ArrayHead *)a)->descr;
            if (dtype == ((ArrayHead *)b)->descr) {
                Py_ssize_t n = PyTuple_GET_SIZE(self->dtypes);
                for (Py_ssize_t i = 0; i < n; i++) {
                    if (PyTuple_GET_ITEM(self->dtypes, i) != dtype) {
                        continue;
                    }
                    int free = precision_free(self);
                    if (free < 0) {
                        return NULL;
                    }
                    if (!free) {
                        break;
                    }
                    PyObject *result = call_ufunc(self, args + 1, 2);
                    if (result != NULL || !PyErr_ExceptionMatches(PyExc_ValueError) || self->fallback == Py_None) {
                        return result;  /* a fast path's failure is explained by the core, as the kernel's */
                    }
                    PyErr_Clear();  /* shapes that do not broadcast: the fallback names the bk error */
                    break;
                }
            }
        }
    }
    return leave(self, args, nargsf, kwnames);
}

/* A bound copy (`bind(instance)`; the unbound object is called as `binary_unbound`) is called without the
 * instance: it goes first, as a method's self. Where the caller lends the slot before the arguments
 * (`PY_VECTORCALL_ARGUMENTS_OFFSET`, as CPython's calls from Python code do), the instance goes there for the
 * call and the slot is restored after it; else into a copy. */
static PyObject *
binary_vectorcall(BinaryOperator *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET) {
        PyObject **slot = (PyObject **)args - 1;
        PyObject *saved = *slot;
        *slot = self->bound;
        PyObject *result = binary_unbound(self, slot, nargs + 1, kwnames);
        *slot = saved;
        return result;
    }
    Py_ssize_t total = nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *small[8];
    PyObject **stack = total < 8 ? small : PyMem_Malloc((size_t)(total + 1) * sizeof(PyObject *));
    if (stack == NULL) {
        return PyErr_NoMemory();
    }
    stack[0] = self->bound;
    for (Py_ssize_t i = 0; i < total; i++) {
        stack[i + 1] = args[i];
    }
    PyObject *result = binary_unbound(self, stack, nargs + 1, kwnames);
    if (stack != small) {
        PyMem_Free(stack);
    }
    return result;
}

static PyObject *
binary_bind(BinaryOperator *self, PyObject *instance)
{
    BinaryOperator *bound = (BinaryOperator *)Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0);
    if (bound == NULL) {
        return NULL;
    }
    bound->ufunc = Py_XNewRef(self->ufunc);
    bound->fallback = Py_XNewRef(self->fallback);
    bound->settings = Py_XNewRef(self->settings);
    bound->ndarray = Py_XNewRef(self->ndarray);
    bound->dtypes = Py_XNewRef(self->dtypes);
    bound->float_scalars = Py_XNewRef(self->float_scalars);
    bound->int_scalars = Py_XNewRef(self->int_scalars);
    bound->unary = self->unary;
    bound->ternary = self->ternary;
    bound->ufunc_call = self->ufunc_call;
    bound->dict = self->dict != NULL ? PyDict_Copy(self->dict) : NULL;
    if (self->dict != NULL && bound->dict == NULL) {
        Py_DECREF(bound);
        return NULL;
    }
    bound->bound = Py_NewRef(instance);
    bound->vectorcall = (vectorcallfunc)binary_vectorcall;
    return (PyObject *)bound;
}

static PyObject *
binary_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"ufunc", "fallback", "settings", "ndarray", "dtypes", "float_scalars", "int_scalars", "unary", "ternary", NULL};
    PyObject *ufunc, *fallback, *settings, *ndarray, *dtypes, *float_scalars = NULL, *int_scalars = NULL;
    int unary = 0, ternary = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO!|O!O!pp", keywords, &ufunc, &fallback, &settings, &ndarray, &PyTuple_Type, &dtypes,
                                     &PyTuple_Type, &float_scalars, &PyTuple_Type, &int_scalars, &unary, &ternary)) {
        return NULL;
    }
    if (!PyCallable_Check(ufunc) || (fallback != Py_None && !PyCallable_Check(fallback)) || !PyType_Check(ndarray)) {
        PyErr_SetString(PyExc_TypeError, "BinaryOperator(ufunc, fallback, settings, ndarray, dtypes): ufunc must be callable, fallback callable or None, ndarray a type");
        return NULL;
    }
    BinaryOperator *self = (BinaryOperator *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->ufunc = Py_NewRef(ufunc);
    self->fallback = Py_NewRef(fallback);
    self->settings = Py_NewRef(settings);
    self->ndarray = Py_NewRef(ndarray);
    self->dtypes = Py_NewRef(dtypes);
    self->float_scalars = float_scalars != NULL ? Py_NewRef(float_scalars) : PyTuple_New(0);
    self->int_scalars = int_scalars != NULL ? Py_NewRef(int_scalars) : PyTuple_New(0);
    if (self->float_scalars == NULL || self->int_scalars == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    self->unary = unary;
    self->ternary = ternary;
    self->ufunc_call = PyVectorcall_Function(ufunc);
    self->vectorcall = (vectorcallfunc)binary_unbound;
    return (PyObject *)self;
}

static int
binary_traverse(BinaryOperator *self, visitproc visit, void *arg)
{
    Py_VISIT(self->ufunc);
    Py_VISIT(self->fallback);
    Py_VISIT(self->settings);
    Py_VISIT(self->ndarray);
    Py_VISIT(self->dtypes);
    Py_VISIT(self->float_scalars);
    Py_VISIT(self->int_scalars);
    Py_VISIT(self->dict);
    Py_VISIT(self->bound);
    return 0;
}

static int
binary_clear(BinaryOperator *self)
{
    Py_CLEAR(self->ufunc);
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->settings);
    Py_CLEAR(self->ndarray);
    Py_CLEAR(self->dtypes);
    Py_CLEAR(self->float_scalars);
    Py_CLEAR(self->int_scalars);
    Py_CLEAR(self->dict);
    Py_CLEAR(self->bound);
    return 0;
}

static void
binary_dealloc(BinaryOperator *self)
{
    PyObject_GC_UnTrack(self);
    binary_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
binary_get(PyObject *self, PyObject *instance, PyObject *owner)
{
    if (instance == NULL || instance == Py_None || ((BinaryOperator *)self)->bound != NULL) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, instance);
}

static PyObject *
binary_repr(PyObject *self)
{
    PyObject *name = PyObject_GetAttrString(self, "__qualname__");
    if (name == NULL) {
        PyErr_Clear();
        return PyUnicode_FromString("<bk-numpy operator with a C fast path>");
    }
    PyObject *text = PyUnicode_FromFormat("<bk-numpy operator %S with a C fast path>", name);
    Py_DECREF(name);
    return text;
}

static PyObject *
binary_reduce(PyObject *self, PyObject *unused)
{
    if (((BinaryOperator *)self)->bound != NULL) {  /* a bound copy: getattr(instance, name), as a bound method */
        PyObject *name = PyObject_GetAttrString(self, "__name__");
        PyObject *getattr = PyDict_GetItemString(PyEval_GetBuiltins(), "getattr");  /* borrowed */
        if (name == NULL || getattr == NULL) {
            Py_XDECREF(name);
            return NULL;
        }
        PyObject *result = Py_BuildValue("O(OO)", getattr, ((BinaryOperator *)self)->bound, name);
        Py_DECREF(name);
        return result;
    }
    /* pickled by reference, as functions are: `__module__` and the dotted `__qualname__` name it */
    return PyObject_GetAttrString(self, "__qualname__");
}

static PyMethodDef binary_methods[] = {
    {"bind", (PyCFunction)binary_bind, METH_O, "A copy bound to `instance`: called without it, as the bound method, without a method object in between."},
    {"__reduce__", binary_reduce, METH_NOARGS, "Pickled by reference to `__module__` and `__qualname__`."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef binary_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(BinaryOperator, vectorcall), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(BinaryOperator, dict), READONLY, NULL},
    {"__self__", T_OBJECT, offsetof(BinaryOperator, bound), READONLY, "the instance of a bound copy (`bind`); None for the method"},
    {"__wrapped__", T_OBJECT, offsetof(BinaryOperator, fallback), READONLY, "the Python method behind the fast path"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject BinaryOperatorType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bk_numpy._fastops.BinaryOperator",
    .tp_doc = "A binary operator method with a C fast path for two arrays of one dtype.",
    .tp_basicsize = sizeof(BinaryOperator),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = binary_new,
    .tp_dealloc = (destructor)binary_dealloc,
    .tp_traverse = (traverseproc)binary_traverse,
    .tp_clear = (inquiry)binary_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(BinaryOperator, vectorcall),
    .tp_descr_get = binary_get,
    .tp_repr = binary_repr,
    .tp_dictoffset = offsetof(BinaryOperator, dict),
    .tp_members = binary_members,
    .tp_methods = binary_methods,
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
    int same = ((ArrayHead *)array)->descr == dtype;
    Py_DECREF(dtype);
    return PyBool_FromLong(same);
}

static PyMethodDef module_methods[] = {
    {"layout_matches", layout_matches, METH_O, "Whether the dtype read from the struct of the ndarray `array` is `array.dtype`."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastops", "The C fast paths of bk-numpy's bare kernels.", -1, module_methods,
};

PyMODINIT_FUNC
PyInit__fastops(void)
{
    precision_free_name = PyUnicode_InternFromString("precision_free");
    if (precision_free_name == NULL || PyType_Ready(&BinaryOperatorType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "BinaryOperator", (PyObject *)&BinaryOperatorType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
