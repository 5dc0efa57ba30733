#ifndef CULL_CTIFF_SHIM_H
#define CULL_CTIFF_SHIM_H
#include <tiffio.h>
#include <string.h>

/* libtiff reads through callbacks; these read a TIFF held in memory (the worker has read the
   whole file already). TIFFGetField is variadic, which Swift cannot call: typed wrappers. */

typedef struct {
    const unsigned char *data;
    tmsize_t size;
    toff_t offset;
} cull_tiff_memory;

static inline tmsize_t cull_tiff_read(thandle_t handle, void *buffer, tmsize_t count) {
    cull_tiff_memory *memory = (cull_tiff_memory *)handle;
    if (count <= 0 || memory->offset >= (toff_t)memory->size) return 0;
    tmsize_t left = memory->size - (tmsize_t)memory->offset;
    if (count > left) count = left;
    memcpy(buffer, memory->data + memory->offset, (size_t)count);
    memory->offset += (toff_t)count;
    return count;
}

static inline tmsize_t cull_tiff_write(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle; (void)buffer; (void)count;
    return 0;
}

static inline toff_t cull_tiff_seek(thandle_t handle, toff_t offset, int whence) {
    cull_tiff_memory *memory = (cull_tiff_memory *)handle;
    toff_t base = whence == SEEK_CUR ? memory->offset : whence == SEEK_END ? (toff_t)memory->size : 0;
    memory->offset = base + offset;
    return memory->offset;
}

static inline int cull_tiff_close(thandle_t handle) { (void)handle; return 0; }

static inline toff_t cull_tiff_size(thandle_t handle) { return (toff_t)((cull_tiff_memory *)handle)->size; }

static inline int cull_tiff_map(thandle_t handle, void **base, toff_t *size) {
    cull_tiff_memory *memory = (cull_tiff_memory *)handle;
    *base = (void *)memory->data;
    *size = (toff_t)memory->size;
    return 1;
}

static inline void cull_tiff_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }

/* Opens the TIFF in `memory` for reading; NULL if its header is unreadable. */
static inline TIFF *cull_tiff_open(cull_tiff_memory *memory) {
    return TIFFClientOpen("memory", "r", (thandle_t)memory, cull_tiff_read, cull_tiff_write, cull_tiff_seek,
                          cull_tiff_close, cull_tiff_size, cull_tiff_map, cull_tiff_unmap);
}

static inline int cull_tiff_uint32(TIFF *tiff, uint32_t tag, uint32_t *value) { return TIFFGetField(tiff, tag, value); }
static inline int cull_tiff_uint16(TIFF *tiff, uint32_t tag, uint16_t *value) { return TIFFGetField(tiff, tag, value); }
static inline int cull_tiff_uint64(TIFF *tiff, uint32_t tag, uint64_t *value) { return TIFFGetField(tiff, tag, value); }
/* The sub-directories a directory lists (SubIFDs), owned by libtiff until the directory changes. */
static inline int cull_tiff_subifds(TIFF *tiff, uint16_t *count, uint64_t **offsets) { return TIFFGetField(tiff, TIFFTAG_SUBIFD, count, offsets); }
/* An ASCII tag's value, owned by libtiff until the directory changes. */
static inline int cull_tiff_string(TIFF *tiff, uint32_t tag, const char **value) { return TIFFGetField(tiff, tag, value); }

/* libtiff prints errors and warnings to stderr by default; cull reports its own. */
static inline void cull_tiff_silence(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}
#endif
