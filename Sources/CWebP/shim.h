#ifndef CULL_CWEBP_SHIM_H
#define CULL_CWEBP_SHIM_H
#include <webp/decode.h>
#include <webp/encode.h>
#endif
