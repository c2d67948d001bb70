/* records.c - which RR types GET /records lists (the Endpoint form is applier/plan/endpoint.c). */
#include "dnsbatch/webhook.h"

enum {
	TYPE_SOA = 6,
	TYPE_RRSIG = 46, TYPE_NSEC = 47, TYPE_DNSKEY = 48, TYPE_NSEC3 = 50, TYPE_NSEC3PARAM = 51
};

int dnsb_webhook_type_listed(uint16_t type)
{
	switch (type) {
	case TYPE_SOA: case TYPE_RRSIG: case TYPE_NSEC: case TYPE_DNSKEY:
	case TYPE_NSEC3: case TYPE_NSEC3PARAM:
		return 0;
	default:
		return 1;
	}
}
