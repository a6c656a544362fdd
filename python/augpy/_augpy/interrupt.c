/* _augpy/interrupt.c: Ctrl-C during long calls.
 *
 * A call that releases the GIL (AUGPY_CALL) cannot run Python's signal handlers:
 * CPython runs them in the main thread, with the GIL, between bytecodes. So while
 * the main thread is inside such a call, the library polls an interrupt check
 * (aug_set_interrupt_check) between tasks, about every 10 ms; the check takes the
 * GIL back for a moment and calls PyErr_CheckSignals(). When a handler raised
 * (KeyboardInterrupt for SIGINT), the check answers "stop": the call ends after
 * the tasks in flight and returns AUG_ERR_INTERRUPTED, and augpy_raise leaves the
 * handler's exception in place. The output then holds partial results. Other
 * threads never run signal handlers, so their calls get no check (and never wait
 * for the GIL in the middle of a call). */
#include "augpy.h"
#include <pythread.h>

static unsigned long g_main_ident;   /* ident of the main thread ... */
static unsigned long g_main_forks = (unsigned long)-1; /* ... as of this fork generation */

static int is_main_thread(void) {
    unsigned long forks = augpy_fork_generation();
    if (forks != g_main_forks) { /* first call, or a forked child (its forking thread is main now) */
        PyObject *threading = PyImport_ImportModule("threading");
        PyObject *main = threading ? PyObject_CallMethod(threading, "main_thread", NULL) : NULL;
        PyObject *ident = main ? PyObject_GetAttrString(main, "ident") : NULL;
        unsigned long id = ident ? PyLong_AsUnsignedLong(ident) : 0;
        int ok = ident && !PyErr_Occurred();
        Py_XDECREF(ident);
        Py_XDECREF(main);
        Py_XDECREF(threading);
        if (!ok) {
            PyErr_Clear(); /* no check rather than a failed call */
            return 0;
        }
        g_main_ident = id;
        g_main_forks = forks;
    }
    return PyThread_get_thread_ident() == g_main_ident;
}

static int check_signals(void *ctx) {
    (void)ctx;
    PyGILState_STATE gil = PyGILState_Ensure();
    int stop = PyErr_CheckSignals() < 0; /* the exception stays set on this thread */
    PyGILState_Release(gil);
    return stop;
}

void augpy_interrupt_begin(augpy_interrupt_scope *scope) {
    scope->installed = 0;
    if (!is_main_thread()) return;
    aug_get_interrupt_check(&scope->saved, &scope->saved_ctx);
    aug_set_interrupt_check(check_signals, NULL);
    scope->installed = 1;
}

void augpy_interrupt_end(augpy_interrupt_scope *scope) {
    if (scope->installed) aug_set_interrupt_check(scope->saved, scope->saved_ctx);
}
