#ifndef CULL_CZEROMQ_SHIM_H
#define CULL_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
