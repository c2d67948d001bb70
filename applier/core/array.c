/* array.c - the growable array's growth step (array.h): doubling, every size checked for overflow. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnsbatch/common.h"
#include "applier/core/array.h"

int dnsb_array_reserve(void *items, size_t *capacity, size_t need, size_t first, size_t item_size)
{
	size_t cap = *capacity;
	void *old, *grown;

	if (need <= cap)
		return 0;
	if (cap == 0)
		cap = first > 0 ? first : 1;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return DNSB_ENOMEM;
		cap *= 2;
	}
	if (item_size == 0 || cap > SIZE_MAX / item_size)
		return DNSB_ENOMEM;
	/* `items` is the address of a `T *`: copied as bytes, it is read and written as the type it is. */
	memcpy(&old, items, sizeof(old));
	if ((grown = realloc(old, cap * item_size)) == NULL)
		return DNSB_ENOMEM;
	memcpy(items, &grown, sizeof(grown));
	*capacity = cap;
	return 0;
}
