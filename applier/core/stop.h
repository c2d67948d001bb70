/*
 * stop.h - the process's request to stop (a signal), and the waits it ends
 * at once. A signal is taken by one thread, any thread; a wait sleeping on
 * another (the rate budget's, a Retry-After) must end too: the request is
 * written to a pipe every wait polls, so every sleeper wakes together.
 */
#ifndef DNSBATCH_CORE_STOP_H
#define DNSBATCH_CORE_STOP_H

/**
 * Make the pipe the waits poll. Call once, before installing the signal
 * handlers that call dnsb_stop_request. Without it a wait still ends on a
 * stop asked before it began, and on a signal taken by its own thread.
 * @return 0; -1 when no pipe can be made (errno set)
 */
int dnsb_stop_init(void);

/** Ask every wait to end, now and from now on. Async-signal-safe. */
void dnsb_stop_request(void);

/** @return 1 once dnsb_stop_request was called, else 0 */
int dnsb_stop_requested(void);

/**
 * Sleep `seconds` (nothing when not > 0) unless a stop is asked first.
 * @return 0 when the whole wait was slept; 1 when a stop ended it (or was
 *         asked before it began)
 */
int dnsb_stop_sleep(double seconds);

#endif
