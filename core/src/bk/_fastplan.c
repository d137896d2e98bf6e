/* The C front of the one call path (optional: see `_dispatcher.py` and core/hatch_build.py).
 *
 * A `Dispatched` is the method that `dispatch(op, kernel)` puts in front of a kernel: a method
 * descriptor, like a Python function in a class body. Called as `backend.op(*args)` without
 * keywords while no precision is set (`settings.precision_free`), it builds the call's signature key
 * exactly as the Python dispatcher does (`_operand_part` / `_value_part` in `_dispatcher.py`) for
 * the arguments it can describe, and looks the plan up in the operation's plan cache (the same dict
 * the Python dispatcher fills):
 *
 * First, where the kernel declares a fast path (`bk.rules.fast_path`): `fast(backend, *args)`, its
 * result unless it is NotImplemented (a call the fast path leaves to the plan). Then:
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
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

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
    PyObject *fast;      /* the kernel's declared fast path, fast(backend, *args) -> result or NotImplemented; or NULL */
    vectorcallfunc fast_call;  /* `fast`'s vectorcall function, called directly (no generic call in between), or NULL */
    int elementwise;
    PyObject *dict;
    PyObject *bound;  /* the instance of a bound copy (`bind`), or NULL */
    vectorcallfunc vectorcall;
} Dispatched;

static PyObject *precision_free_name, *direct_name, *shape_name, *dtype_name;

#define MAX_ARGS 8

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
static PyObject *
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

/* Whether no precision is set (`settings.precision_free`, read from its slot at `offset` where it has one, else
 * looked up): 1 or 0, -1 with an exception set. */
static int
precision_is_free(PyObject *settings, Py_ssize_t offset)
{
    if (offset >= 0) {  /* the slot itself: no attribute lookup on every call */
        return *(PyObject **)((char *)settings + offset) == Py_True;
    }
    PyObject *flag = PyObject_GetAttr(settings, precision_free_name);
    if (flag == NULL) {
        return -1;
    }
    Py_DECREF(flag);  /* settings keeps it alive */
    return flag == Py_True;
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

/* A kernel (or fast path) called with (backend, *args) failed with the exception set: `failed` explains it. */
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

/* The offset of the slot `name` of `object`'s type (a `__slots__` member of object type), or -1. */
static Py_ssize_t
slot_offset(PyObject *object, PyObject *name)
{
    PyObject *descriptor = _PyType_Lookup(Py_TYPE(object), name);  /* borrowed */
    if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type)) {
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
    return member->type == T_OBJECT_EX || member->type == T_OBJECT ? member->offset : -1;
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

static PyTypeObject DispatchedType = {
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

static PyTypeObject ShortcutType = {
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

/* An attribute of a type's instances read through the type's data descriptor, found once: `getter` (borrowed
 * from the type) is valid while the type's version tag is `tag` (0: not found yet). */
typedef struct {
    PyObject *getter;
    unsigned int tag;
} CachedAttribute;

/* A table keyed by object identity (a framework's dtypes are singletons, and hashing one can cost more than a
 * small kernel: NumPy computes a dtype's hash each time, and scanning a frozenset's entries costs as much again),
 * at most half full. Keys and values are borrowed from the frozenset or dict it was built from, which its owner
 * keeps; an empty table (`keys` NULL) finds nothing. */
typedef struct {
    PyObject **keys;    /* `mask + 1` keys, then as many values, in one block */
    size_t mask;
} IdentityTable;

static inline size_t
identity_slot(PyObject *key, size_t mask)
{
    uintptr_t bits = (uintptr_t)key;
    return (size_t)((bits >> 4) ^ (bits >> 9)) & mask;
}

/* The value of `key` (borrowed), or NULL. */
static inline PyObject *
identity_find(const IdentityTable *table, PyObject *key)
{
    if (table->keys == NULL) {
        return NULL;
    }
    size_t i = identity_slot(key, table->mask);
    while (table->keys[i] != NULL) {
        if (table->keys[i] == key) {
            return table->keys[table->mask + 1 + i];
        }
        i = (i + 1) & table->mask;
    }
    return NULL;
}

/* Fills `table` (empty) from a frozenset (each member its own value) or a dict; -1 with MemoryError set. */
static int
identity_build(IdentityTable *table, PyObject *source)
{
    int is_dict = PyDict_Check(source);
    Py_ssize_t size = is_dict ? PyDict_GET_SIZE(source) : PySet_GET_SIZE(source);
    size_t slots = 4;
    while (slots < 2 * (size_t)size) {
        slots *= 2;
    }
    table->keys = PyMem_Calloc(2 * slots, sizeof(PyObject *));
    if (table->keys == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    table->mask = slots - 1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    Py_hash_t hash;
    while (is_dict ? PyDict_Next(source, &pos, &key, &value) : _PySet_NextEntry(source, &pos, &key, &hash)) {
        size_t i = identity_slot(key, table->mask);
        while (table->keys[i] != NULL) {
            i = (i + 1) & table->mask;
        }
        table->keys[i] = key;
        table->keys[slots + i] = is_dict ? value : key;
    }
    return 0;
}

/* A fast path (`bk.rules.fast_path`) that is one framework call: `DirectCall(function, tensor_type, dtypes,
 * arity, float_dtypes)` called as (backend, *tensors) returns `function(*tensors)` for `arity` tensors (one,
 * or two of equal dtypes) of exactly `tensor_type` whose dtype (`x.dtype`) is in `dtypes` (None, for one tensor:
 * any dtype, not read), and for a tensor and a Python float after it where the tensor's dtype is in
 * `float_dtypes` (a weak float keeps it, NEP 50), and for a tensor and a Python int after it where the tensor's
 * dtype is a key of `int_dtypes` (dtype -> (low, high)) and the int lies in [low, high]; with `check` (name,
 * value), only where the first tensor's attribute `name` is `value` (PyTorch's `layout`: strided);
 * NotImplemented for everything else. With `derive` (a callable), the tables start empty and grow: the first time
 * a call's first tensor has a dtype not asked about yet, `derive(backend, tensor)` returns `(tensors, floats, ints)`
 * for its dtype (serves one or two tensors of it; a Python float beside it; the `(low, high)` of the Python ints
 * beside it, or None), the tables take them, and the call is tried again (`bk.rules.framework_call`).
 * With `arity` 0 it is the fast call of a creation operation `op(shape, dtype)` (`bk.rules.factory_call`): called as
 * (backend, shape, dtype) for a tuple `shape` and a `dtype` that is a key of `dtypes` (a dict: `DType` -> the
 * framework's dtype), it returns `function(shape, dtype=dtypes[dtype])`, the sizes apart with `sizes_apart`
 * (`function(*shape, ...)`, a 0-d shape as `()`), with `device` (a tuple of attribute names) `device=` the backend's
 * attribute at that path, read at each call. */
typedef struct {
    PyObject_HEAD
    PyObject *function;
    PyObject *tensor_type;
    PyObject *dtypes;        /* frozenset */
    PyObject *float_dtypes;  /* frozenset */
    PyObject *int_dtypes;    /* dict: dtype -> (low, high) */
    PyObject *check_name;    /* an attribute of the first tensor, or NULL */
    PyObject *check_value;   /* the value it must be (identity) */
    int arity;               /* 1 or 2 tensors */
    vectorcallfunc function_call;  /* `function`'s vectorcall function, called directly, or NULL */
    CachedAttribute dtype;   /* `x.dtype` */
    IdentityTable dtype_table, float_table, int_table;  /* `dtypes`, `float_dtypes` and `int_dtypes` by identity */
    CachedAttribute check;   /* `x.<check_name>` */
    PyObject *derive;        /* learns a dtype's entries the first time a call misses it, or NULL (tables by hand) */
    PyObject *seen;          /* dict: the dtypes `derive` was asked about */
    PyObject *device_path;   /* arity 0: the tuple of attribute names of the backend's device, or NULL */
    PyObject *kwnames;       /* arity 0: ("dtype",) or ("dtype", "device") */
    int sizes_apart;         /* arity 0: the shape's sizes as positional arguments */
    PyObject *dict;
    vectorcallfunc vectorcall;
} DirectCall;

/* Whether `dtype` is in the frozenset `set`, whose identity table is `table`: by identity first (see
 * `IdentityTable`), then by the set's own lookup (equal dtype objects: array-api-strict makes one per array). */
static int
dtype_member(PyObject *dtype, PyObject *set, const IdentityTable *table)
{
    if (identity_find(table, dtype) != NULL) {
        return 1;
    }
    int found = PySet_Contains(set, dtype);
    if (found < 0) {
        PyErr_Clear();
        found = 0;
    }
    return found;
}

/* `x.name` (a new reference) for `x` of exactly the type `type`: the type's data descriptor called directly while
 * the type is unchanged since it was looked up (its version tag), which skips the generic attribute lookup
 * (PyTorch's `dtype` and `layout` are getters that cost little; finding them costs as much again); else
 * `PyObject_GetAttr`. */
static PyObject *
cached_attribute(CachedAttribute *cache, PyTypeObject *type, PyObject *x, PyObject *name)
{
    if (cache->tag == 0 || !(type->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) || type->tp_version_tag != cache->tag) {
        PyObject *descriptor = _PyType_Lookup(type, name);  /* borrowed; assigns the version tag */
        cache->getter = NULL;
        cache->tag = 0;
        if (descriptor == NULL || Py_TYPE(descriptor)->tp_descr_get == NULL || Py_TYPE(descriptor)->tp_descr_set == NULL
            || !(type->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) {
            return PyObject_GetAttr(x, name);
        }
        cache->getter = descriptor;  /* a data descriptor: it wins over the instance's `__dict__` */
        cache->tag = type->tp_version_tag;
    }
    return Py_TYPE(cache->getter)->tp_descr_get(cache->getter, x, (PyObject *)type);
}

static PyObject *
direct_dtype(DirectCall *self, PyObject *x)
{
    return cached_attribute(&self->dtype, (PyTypeObject *)self->tensor_type, x, dtype_name);
}

static int
direct_dtype_in(DirectCall *self, PyObject *x, PyObject *set, const IdentityTable *table, PyObject **dtype)
{
    *dtype = direct_dtype(self, x);
    if (*dtype == NULL) {
        PyErr_Clear();
        return 0;
    }
    return dtype_member(*dtype, set, table);
}

/* `function(*args)`, called directly where it has a vectorcall function. */
static inline PyObject *
direct_function(DirectCall *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return self->function_call != NULL ? self->function_call(self->function, args, nargs, kwnames) : PyObject_Vectorcall(self->function, args, nargs, kwnames);
}

/* A new frozenset: `set` with `item`. */
static PyObject *
frozenset_with(PyObject *set, PyObject *item)
{
    PyObject *grown = PySet_New(set);
    if (grown == NULL || PySet_Add(grown, item) < 0) {
        Py_XDECREF(grown);
        return NULL;
    }
    PyObject *frozen = PyFrozenSet_New(grown);
    Py_DECREF(grown);
    return frozen;
}

/* Asks `derive(backend, tensor)` about the dtype of `tensor` once and adds its entries to the tables. 1 when the
 * tables changed (the call is worth trying again), 0 when not, -1 with an error set. */
static int
direct_learn(DirectCall *self, PyObject *backend, PyObject *tensor)
{
    PyObject *dtype = direct_dtype(self, tensor);
    if (dtype == NULL) {
        PyErr_Clear();
        return 0;
    }
    int known = PyDict_Contains(self->seen, dtype);
    if (known != 0 || PyDict_SetItem(self->seen, dtype, Py_True) < 0) {
        Py_DECREF(dtype);
        return known < 0 ? -1 : (known ? 0 : -1);
    }
    PyObject *entry = PyObject_CallFunctionObjArgs(self->derive, backend, tensor, NULL);
    if (entry == NULL) {
        Py_DECREF(dtype);
        return -1;
    }
    if (!PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) != 3) {
        Py_DECREF(entry);
        Py_DECREF(dtype);
        PyErr_SetString(PyExc_TypeError, "DirectCall: derive(backend, tensor) must return (bool, bool, (low, high) or None)");
        return -1;
    }
    int tensors = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 0)), floats = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1));
    PyObject *bounds = PyTuple_GET_ITEM(entry, 2);
    int failed = tensors < 0 || floats < 0;
    if (!failed && tensors) {
        PyObject *grown = frozenset_with(self->dtypes, dtype);
        failed = grown == NULL;
        if (!failed) {
            Py_SETREF(self->dtypes, grown);
        }
    }
    if (!failed && floats) {
        PyObject *grown = frozenset_with(self->float_dtypes, dtype);
        failed = grown == NULL;
        if (!failed) {
            Py_SETREF(self->float_dtypes, grown);
        }
    }
    if (!failed && bounds != Py_None) {
        failed = PyDict_SetItem(self->int_dtypes, dtype, bounds) < 0;
    }
    Py_DECREF(entry);
    Py_DECREF(dtype);
    if (failed) {
        return -1;
    }
    if (!(tensors || floats || bounds != Py_None)) {
        return 0;
    }
    PyMem_Free(self->dtype_table.keys);
    PyMem_Free(self->float_table.keys);
    PyMem_Free(self->int_table.keys);
    self->dtype_table.keys = self->float_table.keys = self->int_table.keys = NULL;
    if (identity_build(&self->dtype_table, self->dtypes) < 0 || identity_build(&self->float_table, self->float_dtypes) < 0
        || identity_build(&self->int_table, self->int_dtypes) < 0) {
        return -1;
    }
    return 1;
}

static PyObject *direct_try(DirectCall *self, PyObject *const *args, Py_ssize_t nargs);

/* The creation call of (backend, shape, dtype) (`arity` 0): `function(shape or *sizes, dtype=..., device=...)`, or
 * NotImplemented for a shape that is no tuple, a dtype `dtypes` does not map, or a device path the backend lacks. */
static PyObject *
factory_try(DirectCall *self, PyObject *const *args)
{
    PyObject *shape = args[1];
    if (!PyTuple_CheckExact(shape)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *native = identity_find(&self->dtype_table, args[2]);  /* borrowed; DTypes are interned */
    if (native == NULL) {
        native = PyDict_GetItemWithError(self->dtypes, args[2]);
        if (native == NULL) {
            PyErr_Clear();  /* an unhashable dtype argument: the plan says what is wrong */
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    Py_ssize_t sizes = PyTuple_GET_SIZE(shape);
    PyObject *stack[MAX_ARGS + 2];
    Py_ssize_t positional = 1;
    if (self->sizes_apart && sizes > 0) {
        if (sizes > MAX_ARGS) {
            Py_RETURN_NOTIMPLEMENTED;
        }
        for (Py_ssize_t i = 0; i < sizes; i++) {
            stack[i] = PyTuple_GET_ITEM(shape, i);
        }
        positional = sizes;
    }
    else {
        stack[0] = shape;
    }
    stack[positional] = native;
    PyObject *device = NULL;
    if (self->device_path != NULL) {
        device = Py_NewRef(args[0]);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self->device_path) && device != NULL; i++) {
            Py_SETREF(device, PyObject_GetAttr(device, PyTuple_GET_ITEM(self->device_path, i)));
        }
        if (device == NULL) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
        stack[positional + 1] = device;
    }
    PyObject *result = direct_function(self, stack, positional, self->kwnames);
    Py_XDECREF(device);
    return result;
}

static PyObject *
direct_vectorcall(DirectCall *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || nargs != (self->arity ? self->arity + 1 : 3)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (self->arity == 0) {
        return factory_try(self, args);
    }
    PyObject *result = direct_try(self, args, nargs);
    if (result != Py_NotImplemented || self->derive == NULL || (PyObject *)Py_TYPE(args[1]) != self->tensor_type) {
        return result;
    }
    int learned = direct_learn(self, args[0], args[1]);  /* a miss: the dtype may be new */
    if (learned <= 0) {
        if (learned < 0) {
            Py_DECREF(result);
            return NULL;
        }
        return result;
    }
    Py_DECREF(result);
    return direct_try(self, args, nargs);
}

/* The call as the tables say: `function(*tensors)`, or NotImplemented. */
static PyObject *
direct_try(DirectCall *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (self->check_name != NULL && (PyObject *)Py_TYPE(args[1]) == self->tensor_type) {
        PyObject *value = cached_attribute(&self->check, (PyTypeObject *)self->tensor_type, args[1], self->check_name);
        if (value == NULL) {
            PyErr_Clear();
            Py_RETURN_NOTIMPLEMENTED;
        }
        Py_DECREF(value);  /* compared by identity only */
        if (value != self->check_value) {
            Py_RETURN_NOTIMPLEMENTED;
        }
    }
    if (nargs == 2 && (PyObject *)Py_TYPE(args[1]) == self->tensor_type) {
        if (self->dtypes == Py_None) {  /* any dtype: `function` gives the spec's result for each */
            return direct_function(self, args + 1, 1, NULL);
        }
        PyObject *dtype;
        int found = direct_dtype_in(self, args[1], self->dtypes, &self->dtype_table, &dtype);
        Py_XDECREF(dtype);
        if (found) {
            return direct_function(self, args + 1, 1, NULL);
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (nargs == 3) {
        PyObject *a = args[1], *b = args[2];
        int a_tensor = (PyObject *)Py_TYPE(a) == self->tensor_type, b_tensor = (PyObject *)Py_TYPE(b) == self->tensor_type;
        if (a_tensor && b_tensor) {
            PyObject *dtype_a, *dtype_b = NULL;
            int found = direct_dtype_in(self, a, self->dtypes, &self->dtype_table, &dtype_a);
            if (found) {
                dtype_b = direct_dtype(self, b);
                if (dtype_b == NULL) {
                    PyErr_Clear();
                }
                found = dtype_b == dtype_a;
                if (!found && dtype_b != NULL) {  /* equal dtype objects (array-api-strict makes one per array) */
                    found = PyObject_RichCompareBool(dtype_a, dtype_b, Py_EQ);
                    if (found < 0) {
                        PyErr_Clear();
                        found = 0;
                    }
                }
            }
            Py_XDECREF(dtype_a);
            Py_XDECREF(dtype_b);
            if (found) {
                return direct_function(self, args + 1, 2, NULL);
            }
        }
        else if (a_tensor && PyFloat_CheckExact(b)) {  /* the tensor first: frameworks take a number second */
            PyObject *dtype;
            int found = direct_dtype_in(self, a, self->float_dtypes, &self->float_table, &dtype);
            Py_XDECREF(dtype);
            if (found) {
                return direct_function(self, args + 1, 2, NULL);
            }
        }
        else if (a_tensor && PyLong_CheckExact(b) && PyDict_GET_SIZE(self->int_dtypes)) {  /* a weak Python int in the range its tensor's dtype takes */
            int overflow;
            long long value = PyLong_AsLongLongAndOverflow(b, &overflow);
            if (overflow || (value == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                Py_RETURN_NOTIMPLEMENTED;
            }
            int found = 0;
            PyObject *dtype = direct_dtype(self, a);
            if (dtype == NULL) {
                PyErr_Clear();
            }
            else {
                PyObject *bounds = identity_find(&self->int_table, dtype);  /* borrowed; by identity first, as `dtype_member` */
                if (bounds == NULL) {
                    bounds = PyDict_GetItemWithError(self->int_dtypes, dtype);
                }
                if (bounds != NULL && PyTuple_CheckExact(bounds) && PyTuple_GET_SIZE(bounds) == 2) {
                    long long low = PyLong_AsLongLong(PyTuple_GET_ITEM(bounds, 0));
                    long long high = PyLong_AsLongLong(PyTuple_GET_ITEM(bounds, 1));
                    found = !PyErr_Occurred() && low <= value && value <= high;
                }
                PyErr_Clear();
            }
            Py_XDECREF(dtype);
            if (found) {
                return direct_function(self, args + 1, 2, NULL);
            }
        }
    }
    Py_RETURN_NOTIMPLEMENTED;
}

static PyObject *
direct_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"function", "tensor_type", "dtypes", "arity", "float_dtypes", "int_dtypes", "check", "derive", "sizes_apart", "device", NULL};
    PyObject *function, *tensor_type, *dtypes, *float_dtypes = NULL, *int_dtypes = NULL, *check = NULL, *derive = NULL, *device = NULL;
    int arity, sizes_apart = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOi|O!O!OOpO", keywords, &function, &tensor_type, &dtypes, &arity, &PyFrozenSet_Type, &float_dtypes, &PyDict_Type, &int_dtypes, &check, &derive,
                                     &sizes_apart, &device)) {
        return NULL;
    }
    derive = derive == Py_None ? NULL : derive;
    device = device == Py_None ? NULL : device;
    if (arity == 0) {  /* a creation call: (backend, shape, dtype) */
        int names = device == NULL || PyTuple_CheckExact(device);
        for (Py_ssize_t i = 0; names && device != NULL && i < PyTuple_GET_SIZE(device); i++) {
            names = PyUnicode_CheckExact(PyTuple_GET_ITEM(device, i));
        }
        if (!PyCallable_Check(function) || !PyDict_CheckExact(dtypes) || !names || derive != NULL || (check != NULL && check != Py_None)) {
            PyErr_SetString(PyExc_TypeError, "DirectCall(function, None, dtypes, 0, sizes_apart=False, device=None): a callable, a dict DType -> dtype, a tuple of attribute names");
            return NULL;
        }
    }
    else if (derive != NULL && (!PyCallable_Check(derive) || !PyFrozenSet_CheckExact(dtypes))) {
        PyErr_SetString(PyExc_TypeError, "DirectCall: derive must be callable, with dtypes a frozenset (the tables until derived)");
        return NULL;
    }
    check = check == Py_None ? NULL : check;
    if (check != NULL && !(PyTuple_CheckExact(check) && PyTuple_GET_SIZE(check) == 2 && PyUnicode_Check(PyTuple_GET_ITEM(check, 0)))) {
        PyErr_SetString(PyExc_TypeError, "DirectCall: check must be None or (attribute name, value)");
        return NULL;
    }
    if (arity != 0
        && (!PyCallable_Check(function) || !PyType_Check(tensor_type) || arity < 1 || arity > 2
            || !(PyFrozenSet_CheckExact(dtypes) || (dtypes == Py_None && arity == 1)))) {
        PyErr_SetString(PyExc_TypeError, "DirectCall(function, tensor_type, dtypes, arity, float_dtypes=frozenset(), int_dtypes={}): a callable, a type, a frozenset (or None: any dtype, for 1 tensor), 1 or 2 tensors, a frozenset, a dict");
        return NULL;
    }
    DirectCall *self = (DirectCall *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->function = Py_NewRef(function);
    self->tensor_type = Py_NewRef(tensor_type);
    self->dtypes = arity == 0 ? PyDict_Copy(dtypes) : Py_NewRef(dtypes);
    self->arity = arity;
    self->float_dtypes = float_dtypes != NULL ? Py_NewRef(float_dtypes) : PyFrozenSet_New(NULL);
    self->int_dtypes = int_dtypes != NULL ? PyDict_Copy(int_dtypes) : PyDict_New();
    self->check_name = check != NULL ? Py_NewRef(PyTuple_GET_ITEM(check, 0)) : NULL;
    self->check_value = check != NULL ? Py_NewRef(PyTuple_GET_ITEM(check, 1)) : NULL;
    self->sizes_apart = sizes_apart;
    self->device_path = Py_XNewRef(device);
    self->kwnames = device != NULL ? Py_BuildValue("(ss)", "dtype", "device") : Py_BuildValue("(s)", "dtype");
    if (self->dtypes == NULL || self->float_dtypes == NULL || self->int_dtypes == NULL || self->kwnames == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    if ((self->dtypes != Py_None && identity_build(&self->dtype_table, self->dtypes) < 0) || identity_build(&self->float_table, self->float_dtypes) < 0
        || identity_build(&self->int_table, self->int_dtypes) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    self->derive = derive != NULL ? Py_NewRef(derive) : NULL;
    self->seen = derive != NULL ? PyDict_New() : NULL;
    if (derive != NULL && self->seen == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    self->function_call = PyVectorcall_Function(function);
    self->vectorcall = (vectorcallfunc)direct_vectorcall;
    return (PyObject *)self;
}

static int
direct_traverse(DirectCall *self, visitproc visit, void *arg)
{
    Py_VISIT(self->function);
    Py_VISIT(self->tensor_type);
    Py_VISIT(self->dtypes);
    Py_VISIT(self->float_dtypes);
    Py_VISIT(self->int_dtypes);
    Py_VISIT(self->check_name);
    Py_VISIT(self->check_value);
    Py_VISIT(self->derive);
    Py_VISIT(self->seen);
    Py_VISIT(self->device_path);
    Py_VISIT(self->kwnames);
    Py_VISIT(self->dict);
    return 0;
}

static int
direct_clear(DirectCall *self)
{
    Py_CLEAR(self->function);
    Py_CLEAR(self->tensor_type);
    Py_CLEAR(self->dtypes);
    Py_CLEAR(self->float_dtypes);
    Py_CLEAR(self->int_dtypes);
    Py_CLEAR(self->check_name);
    Py_CLEAR(self->check_value);
    Py_CLEAR(self->derive);
    Py_CLEAR(self->seen);
    Py_CLEAR(self->device_path);
    Py_CLEAR(self->kwnames);
    Py_CLEAR(self->dict);
    return 0;
}

static void
direct_dealloc(DirectCall *self)
{
    PyObject_GC_UnTrack(self);
    direct_clear(self);
    PyMem_Free(self->dtype_table.keys);
    PyMem_Free(self->float_table.keys);
    PyMem_Free(self->int_table.keys);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef direct_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(DirectCall, vectorcall), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(DirectCall, dict), READONLY, NULL},
    {"function", T_OBJECT, offsetof(DirectCall, function), READONLY, "the framework's function"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject DirectCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bk._fastplan.DirectCall",
    .tp_doc = "A fast path that is one framework call, for tensors of a type and dtypes.",
    .tp_basicsize = sizeof(DirectCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = direct_new,
    .tp_dealloc = (destructor)direct_dealloc,
    .tp_traverse = (traverseproc)direct_traverse,
    .tp_clear = (inquiry)direct_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(DirectCall, vectorcall),
    .tp_dictoffset = offsetof(DirectCall, dict),
    .tp_members = direct_members,
};

static PyObject *
key_of(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    /* key_of(elementwise, dtype_type, backend, *values): the key the C front builds, or None (for tests) */
    if (nargs < 3) {
        PyErr_SetString(PyExc_TypeError, "key_of(elementwise, dtype_type, backend, *values)");
        return NULL;
    }
    int elementwise = PyObject_IsTrue(args[0]);
    if (elementwise < 0) {
        return NULL;
    }
    PyObject *key = signature_key(args + 2, nargs - 2, elementwise, args[1]);
    if (key == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    return key;
}

static PyMethodDef module_methods[] = {
    {"key_of", (PyCFunction)(void (*)(void))key_of, METH_FASTCALL, "The signature key the C front builds for (backend, *values), or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastplan", "The C front of bk's one call path.", -1, module_methods,
};

PyMODINIT_FUNC
PyInit__fastplan(void)
{
    precision_free_name = PyUnicode_InternFromString("precision_free");
    direct_name = PyUnicode_InternFromString("direct");
    shape_name = PyUnicode_InternFromString("shape");
    dtype_name = PyUnicode_InternFromString("dtype");
    if (precision_free_name == NULL || direct_name == NULL || shape_name == NULL || dtype_name == NULL || PyType_Ready(&DispatchedType) < 0
        || PyType_Ready(&ShortcutType) < 0 || PyType_Ready(&DirectCallType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "Dispatched", (PyObject *)&DispatchedType) < 0 || PyModule_AddObjectRef(m, "Shortcut", (PyObject *)&ShortcutType) < 0
        || PyModule_AddObjectRef(m, "DirectCall", (PyObject *)&DirectCallType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
