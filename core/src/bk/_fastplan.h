/* What the parts of bk's C front share (the whole is described in _fastplan.c). */
#ifndef BK_FASTPLAN_H
#define BK_FASTPLAN_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* The most arguments after the backend that the C front takes; a longer call takes the Python road. */
#define MAX_ARGS 8

/* A name the parts of the one extension module share, which the module does not export. */
#if defined(__GNUC__) || defined(__clang__)
#define FASTPLAN_SHARED __attribute__((visibility("hidden")))
#else
#define FASTPLAN_SHARED
#endif

/* Interned attribute names, made when the module is imported (_fastplan.c). */
FASTPLAN_SHARED extern PyObject *precision_free_name, *direct_name, *shape_name, *dtype_name;

/* The front's three types, each in its own file. */
FASTPLAN_SHARED extern PyTypeObject DispatchedType; /* _fastplan_lookup.c: the key and the lookup */
FASTPLAN_SHARED extern PyTypeObject DirectCallType; /* _fastplan_direct.c: a kernel's direct (fast) call */
FASTPLAN_SHARED extern PyTypeObject ShortcutType;   /* _fastplan_namespace.c: the namespace's direct call */

/* The signature key of (backend, *args), or NULL without an exception where an argument is not described
 * (_fastplan_lookup.c). */
FASTPLAN_SHARED PyObject *signature_key(PyObject *const *args, Py_ssize_t nargs, int elementwise, PyObject *dtype_type);

/* The offset of the slot `name` of `object`'s type (a `__slots__` member of object type), or -1 (_fastplan.c). */
FASTPLAN_SHARED Py_ssize_t slot_offset(PyObject *object, PyObject *name);

/* Whether no precision is set (`settings.precision_free`, read from its slot at `offset` where it has one, else
 * looked up): 1 or 0, -1 with an exception set. Inline in each part: every call of the front reads it. */
static inline int
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

#endif
