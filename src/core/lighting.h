/* core/lighting.h: the lighting plan handed to the backends (private). */
#ifndef AUG_CORE_LIGHTING_H
#define AUG_CORE_LIGHTING_H
#include "backend.h"
struct aug__lighting_plan {
    const char *func;
};
#endif
