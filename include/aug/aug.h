/* aug/aug.h: umbrella header for the aug library. */
#ifndef AUG_AUG_H
#define AUG_AUG_H
#include "common.h"
#include "dtype.h"
#include "tensor.h"
#include "device.h"
#include "ops.h"
#include "random.h"
#include "reshape.h"
#include "conventions.h"
#include "image.h"
#include "targets.h"
#include "resize.h"
#include "colour.h"
#include "normalize.h"
#include "rrc.h"
#include "index.h"
#include "policy.h"
#endif
