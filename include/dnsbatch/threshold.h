/*
 * dnsbatch/threshold.h - safety thresholds (issue 33 §2): a plan that updates
 * or deletes too large a share of a zone is held, not sent.
 *
 * Per zone, the pending updates that change something (an update whose old
 * and new RRsets hold the same data does not count: external-dns's registry
 * migration sends one per owned record) and the pending deletes are counted
 * against the RRsets the zone holds, read once by the provider's list (only
 * for a zone with such changes). A zone of at least min_existing RRsets whose
 * updates pass max_update_percent, or deletes max_delete_percent, is over its
 * threshold; a change to the NS RRset at the zone's apex is always held
 * unless `force`. Held changes end failed, reason held (retryable: nothing
 * was sent), with a message naming the counts, the flag to pass and the
 * digest of the held set.
 *   whole_zone (one-shot apply): every change of a zone over its threshold
 *     is held: nothing is sent for that zone.
 *   otherwise (the sidecar): only the change groups that hold a change of the
 *     kind over its threshold (or the apex NS) are held; the rest applies. An
 *     operator releases exactly that set by its digest (dnsb_release_grant,
 *     POST /release): the next apply holding the same set sends it.
 */
#ifndef DNSBATCH_THRESHOLD_H
#define DNSBATCH_THRESHOLD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Per-zone overrides kept at most (flags past it are refused). */
#define DNSB_THRESHOLD_ZONES_MAX 32

/** A zone's own thresholds; a value < 0 takes the default. */
typedef struct dnsb_threshold_zone {
	char zone[256];            /**< apex, absolute, lower-case ("example.com.") */
	double max_update_percent; /**< -1 = the default */
	double max_delete_percent; /**< -1 = the default */
	long min_existing;         /**< -1 = the default */
} dnsb_threshold_zone;

/** Releases of held sets by digest, shared between requests. Thread-safe. Opaque. */
typedef struct dnsb_release dnsb_release;

/** Threshold settings (dnsb_engine_options.thresholds). Initialise with DNSB_THRESHOLDS_INIT. */
typedef struct dnsb_thresholds {
	double max_update_percent; /**< default 30: updates above this share of the zone's RRsets are held */
	double max_delete_percent; /**< default 30: deletes above this share are held */
	size_t min_existing;       /**< default 10: smaller zones are never over a percentage */
	int force;                 /**< 1: nothing is held (the thresholds and the apex NS rule are off) */
	int whole_zone;            /**< 1 (one-shot, the default): a zone over a threshold sends nothing */
	dnsb_release *release;     /**< borrowed, may be NULL: releases granted by an operator (the sidecar) */
	dnsb_threshold_zone zones[DNSB_THRESHOLD_ZONES_MAX]; /**< per-zone overrides, the first nzones */
	size_t nzones;
} dnsb_thresholds;

#define DNSB_THRESHOLDS_INIT { 30.0, 30.0, 10, 0, 1, NULL, { { "", 0, 0, 0 } }, 0 }

/**
 * Take a threshold flag's value: "PERCENT" (the default) or "ZONE=PERCENT"
 * (that zone only; ZONE with or without its final dot, any case).
 * @param t      the settings to change
 * @param which  'u' (--max-update-percent), 'd' (--max-delete-percent) or
 *               'm' (--min-existing-rrsets: a whole number of RRsets)
 * @param value  the flag's value
 * @return 0, DNSB_EINVAL (a bad number: percentages are 0..100; a bad or
 *         too long zone name; more than DNSB_THRESHOLD_ZONES_MAX zones)
 */
int dnsb_thresholds_set(dnsb_thresholds *t, char which, const char *value);

/**
 * Create an empty release store.
 * @param out  receives it (the caller's; dnsb_release_free)
 * @param ttl  seconds a grant stays valid (e.g. 900)
 * @return 0, DNSB_EINVAL (ttl <= 0) or DNSB_ENOMEM
 */
int dnsb_release_new(dnsb_release **out, double ttl);
/** Free it. NULL is a no-op. */
void dnsb_release_free(dnsb_release *r);

/**
 * Note a held set (the engine, on holding it), so that an operator can
 * release it. Sets held more than ttl ago and not held since are forgotten.
 * @param digest  hex SHA-256 of the held set (copied)
 * @param zone    its zone (copied)
 * @param now     Unix seconds
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_release_note(dnsb_release *r, const char *digest, const char *zone, double now);

/**
 * Release a held set: the next apply that holds exactly this set sends it,
 * if it comes within ttl seconds.
 * @param zone  receives the set's zone (copied into zone_size bytes), may be NULL
 * @return 0, DNSB_ENOTFOUND (no held set has this digest: a changed set has
 *         another), DNSB_EINVAL (digest NULL or not 64 hex digits)
 */
int dnsb_release_grant(dnsb_release *r, const char *digest, double now, char *zone, size_t zone_size);

/**
 * Is this set released now? A grant is used once: taken, it is gone.
 * @return 1 when a grant for `digest` was valid at `now` (and is now used), else 0
 */
int dnsb_release_take(dnsb_release *r, const char *digest, double now);

#ifdef __cplusplus
}
#endif
#endif
