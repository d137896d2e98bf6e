/* The C fast path of bk-numpy's `add`, `sub`, `mul` and `div` (optional: see `_math.py`).
 *
 * A `BinaryOperator` is a method descriptor, like a Python function in a class body. Called as
 * `backend.add(a, b)` with two exact `numpy.ndarray`s whose dtype is the same object, one of the
 * operator's `dtypes`, while no precision is set (`settings.precision_free`), it returns
 * `ufunc(a, b)`. Every other call, and a `ValueError` from the ufunc, goes to `fallback`: the
 * Python method, which has all of bk's semantics and gives the same result for the calls above.
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
    PyObject *fallback;
    PyObject *settings;
    PyObject *ndarray;
    PyObject *dtypes;  /* tuple of the dtype objects taken by the fast path */
    PyObject *dict;
    vectorcallfunc vectorcall;
} BinaryOperator;

static PyObject *precision_free_name;

static PyObject *
binary_vectorcall(BinaryOperator *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) == 3 && kwnames == NULL) {  /* (backend, a, b) */
        PyObject *a = args[1], *b = args[2];
        if ((PyObject *)Py_TYPE(a) == self->ndarray && (PyObject *)Py_TYPE(b) == self->ndarray) {
            PyObject *dtype = ((ArrayHead *)a)->descr;
            if (dtype == ((ArrayHead *)b)->descr) {
                Py_ssize_t n = PyTuple_GET_SIZE(self->dtypes);
                for (Py_ssize_t i = 0; i < n; i++) {
                    if (PyTuple_GET_ITEM(self->dtypes, i) != dtype) {
                        continue;
                    }
                    PyObject *flag = PyObject_GetAttr(self->settings, precision_free_name);
                    if (flag == NULL) {
                        return NULL;
                    }
                    Py_DECREF(flag);  /* settings keeps it alive */
                    if (flag != Py_True) {
                        break;
                    }
                    PyObject *result = PyObject_Vectorcall(self->ufunc, args + 1, 2, NULL);
                    if (result != NULL || !PyErr_ExceptionMatches(PyExc_ValueError)) {
                        return result;
                    }
                    PyErr_Clear();  /* shapes that do not broadcast: the fallback names the bk error */
                    break;
                }
            }
        }
    }
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

static PyObject *
binary_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"ufunc", "fallback", "settings", "ndarray", "dtypes", NULL};
    PyObject *ufunc, *fallback, *settings, *ndarray, *dtypes;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO!", keywords, &ufunc, &fallback, &settings, &ndarray, &PyTuple_Type, &dtypes)) {
        return NULL;
    }
    if (!PyCallable_Check(ufunc) || !PyCallable_Check(fallback) || !PyType_Check(ndarray)) {
        PyErr_SetString(PyExc_TypeError, "BinaryOperator(ufunc, fallback, settings, ndarray, dtypes): ufunc and fallback must be callable and ndarray a type");
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
    self->vectorcall = (vectorcallfunc)binary_vectorcall;
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
    Py_VISIT(self->dict);
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
    Py_CLEAR(self->dict);
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
    if (instance == NULL || instance == Py_None) {
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
    /* pickled by reference, as functions are: `__module__` and the dotted `__qualname__` name it */
    return PyObject_GetAttrString(self, "__qualname__");
}

static PyMethodDef binary_methods[] = {
    {"__reduce__", binary_reduce, METH_NOARGS, "Pickled by reference to `__module__` and `__qualname__`."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef binary_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(BinaryOperator, vectorcall), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(BinaryOperator, dict), READONLY, NULL},
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
    PyModuleDef_HEAD_INIT, "_fastops", "The C fast path of bk-numpy's arithmetic operators.", -1, module_methods,
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
