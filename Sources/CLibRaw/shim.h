#ifndef CULL_CLIBRAW_SHIM_H
#define CULL_CLIBRAW_SHIM_H
/* No pkgConfig for this target: libraw.pc lists -fopenmp among its flags, which the Swift
   driver does not take; the library's own dependencies (libstdc++, lcms2, gomp) come with
   libraw.so. */
#include <libraw/libraw.h>

/* The pixels of a processed image (a flexible array member, which Swift does not import). */
static inline const unsigned char *cull_libraw_image_data(const libraw_processed_image_t *image) { return image->data; }
#endif
