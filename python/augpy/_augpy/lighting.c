/* _augpy/lighting.c: SCAFFOLD, replaced by the lighting binding. */
#include "augpy.h"
int augpy_init_lighting(PyObject *module, augpy_state *st) { return 0; }
