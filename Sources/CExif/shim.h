#ifndef CULL_CEXIF_SHIM_H
#define CULL_CEXIF_SHIM_H
#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>
#include <stddef.h>

/* The entry for `tag` in one IFD of `data` (NULL if that IFD lacks it). ExifData's `ifd`
   member is a fixed-size C array, which Swift sees as a tuple: a helper indexes it. */
static inline ExifEntry *cull_exif_entry(ExifData *data, ExifIfd ifd, ExifTag tag) {
    if (!data || ifd < 0 || ifd >= EXIF_IFD_COUNT || !data->ifd[ifd]) return NULL;
    return exif_content_get_entry(data->ifd[ifd], tag);
}
#endif
