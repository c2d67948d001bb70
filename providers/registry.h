/*
 * providers/registry.h - what a built-in backend's file needs to be listed:
 * its descriptor (dnsb_backend, dnsbatch/sys/provider.h) defined as
 * `const dnsb_backend dnsb_backend_NAME`. The one list of backends is the
 * table of registry.c; users reach a backend by its name (dnsb_provider_open,
 * dnsb_backend_find in dnsbatch/provider.h). Not installed.
 */
#ifndef DNSBATCH_PROVIDERS_REGISTRY_H
#define DNSBATCH_PROVIDERS_REGISTRY_H

#include "dnsbatch/sys/provider.h"
#include "dnsbatch/sys/flag.h"

#endif
