/*
 * backoff.h - the one rule for a throttle's Retry-After (DESIGN §3: honoured
 * as a floor, within bounds), shared by the engine's batches and the HTTP
 * backends' own reads, so both obey a provider's request alike.
 */
#ifndef DNSBATCH_CORE_BACKOFF_H
#define DNSBATCH_CORE_BACKOFF_H

/** A Retry-After is honoured up to this many times the backoff's cap (a provider asking for hours is not obeyed). */
#define DNSB_RETRY_AFTER_CAP_FACTOR 10.0

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
