/* _augpy/random.c: SCAFFOLD, replaced by the random binding. */
#include "augpy.h"
int augpy_init_random(PyObject *module, augpy_state *st) { return 0; }
