/* core/ctype.h: compute types for the core (private).
 *
 * The ctypes, the saturating per-element conversion and the exact helpers are
 * scalar/cast.h's (shared with every backend); this header adds the core's
 * element conversion and ctype names. */
#ifndef AUG_CORE_CTYPE_H
#define AUG_CORE_CTYPE_H

#include "scalar/cast.h"
#include "error.h"

AUG__HIDDEN const char *aug__ctype_name(int ctype);

/* Converts one element of ctype src_t at src to ctype dst_t at dst (saturating,
 * semantics §2); unknown ctypes do nothing. */
AUG__HIDDEN void aug__convert_one(const void *src, int src_t, void *dst, int dst_t);

#endif
