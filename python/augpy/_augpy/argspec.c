/* _augpy/argspec.c: the argument spec of a binding function, declared once.
 *
 * Each function or method that takes METH_FASTCALL | METH_KEYWORDS arguments
 * declares its parameters once, at file scope, as an augpy_sig (AUGPY_SIG):
 * names (with '|'-separated keyword aliases), defaults as Python text (NULL:
 * required) and keyword-only marks. That one spec drives
 *   - the parsing (augpy_parse_args binds arguments to slots; the counts come
 *     from the spec: sizeof at compile time, the required prefix once), and
 *   - the docstring: at module init augpy_sign_methods / augpy_sign_type writes
 *     "name(params)\n--\n\n" + the doc body into the PyMethodDef (or Py_tp_doc),
 *     which gives __text_signature__, help() and inspect.signature.
 * The .pyi stubs copy these docstrings (scripts/gen_pyi.py) and
 * tests/python/test_pyi_sync.py checks them against the runtime. */
#include <string.h>
#include "augpy.h"

/* ---- the required prefix ------------------------------------------------------- */

/* The parameters without a default form a prefix; -1 with SystemError otherwise. */
static int count_required(augpy_sig *sig) {
    int n = 0;
    while (n < sig->nparams && sig->params[n].dflt == NULL) n++;
    for (int i = n; i < sig->nparams; i++) {
        if (sig->params[i].dflt == NULL) {
            PyErr_Format(PyExc_SystemError, "augpy: %s: required parameter '%s' after one with a default",
                         sig->name, sig->params[i].name);
            return -1;
        }
    }
    sig->nrequired = n;
    return 0;
}

/* ---- positional and keyword arguments ------------------------------------------- */

static int name_matches(const char *names, const char *s, Py_ssize_t len) {
    const char *p = names;
    for (;;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if ((Py_ssize_t)n == len && memcmp(p, s, n) == 0) return 1;
        if (!bar) return 0;
        p = bar + 1;
    }
}

static const char *first_name(const char *names, char *buf, size_t len) {
    size_t n = strcspn(names, "|");
    if (n >= len) n = len - 1;
    memcpy(buf, names, n);
    buf[n] = '\0';
    return buf;
}

int augpy_parse_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, augpy_sig *sig,
                     PyObject **slots) {
    char buf[64];
    const augpy_param *params = sig->params;
    int nnames = sig->nparams;
    /* counted when the module signed its functions; a spec used by no table counts here once */
    if (sig->nrequired < 0 && count_required(sig) < 0) return -1;
    for (int i = 0; i < nnames; i++) slots[i] = NULL;
    if (nargs > sig->npos) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)", func, sig->npos,
                     nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) slots[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        Py_ssize_t len;
        const char *key = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(kwnames, k), &len);
        if (!key) return -1;
        int found = -1;
        for (int i = 0; i < nnames && found < 0; i++)
            if (name_matches(params[i].name, key, len)) found = i;
        if (found < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", func, key);
            return -1;
        }
        if (slots[found]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", func, key);
            return -1;
        }
        slots[found] = args[nargs + k];
    }
    for (int i = 0; i < sig->nrequired; i++) {
        if (!slots[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", func,
                         first_name(params[i].name, buf, sizeof buf), i + 1);
            return -1;
        }
    }
    return 0;
}

/* ---- docstrings ------------------------------------------------------------------ */

/* The docstrings built here (they live as long as the process, as the static
 * tables that point at them): a table already signed, by an earlier module
 * instance (a subinterpreter, a re-import), is left as it is. */
enum { MAX_BUILT = 512 };
static const char *built[MAX_BUILT];
static int nbuilt;

static int is_built(const char *doc) {
    for (int i = 0; i < nbuilt; i++)
        if (built[i] == doc) return 1;
    return 0;
}

/* Append s[0..n) to buf (cap bytes) at *len; the length is counted past cap. */
static void put(char *buf, size_t cap, size_t *len, const char *s, size_t n) {
    if (buf && *len + n < cap) memcpy(buf + *len, s, n);
    *len += n;
}

/* "name(params)\n--\n\n" + doc into buf (NULL: only measure); the length. */
static size_t render(const augpy_sig *sig, const char *doc, char *buf, size_t cap) {
    size_t len = 0;
    put(buf, cap, &len, sig->name, strlen(sig->name));
    put(buf, cap, &len, "(", 1);
    if (sig->method) put(buf, cap, &len, sig->nparams ? "$self, /, " : "$self, /", sig->nparams ? 10 : 8);
    for (int i = 0; i < sig->nparams; i++) {
        const augpy_param *p = &sig->params[i];
        if (i) put(buf, cap, &len, ", ", 2);
        if (i == sig->npos) put(buf, cap, &len, "*, ", 3);
        put(buf, cap, &len, p->name, strcspn(p->name, "|"));
        if (p->dflt) {
            put(buf, cap, &len, "=", 1);
            put(buf, cap, &len, p->dflt, strlen(p->dflt));
        }
    }
    put(buf, cap, &len, ")\n--\n\n", 6);
    put(buf, cap, &len, doc ? doc : "", doc ? strlen(doc) : 0);
    if (buf) buf[len] = '\0';
    return len;
}

/* The docstring of sig with body doc, or NULL with MemoryError / SystemError. */
static const char *build_doc(augpy_sig *sig, const char *doc) {
    if (sig->nrequired < 0 && count_required(sig) < 0) return NULL;
    if (nbuilt == MAX_BUILT) {
        PyErr_SetString(PyExc_SystemError, "augpy: more argument specs than MAX_BUILT");
        return NULL;
    }
    size_t len = render(sig, doc, NULL, 0);
    char *buf = PyMem_RawMalloc(len + 1);
    if (!buf) return (const char *)PyErr_NoMemory();
    render(sig, doc, buf, len + 1);
    built[nbuilt++] = buf;
    return buf;
}

int augpy_sign_methods(PyMethodDef *defs, augpy_sig *const *sigs) {
    for (augpy_sig *const *s = sigs; *s; s++) {
        PyMethodDef *def = defs;
        while (def->ml_name && strcmp(def->ml_name, (*s)->name) != 0) def++;
        if (!def->ml_name) {
            PyErr_Format(PyExc_SystemError, "augpy: argument spec '%s' has no method of that name", (*s)->name);
            return -1;
        }
        if (is_built(def->ml_doc)) continue;
        if (def->ml_doc && strstr(def->ml_doc, "\n--\n\n")) {
            PyErr_Format(PyExc_SystemError, "augpy: %s: the docstring has its own text signature", (*s)->name);
            return -1;
        }
        const char *doc = build_doc(*s, def->ml_doc);
        if (!doc) return -1;
        def->ml_doc = doc;
    }
    return 0;
}

int augpy_sign_type(PyType_Slot *slots, augpy_sig *sig) {
    PyType_Slot *slot = slots;
    while (slot->slot && slot->slot != Py_tp_doc) slot++;
    if (!slot->slot) {
        PyErr_Format(PyExc_SystemError, "augpy: type %s has no Py_tp_doc for its argument spec", sig->name);
        return -1;
    }
    if (is_built(slot->pfunc)) return 0;
    const char *doc = build_doc(sig, slot->pfunc);
    if (!doc) return -1;
    slot->pfunc = (void *)doc;
    return 0;
}
