#ifndef CULL_CTURBOJPEG_SHIM_H
#define CULL_CTURBOJPEG_SHIM_H
#include <stddef.h>
#include <turbojpeg.h>
#endif
