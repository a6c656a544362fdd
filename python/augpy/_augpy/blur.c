/* _augpy/blur.c: SCAFFOLD, replaced by the blur binding. */
#include "augpy.h"
int augpy_init_blur(PyObject *module, augpy_state *st) { return 0; }
