/* core/blur.h: the blur plan handed to the backends (private). */
#ifndef AUG_CORE_BLUR_H
#define AUG_CORE_BLUR_H
#include "backend.h"
struct aug__blur_plan {
    const char *func;
};
#endif
