/* par.c - two halves of a pass run at once (par.h). */
#include <pthread.h>
#include <stddef.h>

#include "applier/core/par.h"

typedef struct second {
	dnsb_par_fn fn;
	void *ctx;
} second;

static void *run_second(void *arg)
{
	second *s = arg;

	s->fn(s->ctx, 1);
	return NULL;
}

void dnsb_par2(dnsb_par_fn fn, void *ctx, int at_once)
{
	second s = { fn, ctx };
	pthread_t thread;
	int started = at_once && pthread_create(&thread, NULL, run_second, &s) == 0;

	fn(ctx, 0);
	if (started)
		pthread_join(thread, NULL);
	else
		fn(ctx, 1);
}

void dnsb_par_range(size_t n, int part, size_t *from, size_t *to)
{
	*from = part == 0 ? 0 : n / 2;
	*to = part == 0 ? n / 2 : n;
}

typedef struct each {
	size_t n;
	dnsb_par_item_fn item;
	void *ctx;
} each;

static void each_half(void *ctx, int part)
{
	each *e = ctx;
	size_t from, to;

	dnsb_par_range(e->n, part, &from, &to);
	for (size_t i = from; i < to; i++)
		e->item(e->ctx, i);
}

void dnsb_par_for(size_t n, dnsb_par_item_fn item, void *ctx)
{
	each e = { n, item, ctx };

	dnsb_par2(each_half, &e, n >= DNSB_PAR_MIN);
}
