/* retry.c - the full-jitter backoff (DESIGN §3). */
#include <math.h>

#include "dnsbatch/engine.h"

double dnsb_backoff_delay(unsigned attempt, double base, double cap, double u)
{
	/* base * 2^attempt overflows nothing that matters once it passes cap. */
	double ceiling = attempt >= 63 ? cap : fmin(cap, base * ldexp(1.0, (int)attempt));

	return u * ceiling;
}
