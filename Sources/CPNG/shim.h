#ifndef CULL_CPNG_SHIM_H
#define CULL_CPNG_SHIM_H
#include <png.h>
#endif
