/* Parses the EXIF block of each JPEG named on the command line with libexif, as cull's
 * metadata reader would use it: the first 128 KiB of the file (what a head-only read holds),
 * exif_data_new_from_data, then Make, Model, DateTimeOriginal, SubSecTimeOriginal,
 * Orientation, PixelXDimension, PixelYDimension and the thumbnail. Prints the median time per
 * photo over ROUNDS rounds (each round every file once), and how many files had a thumbnail,
 * for bench/exif-compare.sh.
 *
 *   cc -O2 bench/exif-libexif.c -lexif -o exif-libexif && ./exif-libexif ROUNDS FILE...
 */
#include <libexif/exif-data.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s ROUNDS FILE...\n", argv[0]); return 64; }
    int rounds = atoi(argv[1]), files = argc - 2;
    enum { head = 128 * 1024 };
    unsigned char **buffers = calloc(files, sizeof *buffers);
    size_t *sizes = calloc(files, sizeof *sizes);
    for (int i = 0; i < files; i++) {
        FILE *f = fopen(argv[i + 2], "rb");
        if (!f) { perror(argv[i + 2]); return 1; }
        buffers[i] = malloc(head);
        sizes[i] = fread(buffers[i], 1, head, f);
        fclose(f);
    }
    const ExifTag tags[] = { EXIF_TAG_MAKE, EXIF_TAG_MODEL, EXIF_TAG_DATE_TIME_ORIGINAL, EXIF_TAG_SUB_SEC_TIME_ORIGINAL,
                             EXIF_TAG_ORIENTATION, EXIF_TAG_PIXEL_X_DIMENSION, EXIF_TAG_PIXEL_Y_DIMENSION };
    double *perPhoto = calloc(rounds, sizeof *perPhoto);
    long found = 0, thumbnails = 0;
    char value[256];
    for (int r = 0; r < rounds; r++) {
        double start = now();
        for (int i = 0; i < files; i++) {
            ExifData *data = exif_data_new_from_data(buffers[i], (unsigned int)sizes[i]);
            if (!data) continue;
            for (size_t t = 0; t < sizeof tags / sizeof *tags; t++) {
                for (int ifd = 0; ifd < EXIF_IFD_COUNT; ifd++) {
                    ExifEntry *entry = exif_content_get_entry(data->ifd[ifd], tags[t]);
                    if (entry) { exif_entry_get_value(entry, value, sizeof value); found++; break; }
                }
            }
            if (data->data && data->size > 0) thumbnails++;
            exif_data_unref(data);
        }
        perPhoto[r] = (now() - start) / files;
    }
    qsort(perPhoto, rounds, sizeof *perPhoto, compare);
    printf("libexif %.2f us per photo (median of %d rounds, %d files); tags found %ld, thumbnails %ld\n",
           perPhoto[rounds / 2] * 1e6, rounds, files, found / rounds, thumbnails / rounds);
    return 0;
}
