#ifndef CULL_CSYSTEMD_SHIM_H
#define CULL_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#endif
