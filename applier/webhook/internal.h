/* internal.h - pieces of the webhook server shared between its files (not installed). */
#ifndef DNSBATCH_WEBHOOK_INTERNAL_H
#define DNSBATCH_WEBHOOK_INTERNAL_H

#include <pthread.h>
#include <stddef.h>

/** The routes the server knows, as labels of its own metrics. */
enum dnsb_webhook_route {
	DNSB_ROUTE_NEGOTIATE = 0,  /* GET / */
	DNSB_ROUTE_RECORDS,        /* GET and POST /records */
	DNSB_ROUTE_ADJUST,         /* POST /adjustendpoints */
	DNSB_ROUTE_HEALTHZ,
	DNSB_ROUTE_METRICS,
	DNSB_ROUTE_OTHER,
	DNSB_ROUTE_COUNT
};

#endif
