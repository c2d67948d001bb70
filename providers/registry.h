/*
 * providers/registry.h - the built-in backends' entry points, all in one
 * place: each is defined in its backend's own file and listed, by name, in
 * registry.c. Not installed: users reach a backend by its name
 * (dnsb_provider_open, dnsb_backend_find in dnsbatch/provider.h).
 * A backend is added here, in registry.c's table and in its own file.
 */
#ifndef DNSBATCH_PROVIDERS_REGISTRY_H
#define DNSBATCH_PROVIDERS_REGISTRY_H

#include "dnsbatch/sys/provider.h"

extern const dnsb_backend dnsb_backend_zonefile;  /**< providers/zonefile.c */
extern const dnsb_backend dnsb_backend_memory;    /**< providers/memory.c */
extern const dnsb_backend dnsb_backend_rfc2136;   /**< providers/rfc2136/rfc2136.c */
extern const dnsb_backend dnsb_backend_google;    /**< providers/google/google.c */
extern const dnsb_backend dnsb_backend_aws;       /**< providers/aws/aws.c */
extern const dnsb_backend dnsb_backend_pdns;      /**< providers/pdns/pdns.c */
extern const dnsb_backend dnsb_backend_azure;     /**< providers/azure/azure.c */
extern const dnsb_backend dnsb_backend_cloudflare; /**< providers/cloudflare/cloudflare.c */
extern const dnsb_backend dnsb_backend_akamai;     /**< providers/akamai/akamai.c */

#endif
