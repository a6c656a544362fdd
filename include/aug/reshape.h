/* aug/reshape.h: DALI reshape (issue 6). */
#ifndef AUG_RESHAPE_H
#define AUG_RESHAPE_H
#include "tensor.h"
#endif
