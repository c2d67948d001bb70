// re2.cc - the C view of RE2 declared in re2.h; no C++ exception leaves this file.
#include "applier/webhook/re2.h"

#include <cstring>
#include <exception>
#include <new>

#include <re2/re2.h>

struct dnsb_re2 {
	explicit dnsb_re2(const char *pattern, const RE2::Options &options) : re(pattern, options) {}
	RE2 re;
};

static void copy_error(char *errbuf, size_t errlen, const char *why)
{
	if (errbuf == nullptr || errlen == 0)
		return;
	std::strncpy(errbuf, why, errlen - 1);
	errbuf[errlen - 1] = '\0';
}

extern "C" dnsb_re2 *dnsb_re2_new(const char *pattern, char *errbuf, size_t errlen)
{
	copy_error(errbuf, errlen, "");
	try {
		RE2::Options options;
		// RE2 would otherwise print a bad pattern on stderr; the caller reports it.
		options.set_log_errors(false);
		dnsb_re2 *r = new dnsb_re2(pattern, options);
		if (!r->re.ok()) {
			copy_error(errbuf, errlen, r->re.error().c_str());
			delete r;
			return nullptr;
		}
		return r;
	} catch (const std::bad_alloc &) {
		copy_error(errbuf, errlen, "out of memory");
	} catch (const std::exception &e) {
		copy_error(errbuf, errlen, e.what());
	} catch (...) {
		copy_error(errbuf, errlen, "unknown C++ exception");
	}
	return nullptr;
}

extern "C" int dnsb_re2_partial_match(const dnsb_re2 *re, const char *text)
{
	try {
		return RE2::PartialMatch(text, re->re) ? 1 : 0;
	} catch (...) {
		return -1;
	}
}

extern "C" void dnsb_re2_free(dnsb_re2 *re)
{
	delete re;
}
