/*
 * backoff.h - the full-jitter backoff and the one rule for a throttle's
 * Retry-After (docs/design.md §3.6: honoured as a floor, within bounds), shared by the
 * engine's batches and the HTTP backends' own reads, so both wait alike.
 */
#ifndef DNSBATCH_CORE_BACKOFF_H
#define DNSBATCH_CORE_BACKOFF_H

/** A Retry-After is honoured up to this many times the backoff's cap (a provider asking for hours is not obeyed). */
#define DNSB_RETRY_AFTER_CAP_FACTOR 10.0

/**
 * The full-jitter backoff (docs/design.md §3.6).
 * @param attempt  0 for the first wait
 * @param base     seconds: the first wait's ceiling
 * @param cap      seconds: no wait's ceiling passes it
 * @param u        a uniform random number in [0, 1)
 * @return seconds: u * min(cap, base * 2^attempt)
 */
double dnsb_backoff_delay(unsigned attempt, double base, double cap, double u);

/**
 * The wait after a throttle: the backoff drawn, or the reply's Retry-After
 * when longer (a floor), that capped at DNSB_RETRY_AFTER_CAP_FACTOR x cap.
 * Whether the wait fits before a deadline is the caller's question.
 * @param backoff      seconds the full-jitter backoff drew (within cap)
 * @param retry_after  seconds the reply asked for; < 0 when it gave none
 * @param cap          seconds: the backoff's cap (the engine's --backoff-cap,
 *                     a backend's DNSB_HB_THROTTLE_CAP)
 * @return seconds to wait
 */
double dnsb_retry_after_wait(double backoff, double retry_after, double cap);

#endif
