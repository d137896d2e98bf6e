/* The C front of the one call path (optional: see `_dispatcher.py` and core/hatch_build.py), one extension
 * module built from four files that share `_fastplan.h`:
 *
 * - _fastplan_lookup.c: the key and the lookup. `Dispatched`, the method `dispatch(op, kernel)` puts in front of
 *   a kernel, builds a call's signature key as the Python dispatcher does, finds its plan in the operation's plan
 *   cache and calls the kernel directly where that plan is a plan of identities; a kernel's fast call comes first.
 * - _fastplan_direct.c: the direct call. `DirectCall`, a kernel's fast call that is one framework call
 *   (`bk.rules.framework_call`, `listed_call`, `factory_call`), tests its operands against its tables, which the
 *   core derives from the plans.
 * - _fastplan_namespace.c: the namespace's direct call. `Shortcut` sends the plain call of a `bk.array_namespace`
 *   function straight to its catalogue operation, every other call to the function's Python adapter.
 * - this file: the interned names, `key_of` (the key, for tests) and the module.
 *
 * None of them holds a rule: the pure-Python road is the reference, and tests/test_c_and_python_roads.py
 * compares the two.
 */
#include "_fastplan.h"

PyObject *precision_free_name, *direct_name, *shape_name, *dtype_name;

/* The offset of the slot `name` of `object`'s type (a `__slots__` member of object type), or -1. */
Py_ssize_t
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
