/*
 * dnsbatch/provider.h - opening and using a provider as a user of the library.
 *
 * A provider is one DNS service (a zone file, an RFC 2136 server, a cloud
 * DNS API, the in-process memory provider, ...) holding one or more zones.
 * The built-in backends are those dnsb_backends lists (`dnsbatch apply
 * --help` names them); backends are described in dnsbatch/sys/provider.h.
 */
#ifndef DNSBATCH_PROVIDER_H
#define DNSBATCH_PROVIDER_H

#include "change.h"
#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dnsb_provider dnsb_provider;
struct dnsb_backend;

/**
 * Find a built-in backend by name ("pdns"; dnsb_backends lists them all).
 * @return a static pointer, or NULL when there is no such backend
 */
const struct dnsb_backend *dnsb_backend_find(const char *name);

/** The built-in backends, NULL-terminated. */
const struct dnsb_backend *const *dnsb_backends(void);

struct dnsb_flag;
/**
 * The flags every HTTP backend reads besides its own: the account's shared
 * rate budget (--rate-budget URL, --rate-budget-key, --rate-budget-rate,
 * --rate-budget-burst, --rate-budget-instances, --rate-budget-password-file).
 * @return a static table (dnsbatch/sys/flag.h) ended by an entry whose name is NULL
 */
const struct dnsb_flag *dnsb_backend_shared_flags(void);

/** What a provider's rate budget (--rate-budget) has done so far. */
typedef struct dnsb_budget_stats {
	unsigned long shared_tokens;  /**< requests that took their token from the shared bucket in Redis */
	unsigned long local_tokens;   /**< requests that took it from the local bucket (Redis away, or local only) */
	unsigned long fallbacks;      /**< times Redis was found away and the local share took over */
	unsigned long throttles;      /**< throttling answers that still came and lowered the rate */
	double wait_seconds;          /**< seconds slept waiting for tokens */
	double rate;                  /**< requests per second the last token was taken at: the shared rate
					   (lowered for a while after a throttle) or the local share */
	int shared;                   /**< 1 while the shared bucket answers, else 0 */
} dnsb_budget_stats;

/**
 * The figures of the provider's rate budget.
 * @param out  filled on 0 (the caller's)
 * @return 0; DNSB_ENOTFOUND when the provider has none (no --rate-budget, or
 *         a backend without one)
 */
int dnsb_provider_budget_stats(dnsb_provider *p, dnsb_budget_stats *out);

/**
 * Open a provider by backend name.
 * @param out   receives the provider (the caller's; dnsb_provider_free)
 * @param name  backend name (borrowed)
 * @param cfg   its settings (borrowed; read during the call only)
 * @return 0; DNSB_ENOTFOUND for an unknown backend; or the backend's own
 *         codes (DNSB_EINVAL for bad settings, DNSB_EIO, DNSB_ENOMEM)
 */
int dnsb_provider_open(dnsb_provider **out, const char *name, const dnsb_config *cfg, dnsb_error *err);

/** Close and free. NULL is a no-op. */
void dnsb_provider_free(dnsb_provider *p);

/** The backend name ("zonefile"). Static string. */
const char *dnsb_provider_name(const dnsb_provider *p);

/** Number of zones, and the i-th apex (absolute, lower-case, borrowed). */
size_t dnsb_provider_zone_count(const dnsb_provider *p);
const char *dnsb_provider_zone(const dnsb_provider *p, size_t i);

/**
 * Serve only the zones `keep` accepts, in their order (the sidecar's domain
 * filter: a zone in which no name the filter admits can lie is not served,
 * as external-dns's providers narrow their zone lists by it). A change whose
 * owner lies only in a dropped zone then ends `no_zone`; listing skips the
 * zone. Call before the provider is used: zone indexes change.
 * @param keep  called once per zone with `ctx` and the apex (absolute,
 *              lower-case, borrowed); returns 1 to keep it
 * @return the number of zones left
 */
size_t dnsb_provider_retain_zones(dnsb_provider *p, int (*keep)(void *ctx, const char *apex), void *ctx);

/**
 * The zone with the longest apex that holds `owner` (absolute, lower-case).
 * @return its index, or -1 when no zone holds it
 */
long dnsb_provider_zone_for(const dnsb_provider *p, const char *owner);

/**
 * List every RRset of one zone (counted as a read).
 * @param out  RRsets appended (the caller's list)
 * @return 0, DNSB_ENOTFOUND for a zone the provider does not hold, or the
 *         backend's codes (DNSB_ETRANSIENT, DNSB_EFATAL, DNSB_ENOMEM)
 */
int dnsb_provider_list(dnsb_provider *p, const char *zone, dnsb_rrset_list *out, dnsb_error *err);

/**
 * dnsb_provider_list within `timeout` seconds (0: no limit but the backend's own): a throttle's wait
 * or a request that does not fit in it ends the call (the engine's time left, for the safety
 * thresholds' count).
 * @return as dnsb_provider_list; DNSB_ETRANSIENT or DNSB_ERATELIMIT when the time ran out
 */
int dnsb_provider_list_within(dnsb_provider *p, const char *zone, double timeout, dnsb_rrset_list *out,
			      dnsb_error *err);

/** Submissions and reads made through this provider so far. */
unsigned long dnsb_provider_submissions(dnsb_provider *p);
unsigned long dnsb_provider_reads(dnsb_provider *p);

#ifdef __cplusplus
}
#endif
#endif
