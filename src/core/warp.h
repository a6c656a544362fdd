/* core/warp.h: the warp plan handed to the backends (private). */
#ifndef AUG_CORE_WARP_H
#define AUG_CORE_WARP_H
#include "backend.h"
struct aug__warp_plan {
    const char *func;
};
#endif
