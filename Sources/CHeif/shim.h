#ifndef CULL_CHEIF_SHIM_H
#define CULL_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
