/* _augpy/warp.c: SCAFFOLD, replaced by the warp binding. */
#include "augpy.h"
int augpy_init_warp(PyObject *module, augpy_state *st) { return 0; }
