/* The direct call of bk's C front (see _fastplan.c): `DirectCall`, a kernel's fast call made of one framework call,
 * which tests its operands against tables derived from the plans. */
#include "_fastplan.h"

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

/* A fast call (`bk.rules.kernel(fast=...)`) that is one framework call: `DirectCall(function, tensor_type, dtypes,
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
    self->kwnames = arity != 0 ? NULL : device != NULL ? Py_BuildValue("(ss)", "dtype", "device") : Py_BuildValue("(s)", "dtype");
    if (self->dtypes == NULL || self->float_dtypes == NULL || self->int_dtypes == NULL || (arity == 0 && self->kwnames == NULL)) {
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

PyTypeObject DirectCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "bk._fastplan.DirectCall",
    .tp_doc = "A fast call that is one framework call, for tensors of a type and dtypes.",
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
