/* core/conventions.h: the private half of aug/conventions.h. */
#ifndef AUG_CORE_CONVENTIONS_H
#define AUG_CORE_CONVENTIONS_H

#include "aug/conventions.h"
#include "error.h"

/* The modes of a mask (bit 1 << mode). */
#define AUG__INTERP_BIT(m) (1u << (m))
/* AUG_OK when interp is one of `modes`; else AUG_ERR_VALUE "func: interpolation
 * 'area' is not supported (linear, nearest, cubic)" (a value out of range: "interpolation
 * 7 is not an aug_interp (...)"). */
AUG__HIDDEN aug_status aug__interp_check(const char *func, aug_interp interp, unsigned modes);

#endif
