/*
 * quarantine_list.c - GET /quarantine's JSON: the quarantine's held groups
 * (applier/engine/quarantine.c) as their records show them (applier/obs/
 * drop_record.c), so that the engine keeps the entries and no JSON.
 */
#include <json-c/json.h>

#include "applier/engine/quarantine.h"
#include "applier/obs/drop_record.h"

struct listing {
	json_object *arr;
	double wall_now;
};

static int add_entry(const dnsb_quarantine_view *v, void *payload)
{
	struct listing *l = payload;
	json_object *o = dnsb_held_record_entry(v->desc, v->zone, v->first, v->last, v->attempts, l->wall_now + v->left,
						v->backoff);

	if (o == NULL || json_object_array_add(l->arr, o) != 0) {
		json_object_put(o);
		return DNSB_ENOMEM;
	}
	return 0;
}

int dnsb_quarantine_list(dnsb_quarantine *q, double now, double wall_now, json_object **out)
{
	struct listing l = { json_object_new_array(), wall_now };
	int rc;

	*out = NULL;
	if (l.arr == NULL)
		return DNSB_ENOMEM;
	if ((rc = dnsb_quarantine_each(q, now, add_entry, &l)) != 0) {
		json_object_put(l.arr);
		return rc;
	}
	*out = l.arr;
	return 0;
}
