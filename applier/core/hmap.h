/*
 * hmap.h - internal: a string-keyed hash map (open addressing, linear
 * probing, backward-shift deletion). Keys are borrowed: the caller keeps
 * each key alive while it is in the map. Not thread-safe.
 */
#ifndef DNSB_HMAP_H
#define DNSB_HMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct dnsb_hmap_slot {
	const char *key;   /* NULL: empty */
	uint64_t hash;
	void *value;
} dnsb_hmap_slot;

typedef struct dnsb_hmap {
	dnsb_hmap_slot *slots;
	size_t capacity;   /* a power of two, or 0 */
	size_t count;
	uint64_t seed;     /* mixed into each hash for its home slot; set when the slots are first made */
} dnsb_hmap;

#define DNSB_HMAP_INIT { NULL, 0, 0, 0 }

/* @return the value, or NULL when absent */
void *dnsb_hmap_get(const dnsb_hmap *m, const char *key);
/* Room for n more keys without growing (a map filled with a known number of keys rehashes none).
 * @return 0 or DNSB_ENOMEM (the map is unchanged) */
int dnsb_hmap_reserve(dnsb_hmap *m, size_t n);
/* Insert or replace. @return 0 or DNSB_ENOMEM */
int dnsb_hmap_put(dnsb_hmap *m, const char *key, void *value);
/* Insert or replace in one probe: *old (when old is not NULL) receives the value replaced, NULL when the key is new.
 * @return 0 or DNSB_ENOMEM (the map is unchanged) */
int dnsb_hmap_swap(dnsb_hmap *m, const char *key, void *value, void **old);
/* @return the removed value, or NULL when absent */
void *dnsb_hmap_remove(dnsb_hmap *m, const char *key);
/* Iterate: start with *iter = 0. @return 1 with key and value set, 0 at the end */
int dnsb_hmap_next(const dnsb_hmap *m, size_t *iter, const char **key, void **value);
/* Free the slots (not keys or values). */
void dnsb_hmap_clear(dnsb_hmap *m);

#endif
