/* diagnose.h - internal: what is in a dropped change's way (diagnose.c). */
#ifndef DNSB_ENGINE_DIAGNOSE_H
#define DNSB_ENGINE_DIAGNOSE_H

#include "applier/engine/internal.h"

/*
 * The names where external-dns's TXT registry keeps the ownership record of
 * c's name: the names of the group's own ownership records for it (they show
 * the registry's --txt-prefix or --txt-suffix), else "<type>-<name>" (the
 * registry's default) and the name itself (its old format). At most max,
 * malloc'd into out (the caller frees them).
 * @return 0 or DNSB_ENOMEM (what was added stays in out, *n counts it)
 */
int dnsb_engine_registry_names(const group *g, const dnsb_change *c, char **out, size_t max, size_t *n);

/*
 * Before g is dropped for a conflict: each pending change's cause, current
 * (the RRsets held at its owner name) and txt_owner/txt_resource, from
 * `held`, the read that proved the drop (it covers the registry names).
 * Out of memory is recorded in e->rc.
 */
void dnsb_engine_diagnose(engine *e, group *g, const dnsb_rrset_list *held);

#endif
