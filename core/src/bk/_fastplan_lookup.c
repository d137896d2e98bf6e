/* The key and the lookup of bk's C front (see _fastplan.c).
 *
 * A `Dispatched` is the method that `dispatch(op, kernel)` puts in front of a kernel: a method
 * descriptor, like a Python function in a class body. Called as `backend.op(*args)` without
 * keywords while no precision is set (`settings.precision_free`), it builds the call's signature key
 * exactly as the Python dispatcher does (`_operand_part` / `_value_part` in `_dispatcher.py`) for
 * the arguments it can describe, and looks the plan up in the operation's plan cache (the same dict
 * the Python dispatcher fills):
 *
 * First, where the kernel declares a fast call (`bk.rules.kernel(fast=...)`): `fast(backend, *args)`, its
 * result unless it is NotImplemented (a call the fast call leaves to the plan). Then:
 * - a plan of identities (`plan.direct`): `kernel(backend, *args)`, its failure handed to
 *   `failed(backend, args, error)` (which explains it as the Python dispatcher does);
 * - any other plan: `run(backend, plan, args)`, the Python runner of plans;
 * - no plan yet, an argument it cannot describe, keywords, a precision: `fallback(backend, *args,
 *   **kwargs)`, the Python dispatcher, which compiles the plan and caches it.
 *
 * The key parts it builds, per argument (anything else goes to the fallback):
 *   elementwise operands: a Python float, bool or complex -> its type; a Python int that fits 64 bits ->
 *     (int, negative, bit length of its magnitude as `int.bit_length` of `value` or `~value`);
 *   other arguments: a tuple of Python ints -> the tuple; None or a `DType` -> itself; a Python bool,
 *     int, float, complex or str -> (type, value);
 *   both: an object whose `shape` is a tuple (NumPy, PyTorch's `Size`, JAX, Array API arrays) ->
 *     (type, dtype, shape).
 * The key is `(backend class, None, part, part, ...)`: the Python dispatcher's key of the same call.
 */
#include "_fastplan.h"

typedef struct {
    PyObject_HEAD
    PyObject *kernel;    /* the raw kernel, called as kernel(backend, *args) */
    PyObject *fallback;  /* the Python dispatcher: dispatched(backend, *args, **kwargs) */
    PyObject *run;       /* run(backend, plan, args): a plan that is not direct */
    PyObject *failed;    /* failed(backend, args, error): explains a direct kernel's failure */
    PyObject *cache;     /* dict: key -> Plan */
    PyObject *settings;  /* bk's GLOBALS: `precision_free` */
    Py_ssize_t flag_offset;  /* where `settings` keeps `precision_free` (a slot), or -1: read as an attribute */
    PyObject *dtype_type;  /* bk.DType */
    PyObject *fast;      /* the kernel's declared fast call, fast(backend, *args) -> result or NotImplemented; or NULL */
    vectorcallfunc fast_call;  /* `fast`'s vectorcall function, called directly (no generic call in between), or NULL */
    int elementwise;
    PyObject *dict;
    PyObject *bound;  /* the instance of a bound copy (`bind`), or NULL */
    vectorcallfunc vectorcall;
} Dispatched;

/* The key part of a tensor whose `shape` is a tuple: (type, dtype, shape); NULL without an exception: not one. */
static PyObject *
tensor_part(PyObject *value)
{
    PyTypeObject *type = Py_TYPE(value);
    if (value == Py_None || type == &PyList_Type || type == &PyDict_Type || type == &PyUnicode_Type) {
        return NULL;
    }
    PyObject *shape = PyObject_GetAttr(value, shape_name);
    if (shape == NULL) {
        PyErr_Clear();
        return NULL;
    }
    if (!PyTuple_Check(shape)) {
        Py_DECREF(shape);
        return NULL;
    }
    PyObject *dtype = PyObject_GetAttr(value, dtype_name);
    if (dtype == NULL) {
        PyErr_Clear();
        Py_DECREF(shape);
        return NULL;
    }
    PyObject *part = PyTuple_Pack(3, (PyObject *)type, dtype, shape);
    Py_DECREF(dtype);
    Py_DECREF(shape);
    if (part == NULL) {
        PyErr_Clear();
    }
    return part;
}

static PyObject *
operand_part(PyObject *value)
{
    PyTypeObject *type = Py_TYPE(value);
    if (type == &PyFloat_Type || type == &PyBool_Type || type == &PyComplex_Type) {
        return Py_NewRef((PyObject *)type);
    }
    if (type == &PyLong_Type) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return NULL;
        }
        unsigned long long magnitude = v >= 0 ? (unsigned long long)v : (unsigned long long)(~v);
        long bits = 0;
        while (magnitude) {
            bits++;
            magnitude >>= 1;
        }
        PyObject *count = PyLong_FromLong(bits);
        if (count == NULL) {
            PyErr_Clear();
            return NULL;
        }
        PyObject *part = PyTuple_Pack(3, (PyObject *)&PyLong_Type, v < 0 ? Py_True : Py_False, count);
        Py_DECREF(count);
        if (part == NULL) {
            PyErr_Clear();
        }
        return part;
    }
    return tensor_part(value);
}

static PyObject *
value_part(PyObject *value, PyObject *dtype_type)
{
    PyTypeObject *type = Py_TYPE(value);
    if (type == &PyTuple_Type) {
        Py_ssize_t n = PyTuple_GET_SIZE(value);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (Py_TYPE(PyTuple_GET_ITEM(value, i)) != &PyLong_Type) {
                return NULL;
            }
        }
        return Py_NewRef(value);
    }
    if (value == Py_None || (PyObject *)type == dtype_type) {
        return Py_NewRef(value);
    }
    if (type == &PyBool_Type || type == &PyLong_Type || type == &PyFloat_Type || type == &PyComplex_Type || type == &PyUnicode_Type) {
        PyObject *part = PyTuple_Pack(2, (PyObject *)type, value);
        if (part == NULL) {
            PyErr_Clear();
        }
        return part;
    }
    return tensor_part(value);
}

/* The signature key of (backend, *args), or NULL without an exception where an argument is not described here. */
PyObject *
signature_key(PyObject *const *args, Py_ssize_t nargs, int elementwise, PyObject *dtype_type)
{
    if (nargs < 1 || nargs > MAX_ARGS + 1) {
        return NULL;
    }
    PyObject *key = PyTuple_New(nargs + 1);
    if (key == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyTuple_SET_ITEM(key, 0, Py_NewRef((PyObject *)Py_TYPE(args[0])));
    PyTuple_SET_ITEM(key, 1, Py_NewRef(Py_None));
    for (Py_ssize_t i = 1; i < nargs; i++) {
        PyObject *part = elementwise ? operand_part(args[i]) : value_part(args[i], dtype_type);
        if (part == NULL) {
            Py_DECREF(key);
            return NULL;
        }
        PyTuple_SET_ITEM(key, i + 1, part);
    }
    return key;
}

static PyObject *
args_tuple(PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *tuple = PyTuple_New(nargs - 1);
    if (tuple == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 1; i < nargs; i++) {
        PyTuple_SET_ITEM(tuple, i - 1, Py_NewRef(args[i]));
    }
    return tuple;
}

static PyObject *explain(Dispatched *self, PyObject *const *args, Py_ssize_t nargs);

static PyObject *
dispatched_unbound(Dispatched *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || nargs < 1) {
        return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
    }
    int free = precision_is_free(self->settings, self->flag_offset);
    if (free <= 0) {
        return free < 0 ? NULL : PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
    }
    if (self->fast != NULL) {
        PyObject *done = self->fast_call != NULL ? self->fast_call(self->fast, args, nargs, NULL) : PyObject_Vectorcall(self->fast, args, nargs, NULL);
        if (done == NULL) {
            return PyErr_ExceptionMatches(PyExc_Exception) ? explain(self, args, nargs) : NULL;
        }
        if (done != Py_NotImplemented) {
            return done;
        }
        Py_DECREF(done);
    }
    PyObject *key = signature_key(args, nargs, self->elementwise, self->dtype_type);
    if (key == NULL) {
        return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
    }
    PyObject *plan = PyDict_GetItemWithError(self->cache, key);  /* borrowed */
    Py_DECREF(key);
    if (plan == NULL) {
        if (PyErr_Occurred()) {  /* an unhashable part (a dtype object that refuses hashing) */
            PyErr_Clear();
        }
        return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
    }
    Py_INCREF(plan);
    PyObject *direct = PyObject_GetAttr(plan, direct_name);
    if (direct == NULL) {
        Py_DECREF(plan);
        return NULL;
    }
    Py_DECREF(direct);
    if (direct != Py_True) {
        PyObject *rest = args_tuple(args, nargs);
        PyObject *result = rest == NULL ? NULL : PyObject_CallFunctionObjArgs(self->run, args[0], plan, rest, NULL);
        Py_XDECREF(rest);
        Py_DECREF(plan);
        return result;
    }
    Py_DECREF(plan);
    PyObject *result = PyObject_Vectorcall(self->kernel, args, nargs, NULL);
    if (result != NULL || !PyErr_ExceptionMatches(PyExc_Exception)) {
        return result;
    }
    return explain(self, args, nargs);
}

/* A kernel (or fast call) called with (backend, *args) failed with the exception set: `failed` explains it. */
static PyObject *
explain(Dispatched *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *result;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    if (traceback != NULL) {
        PyException_SetTraceback(value, traceback);
    }
    PyObject *rest = args_tuple(args, nargs);
    if (rest == NULL) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
        return NULL;
    }
    result = PyObject_CallFunctionObjArgs(self->failed, args[0], rest, value, NULL);
    Py_DECREF(rest);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    return result;
}

/* A bound copy (`bind(instance)`; the unbound object is called as `dispatched_unbound`) is called without the
 * instance: it goes first, as a method's self. Where the caller lends the slot before the arguments
 * (`PY_VECTORCALL_ARGUMENTS_OFFSET`, as CPython's calls from Python code do), the instance goes there for the
 * call and the slot is restored after it; else into a copy. */
static PyObject *
dispatched_vectorcall(Dispatched *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET) {
        PyObject **slot = (PyObject **)args - 1;
        PyObject *saved = *slot;
        *slot = self->bound;
        PyObject *result = dispatched_unbound(self, slot, nargs + 1, kwnames);
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
    PyObject *result = dispatched_unbound(self, stack, nargs + 1, kwnames);
    if (stack != small) {
        PyMem_Free(stack);
    }
    return result;
}

static PyObject *
dispatched_bind(Dispatched *self, PyObject *instance)
{
    Dispatched *bound = (Dispatched *)Py_TYPE(self)->tp_alloc(Py_TYPE(self), 0);
    if (bound == NULL) {
        return NULL;
    }
    bound->kernel = Py_XNewRef(self->kernel);
    bound->fallback = Py_XNewRef(self->fallback);
    bound->run = Py_XNewRef(self->run);
    bound->failed = Py_XNewRef(self->failed);
    bound->cache = Py_XNewRef(self->cache);
    bound->settings = Py_XNewRef(self->settings);
    bound->flag_offset = self->flag_offset;
    bound->dtype_type = Py_XNewRef(self->dtype_type);
    bound->fast = Py_XNewRef(self->fast);
    bound->fast_call = self->fast_call;
    bound->elementwise = self->elementwise;
    bound->dict = self->dict != NULL ? PyDict_Copy(self->dict) : NULL;
    if (self->dict != NULL && bound->dict == NULL) {
        Py_DECREF(bound);
        return NULL;
    }
    bound->bound = Py_NewRef(instance);
    bound->vectorcall = (vectorcallfunc)dispatched_vectorcall;
    return (PyObject *)bound;
}

static PyObject *
dispatched_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"kernel", "fallback", "run", "failed", "cache", "settings", "dtype_type", "elementwise", "fast", NULL};
    PyObject *kernel, *fallback, *run, *failed, *cache, *settings, *dtype_type, *fast = Py_None;
    int elementwise = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO!OO|pO", keywords, &kernel, &fallback, &run, &failed, &PyDict_Type, &cache,
                                     &settings, &dtype_type, &elementwise, &fast)) {
        return NULL;
    }
    if (!PyCallable_Check(kernel) || !PyCallable_Check(fallback) || !PyCallable_Check(run) || !PyCallable_Check(failed) || !PyType_Check(dtype_type)) {
        PyErr_SetString(PyExc_TypeError, "Dispatched(kernel, fallback, run, failed, cache, settings, dtype_type): callables, a dict and a type");
        return NULL;
    }
    Dispatched *self = (Dispatched *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->kernel = Py_NewRef(kernel);
    self->fallback = Py_NewRef(fallback);
    self->run = Py_NewRef(run);
    self->failed = Py_NewRef(failed);
    self->cache = Py_NewRef(cache);
    self->settings = Py_NewRef(settings);
    self->flag_offset = slot_offset(settings, precision_free_name);
    self->dtype_type = Py_NewRef(dtype_type);
    self->fast = fast == Py_None ? NULL : Py_NewRef(fast);
    self->fast_call = self->fast != NULL ? PyVectorcall_Function(self->fast) : NULL;
    self->elementwise = elementwise;
    self->vectorcall = (vectorcallfunc)dispatched_unbound;
    return (PyObject *)self;
}

static int
dispatched_traverse(Dispatched *self, visitproc visit, void *arg)
{
    Py_VISIT(self->kernel);
    Py_VISIT(self->fallback);
    Py_VISIT(self->run);
    Py_VISIT(self->failed);
    Py_VISIT(self->cache);
    Py_VISIT(self->settings);
    Py_VISIT(self->dtype_type);
    Py_VISIT(self->fast);
    Py_VISIT(self->dict);
    Py_VISIT(self->bound);
    return 0;
}

static int
dispatched_clear(Dispatched *self)
{
    Py_CLEAR(self->kernel);
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->run);
    Py_CLEAR(self->failed);
    Py_CLEAR(self->cache);
    Py_CLEAR(self->settings);
    Py_CLEAR(self->dtype_type);
    Py_CLEAR(self->fast);
    Py_CLEAR(self->dict);
    Py_CLEAR(self->bound);
    return 0;
}

static void
dispatched_dealloc(Dispatched *self)
{
    PyObject_GC_UnTrack(self);
    dispatched_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
dispatched_get(PyObject *self, PyObject *instance, PyObject *owner)
{
    if (instance == NULL || instance == Py_None || ((Dispatched *)self)->bound != NULL) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, instance);
}

static PyObject *
dispatched_repr(PyObject *self)
{
    PyObject *name = PyObject_GetAttrString(self, "__qualname__");
    if (name == NULL) {
        PyErr_Clear();
        return PyUnicode_FromString("<bk dispatched kernel>");
    }
    PyObject *text = PyUnicode_FromFormat("<bk dispatched kernel %S>", name);
    Py_DECREF(name);
    return text;
}

static PyObject *
dispatched_reduce(PyObject *self, PyObject *unused)
{
    if (((Dispatched *)self)->bound != NULL) {  /* a bound copy: getattr(instance, name), as a bound method */
        PyObject *name = PyObject_GetAttrString(self, "__name__");
        PyObject *getattr = PyDict_GetItemString(PyEval_GetBuiltins(), "getattr");  /* borrowed */
        if (name == NULL || getattr == NULL) {
            Py_XDECREF(name);
            return NULL;
        }
        PyObject *result = Py_BuildValue("O(OO)", getattr, ((Dispatched *)self)->bound, name);
        Py_DECREF(name);
        return result;
    }
    /* pickled by reference, as functions are: `__module__` and the dotted `__qualname__` name it */
    return PyObject_GetAttrString(self, "__qualname__");
}

static PyMethodDef dispatched_methods[] = {
    {"bind", (PyCFunction)dispatched_bind, METH_O, "A copy bound to `instance`: called without it, as the bound method, without a method object in between."},
    {"__reduce__", dispatched_reduce, METH_NOARGS, "Pickled by reference to `__module__` and `__qualname__`."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef dispatched_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Dispatched, vectorcall), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(Dispatched, dict), READONLY, NULL},
    {"__self__", T_OBJECT, offsetof(Dispatched, bound), READONLY, "the instance of a bound copy (`bind`); None for the method"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef dispatched_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject DispatchedType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bk._fastplan.Dispatched",
    .tp_doc = "A kernel behind the one call path, with the plan lookup in C.",
    .tp_basicsize = sizeof(Dispatched),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = dispatched_new,
    .tp_dealloc = (destructor)dispatched_dealloc,
    .tp_traverse = (traverseproc)dispatched_traverse,
    .tp_clear = (inquiry)dispatched_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Dispatched, vectorcall),
    .tp_descr_get = dispatched_get,
    .tp_repr = dispatched_repr,
    .tp_dictoffset = offsetof(Dispatched, dict),
    .tp_members = dispatched_members,
    .tp_methods = dispatched_methods,
    .tp_getset = dispatched_getset,
};
