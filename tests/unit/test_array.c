/* test_array.c - the growable array (applier/core/array.h): growth by doubling, and the sizes it refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "dnsbatch/common.h"
#include "applier/core/array.h"

/* Under AddressSanitizer an allocation too large to make must return NULL, as malloc does, not end the test. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

typedef struct wide {
	char bytes[64];
} wide;

/* Room for one more at a time: the first allocation is `first` items, then the capacity doubles; items survive. */
static void test_grows_by_doubling(void **state)
{
	int *items = NULL;
	size_t count = 0, capacity = 0;

	(void)state;
	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, 1, 8), 0);
	assert_non_null(items);
	assert_int_equal(capacity, 8);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, count + 1, 8), 0);
		items[count++] = i;
		assert_true(capacity >= count);
		if (count == 8)
			assert_int_equal(capacity, 8);
		if (count == 9)
			assert_int_equal(capacity, 16);
	}
	assert_int_equal(capacity, 128);
	for (int i = 0; i < 100; i++)
		assert_int_equal(items[i], i);
	free(items);
}

/* Enough room already: nothing moves. A large need doubles as often as it takes, not once. */
static void test_room_enough_and_large_need(void **state)
{
	wide *items = NULL;
	wide *before;
	size_t capacity = 0;

	(void)state;
	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, 3, 4), 0);
	before = items;
	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, 4, 4), 0);
	assert_ptr_equal(items, before);
	assert_int_equal(capacity, 4);
	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, 33, 4), 0);
	assert_int_equal(capacity, 64);
	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, 0, 4), 0);
	assert_int_equal(capacity, 64);
	free(items);

	items = NULL;
	capacity = 0;
	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, 1, 0), 0);  /* first 0 is taken as 1 */
	assert_int_equal(capacity, 1);
	free(items);
}

/* A capacity whose double, or whose size in bytes, would overflow size_t is refused, the array left as it was. */
static void test_refuses_overflow(void **state)
{
	char *bytes = malloc(4);
	wide *items = NULL;
	size_t capacity;

	(void)state;
	assert_non_null(bytes);
	capacity = SIZE_MAX / 2 + 1;  /* a lie about `bytes`' room: the next double is past SIZE_MAX */
	assert_int_equal(DNSB_ARRAY_RESERVE(bytes, capacity, SIZE_MAX / 2 + 2, 8), DNSB_ENOMEM);
	assert_int_equal(capacity, SIZE_MAX / 2 + 1);
	assert_non_null(bytes);
	free(bytes);

	capacity = 0;  /* the items count fits size_t, their bytes do not */
	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, SIZE_MAX / sizeof(wide) + 1, 8), DNSB_ENOMEM);
	assert_null(items);
	assert_int_equal(capacity, 0);

	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, SIZE_MAX, 8), DNSB_ENOMEM);
	assert_null(items);
	assert_int_equal(capacity, 0);
}

/* The allocation itself failing (far more than any machine holds, though within size_t) leaves the array as it was. */
static void test_failed_allocation_keeps_items(void **state)
{
	wide *items = NULL;
	size_t capacity = 0;

	(void)state;
	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, 2, 2), 0);
	items[0].bytes[0] = 'x';
	assert_int_equal(DNSB_ARRAY_RESERVE(items, capacity, (SIZE_MAX / sizeof(wide)) / 4, 2), DNSB_ENOMEM);
	assert_int_equal(capacity, 2);
	assert_int_equal(items[0].bytes[0], 'x');
	free(items);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_by_doubling),
		cmocka_unit_test(test_room_enough_and_large_need),
		cmocka_unit_test(test_refuses_overflow),
		cmocka_unit_test(test_failed_allocation_keeps_items),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
