/* core/random.h: the random plan handed to the backends (private). */
#ifndef AUG_CORE_RANDOM_H
#define AUG_CORE_RANDOM_H
#include "backend.h"
struct aug__random_plan {
    const char *func;
};
#endif
