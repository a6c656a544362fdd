/* _augpy/jpeg.c: SCAFFOLD, replaced by the jpeg binding. */
#include "augpy.h"
int augpy_init_jpeg(PyObject *module, augpy_state *st) { return 0; }
