/* aug/random.h: random fills (issue 5). */
#ifndef AUG_RANDOM_H
#define AUG_RANDOM_H
#include "tensor.h"
#endif
