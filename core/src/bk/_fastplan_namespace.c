/* The namespace's direct call of bk's C front (see _fastplan.c): `Shortcut`, the call of a `bk.array_namespace`
 * function that goes straight to its catalogue operation. */
#include "_fastplan.h"

/* A namespace function whose call with `nargs` positional arguments and no keywords is the catalogue call
 * `fast(*args, *extra)`, a shape at `shape_at` (where given) a tuple or an int (made a 1-tuple), each argument of
 * the exact type `kinds` names at its position (where `kinds` names one; None: any): that call goes there
 * directly, every other call to `slow`, the Python adapter. With `dtypes` (a dict: the framework's dtype -> the
 * `DType` the catalogue takes) and `dtype_at` (a position in `extra`), a call with the one keyword `dtype`
 * whose value is a key of `dtypes` is such a call too, the `DType` at `extra[dtype_at]`. With `settings` (bk's
 * GLOBALS), only while no precision is set (`settings.precision_free`): the catalogue call's result dtype follows a
 * precision, where the namespace's does not. */
typedef struct {
    PyObject_HEAD
    PyObject *fast;
    PyObject *slow;
    PyObject *extra;  /* tuple appended to the positional arguments of the fast call */
    Py_ssize_t nargs;
    Py_ssize_t shape_at;  /* the position of a shape: a tuple passes, an int becomes a 1-tuple, anything else takes `slow`; or -1 */
    PyObject *kinds;      /* tuple of types or None per positional argument, or NULL */
    PyObject *dtypes;     /* dict: native dtype -> DType, or NULL */
    Py_ssize_t dtype_at;  /* the position in `extra` of the DType a `dtype=` keyword gives */
    PyObject *settings;   /* bk's GLOBALS where the call is the catalogue call only while no precision is set, or NULL */
    Py_ssize_t flag_offset;  /* where `settings` keeps `precision_free` (a slot), or -1 */
    PyObject *dict;
    vectorcallfunc vectorcall;
} Shortcut;

static PyObject *
shortcut_vectorcall(Shortcut *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *dtype = NULL;  /* the DType of a `dtype=` keyword (borrowed) */
    if (kwnames != NULL) {
        if (self->dtypes == NULL || PyTuple_GET_SIZE(kwnames) != 1 || nargs != self->nargs) {
            return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
        }
        PyObject *name = PyTuple_GET_ITEM(kwnames, 0);
        if (!PyUnicode_Check(name) || PyUnicode_CompareWithASCIIString(name, "dtype") != 0) {
            return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
        }
        dtype = PyDict_GetItemWithError(self->dtypes, args[nargs]);
        if (dtype == NULL) {
            PyErr_Clear();  /* an unhashable value: the adapter says what is wrong */
            return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
        }
    }
    else if (nargs != self->nargs) {
        return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
    }
    if (self->settings != NULL) {
        int free = precision_is_free(self->settings, self->flag_offset);
        if (free <= 0) {
            return free < 0 ? NULL : PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
        }
    }
    if (self->kinds != NULL) {
        for (Py_ssize_t i = 0; i < nargs; i++) {
            PyObject *kind = PyTuple_GET_ITEM(self->kinds, i);
            if (kind != Py_None && (PyObject *)Py_TYPE(args[i]) != kind) {
                return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
            }
        }
    }
    PyObject *shape = NULL;  /* a 1-tuple made of an int shape */
    if (self->shape_at >= 0 && !PyTuple_CheckExact(args[self->shape_at])) {
        if (!PyLong_CheckExact(args[self->shape_at])) {
            return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
        }
        shape = PyTuple_Pack(1, args[self->shape_at]);
        if (shape == NULL) {
            return NULL;
        }
    }
    Py_ssize_t extra = PyTuple_GET_SIZE(self->extra);
    if (extra == 0 && shape == NULL) {
        return PyObject_Vectorcall(self->fast, args, nargs | (nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET), NULL);
    }
    if (nargs + extra > MAX_ARGS) {
        Py_XDECREF(shape);
        return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
    }
    PyObject *stack[MAX_ARGS + 1];
    for (Py_ssize_t i = 0; i < nargs; i++) {
        stack[i] = i == self->shape_at && shape != NULL ? shape : args[i];
    }
    for (Py_ssize_t i = 0; i < extra; i++) {
        stack[nargs + i] = dtype != NULL && i == self->dtype_at ? dtype : PyTuple_GET_ITEM(self->extra, i);
    }
    PyObject *result = PyObject_Vectorcall(self->fast, stack, nargs + extra, NULL);
    Py_XDECREF(shape);
    return result;
}

static PyObject *
shortcut_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"fast", "slow", "nargs", "extra", "shape_at", "kinds", "dtypes", "dtype_at", "settings", NULL};
    PyObject *fast, *slow, *extra = NULL, *kinds = NULL, *dtypes = NULL, *settings = NULL;
    Py_ssize_t nargs, shape_at = -1, dtype_at = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOn|O!nOOnO", keywords, &fast, &slow, &nargs, &PyTuple_Type, &extra, &shape_at, &kinds, &dtypes, &dtype_at,
                                     &settings)) {
        return NULL;
    }
    settings = settings == Py_None ? NULL : settings;
    kinds = kinds == Py_None ? NULL : kinds;
    dtypes = dtypes == Py_None ? NULL : dtypes;
    Py_ssize_t extras = extra != NULL ? PyTuple_GET_SIZE(extra) : 0;
    if (!PyCallable_Check(fast) || !PyCallable_Check(slow) || nargs < 0 || nargs > MAX_ARGS || shape_at >= nargs
        || (kinds != NULL && (!PyTuple_CheckExact(kinds) || PyTuple_GET_SIZE(kinds) != nargs))
        || (dtypes != NULL && (!PyDict_CheckExact(dtypes) || dtype_at < 0 || dtype_at >= extras))) {
        PyErr_SetString(PyExc_TypeError, "Shortcut(fast, slow, nargs, extra=(), shape_at=-1, kinds=None, dtypes=None, dtype_at=-1, settings=None): two callables, "
                                         "0 to 8 arguments, a position among them, a type or None per argument, a dict and a position in extra");
        return NULL;
    }
    Shortcut *self = (Shortcut *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->fast = Py_NewRef(fast);
    self->slow = Py_NewRef(slow);
    self->extra = extra != NULL ? Py_NewRef(extra) : PyTuple_New(0);
    if (self->extra == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    self->nargs = nargs;
    self->shape_at = shape_at;
    self->kinds = Py_XNewRef(kinds);
    self->dtypes = Py_XNewRef(dtypes);
    self->dtype_at = dtype_at;
    self->settings = Py_XNewRef(settings);
    self->flag_offset = settings != NULL ? slot_offset(settings, precision_free_name) : -1;
    self->vectorcall = (vectorcallfunc)shortcut_vectorcall;
    return (PyObject *)self;
}

static int
shortcut_traverse(Shortcut *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fast);
    Py_VISIT(self->slow);
    Py_VISIT(self->extra);
    Py_VISIT(self->kinds);
    Py_VISIT(self->dtypes);
    Py_VISIT(self->settings);
    Py_VISIT(self->dict);
    return 0;
}

static int
shortcut_clear(Shortcut *self)
{
    Py_CLEAR(self->fast);
    Py_CLEAR(self->slow);
    Py_CLEAR(self->extra);
    Py_CLEAR(self->kinds);
    Py_CLEAR(self->dtypes);
    Py_CLEAR(self->settings);
    Py_CLEAR(self->dict);
    return 0;
}

static void
shortcut_dealloc(Shortcut *self)
{
    PyObject_GC_UnTrack(self);
    shortcut_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
shortcut_repr(PyObject *self)
{
    PyObject *name = PyObject_GetAttrString(self, "__qualname__");
    if (name == NULL) {
        PyErr_Clear();
        return PyUnicode_FromString("<bk namespace function>");
    }
    PyObject *text = PyUnicode_FromFormat("<bk namespace function %S>", name);
    Py_DECREF(name);
    return text;
}

static PyMemberDef shortcut_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Shortcut, vectorcall), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(Shortcut, dict), READONLY, NULL},
    {"fast", T_OBJECT, offsetof(Shortcut, fast), READONLY, "the catalogue call of a call with `nargs` positional arguments"},
    {"slow", T_OBJECT, offsetof(Shortcut, slow), READONLY, "the Python adapter, for every other call"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef shortcut_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject ShortcutType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bk._fastplan.Shortcut",
    .tp_doc = "A namespace function whose plain positional call is a catalogue call.",
    .tp_basicsize = sizeof(Shortcut),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = shortcut_new,
    .tp_dealloc = (destructor)shortcut_dealloc,
    .tp_traverse = (traverseproc)shortcut_traverse,
    .tp_clear = (inquiry)shortcut_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Shortcut, vectorcall),
    .tp_repr = shortcut_repr,
    .tp_dictoffset = offsetof(Shortcut, dict),
    .tp_members = shortcut_members,
    .tp_getset = shortcut_getset,
};
