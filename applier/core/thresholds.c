/* thresholds.c - the safety thresholds' settings from flags: "PERCENT" or "ZONE=PERCENT" (dnsbatch/threshold.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/common.h"
#include "dnsbatch/threshold.h"

/* The override of `zone` (absolute, lower-case), added with every value at its default. NULL when full. */
static dnsb_threshold_zone *zone_entry(dnsb_thresholds *t, const char *zone)
{
	dnsb_threshold_zone *z;

	for (size_t i = 0; i < t->nzones; i++)
		if (strcmp(t->zones[i].zone, zone) == 0)
			return &t->zones[i];
	if (t->nzones == DNSB_THRESHOLD_ZONES_MAX)
		return NULL;
	z = &t->zones[t->nzones++];
	strcpy(z->zone, zone);
	z->max_update_percent = z->max_delete_percent = -1;
	z->min_existing = -1;
	return z;
}

/* "Example.COM" -> "example.com."; @return 0 or DNSB_EINVAL (empty, too long, blanks) */
static int zone_name(char *out, size_t size, const char *s, size_t len)
{
	if (len == 0 || len + 2 > size)
		return DNSB_EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (isspace((unsigned char)s[i]))
			return DNSB_EINVAL;
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	out[len] = '\0';
	if (out[len - 1] != '.')
		strcat(out, ".");
	return 0;
}

static int number(double *out, const char *v, double max)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	return errno || end == v || *end || !(*out >= 0 && *out <= max) ? DNSB_EINVAL : 0;
}

int dnsb_thresholds_set(dnsb_thresholds *t, char which, const char *value)
{
	const char *eq = strchr(value, '=');
	char zone[256];
	dnsb_threshold_zone *z = NULL;
	double n;

	if (which != 'u' && which != 'd' && which != 'm')
		return DNSB_EINVAL;
	if (number(&n, eq ? eq + 1 : value, which == 'm' ? 1e9 : 100) < 0 || (which == 'm' && n != (double)(long)n))
		return DNSB_EINVAL;
	if (eq && (zone_name(zone, sizeof(zone), value, (size_t)(eq - value)) < 0 || (z = zone_entry(t, zone)) == NULL))
		return DNSB_EINVAL;
	if (which == 'u')
		*(z ? &z->max_update_percent : &t->max_update_percent) = n;
	else if (which == 'd')
		*(z ? &z->max_delete_percent : &t->max_delete_percent) = n;
	else if (z)
		z->min_existing = (long)n;
	else
		t->min_existing = (size_t)n;
	return 0;
}
