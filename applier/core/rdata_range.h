/*
 * rdata_range.h - the numeric RDATA fields checked against their wire width
 * before ldns converts them: ldns reads them with strtol and casts, so MX
 * 70000 would be written as 4464 and MX -1 as 65535 (issue 38 §3).
 */
#ifndef DNSBATCH_CORE_RDATA_RANGE_H
#define DNSBATCH_CORE_RDATA_RANGE_H

#include <stdint.h>

#include "dnsbatch/common.h"

/**
 * Check the leading numeric fields of `rdata` (presentation form) of `type`
 * against their width: a field written in decimal digits (a sign allowed)
 * must lie in 0 .. 2^bits - 1. A field not written as a number (a DS
 * algorithm mnemonic, say) is left to ldns, as are types without numeric
 * fields.
 * @param rdata  borrowed, NUL-terminated
 * @return 0; DNSB_EINVAL naming the type, the field, the value and the range
 */
int dnsb_rdata_check_ranges(uint16_t type, const char *rdata, dnsb_error *err);

#endif
