/*
 * provider.h - the engine's side of the provider handle: a submission and a
 * read sent through the backend's ops table, counted and timed
 * (applier/core/provider.c). Not for backends, which implement the ops
 * (dnsbatch/sys/provider.h) and never call them through the handle; the
 * engine, the sidecar's health probe and the tests do.
 */
#ifndef DNSBATCH_CORE_PROVIDER_H
#define DNSBATCH_CORE_PROVIDER_H

#include "dnsbatch/sys/provider.h"

/**
 * Submit through the ops table, counting the request and timing it. Same
 * contract as dnsb_provider_ops.submit (timeout in seconds, 0 = none; `out`
 * is reset first); `seconds` receives the time the request took (may be NULL).
 */
int dnsb_provider_submit(dnsb_provider *p, const char *zone, dnsb_change *const *changes, size_t n,
			 double timeout, dnsb_result *out, double *seconds, dnsb_error *err);

/** Read through the ops table, counting the request and timing it as submit does. Same contract as ops.read. */
int dnsb_provider_read(dnsb_provider *p, const char *zone, const dnsb_rrkey *keys, size_t n,
		       double timeout, dnsb_rrset_list *out, double *seconds, dnsb_error *err);

#endif
