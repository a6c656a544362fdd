/* _augpy/reshape.c: SCAFFOLD, replaced by the reshape binding. */
#include "augpy.h"
int augpy_init_reshape(PyObject *module, augpy_state *st) { return 0; }
