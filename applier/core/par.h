/*
 * par.h - a pass over a whole plan split in two halves run at once, for the
 * machine's second core (a dry run of 100,000 changes: freeing, zone mapping,
 * serialising a batch). Small passes run in the calling thread: a thread
 * costs more than they do.
 */
#ifndef DNSBATCH_CORE_PAR_H
#define DNSBATCH_CORE_PAR_H

#include <stddef.h>

/** A pass over fewer changes than this is not worth a thread (a step of ~100 ns each). */
#define DNSB_PAR_MIN 4096

/** One part of a pass: `part` is 0 or 1; ctx is the caller's. */
typedef void (*dnsb_par_fn)(void *ctx, int part);

/**
 * Run fn(ctx, 0) and fn(ctx, 1): at once, the second in a thread of its own,
 * when `at_once` is non-zero (the caller judges the pass worth a thread: for
 * simple steps over changes, DNSB_PAR_MIN of them or more); otherwise, or when
 * no thread can be made, one after the other in the calling thread. Returns
 * when both have. The two parts must write disjoint memory and only read what
 * neither writes, so the result is the same either way.
 */
void dnsb_par2(dnsb_par_fn fn, void *ctx, int at_once);

/** The half-open range [*from, *to) of part `part` (0 or 1) of n items: the first half, then the rest. */
void dnsb_par_range(size_t n, int part, size_t *from, size_t *to);

/** One step of a pass: item `i` of the caller's ctx. */
typedef void (*dnsb_par_item_fn)(void *ctx, size_t i);

/**
 * item(ctx, i) for each i in [0, n), in order within each half: the two
 * halves at once (dnsb_par2) from DNSB_PAR_MIN items on. Each step must write
 * only what is item i's.
 */
void dnsb_par_for(size_t n, dnsb_par_item_fn item, void *ctx);

#endif
