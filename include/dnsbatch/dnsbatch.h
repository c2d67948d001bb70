/*
 * dnsbatch/dnsbatch.h - the core public API (the sidecar is dnsbatch/webhook.h,
 * the in-process test provider dnsbatch/memory.h: include them apart).
 *
 * dnsbatch applies DNS RRset change batches (the external-dns webhook plan
 * format) to a provider without letting one conflicting record block the
 * rest: see dnsbatch/engine.h.
 */
#ifndef DNSBATCH_DNSBATCH_H
#define DNSBATCH_DNSBATCH_H

#include "version.h"
#include "common.h"
#include "change.h"
#include "config.h"
#include "plan.h"
#include "provider.h"
#include "metrics.h"
#include "droplog.h"
#include "engine.h"
#include "log.h"

#endif
