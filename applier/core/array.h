/*
 * array.h - internal: the one growable array (after libgit2's
 * src/util/array.h). The array stays the caller's own pointer and capacity
 * fields, typed as the caller declares them (`dnsb_rrset *items; size_t
 * capacity;`); DNSB_ARRAY_RESERVE makes room in it, doubling its capacity,
 * every size checked for overflow. The items count is the caller's too.
 */
#ifndef DNSBATCH_CORE_ARRAY_H
#define DNSBATCH_CORE_ARRAY_H

#include <stddef.h>

/**
 * Make room for at least `need` items in `items` (a malloc'd array or NULL,
 * an lvalue of pointer type) of `capacity` items (an lvalue of type size_t).
 * When `capacity` is already enough nothing happens; else the capacity
 * becomes `first` (when it was 0) or its double, doubled again until it
 * holds `need`, and the array is reallocated to it.
 *
 *     if (DNSB_ARRAY_RESERVE(list->items, list->capacity, list->count + 1, 16) < 0)
 *             return DNSB_ENOMEM;
 *     list->items[list->count++] = *rrset;
 *
 * The new items are not initialized. On failure `items` and `capacity` are
 * as they were: the items already held stay the caller's to free.
 * @return 0, or DNSB_ENOMEM when the allocation fails or the size would
 *         overflow size_t
 */
#define DNSB_ARRAY_RESERVE(items, capacity, need, first) \
	dnsb_array_reserve(&(items), &(capacity), (need), (first), sizeof(*(items)))

/**
 * What DNSB_ARRAY_RESERVE calls; use the macro, which gives the item size
 * and keeps the array typed.
 * @param items      the address of the array's pointer (any object pointer type)
 * @param capacity   items the array has room for (updated)
 * @param need       items it must have room for
 * @param first      the capacity of an empty array's first allocation (0 is taken as 1)
 * @param item_size  bytes of one item, > 0
 * @return 0 or DNSB_ENOMEM
 */
int dnsb_array_reserve(void *items, size_t *capacity, size_t need, size_t first, size_t item_size);

#endif
