# dnsbatch - plain Makefile with pkg-config.
#   make            library (build/libdnsbatch.a) and program (build/dnsbatch)
#   make run        apply an example plan to a temp copy of the example zone
#   make test       every test (unit, integration with real servers)
#   make sanitize   the tests under AddressSanitizer and UndefinedBehaviorSanitizer
#   make bench      benchmarks (figures printed, nothing asserted)
#   make soak       random fault schedules on every provider, judged (SOAK_SCHEDULES per provider, default 1000)
#   make deps       install the Debian packages the build and tests need
#   make install    PREFIX=/usr/local DESTDIR=
#   make image-rootfs  the container image's root filesystem, without a container daemon ($(BUILD)/image/rootfs)
.SUFFIXES:

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
CC      ?= cc
ifeq ($(origin CC),default)
CC = cc
endif
CXX     ?= c++
ifeq ($(origin CXX),default)
CXX = c++
endif
AR      ?= ar
PKGS     = libcurl json-c openssl ldns libmicrohttpd re2 libidn2 libxml-2.0 hiredis
VERSION  = $(shell sed -n 's/^\#define DNSBATCH_VERSION "\(.*\)"/\1/p' include/dnsbatch/version.h)
SAN     ?= 0

WARN     = -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes -Wshadow \
           -Wpointer-arith -Wwrite-strings -Wformat=2 -Wundef -Wvla
# The same for C++ (only applier/webhook/re2.cc, the C view of RE2), less the C-only warnings.
CXXWARN  = -Wall -Wextra -Werror -Wmissing-declarations -Wshadow \
           -Wpointer-arith -Wwrite-strings -Wformat=2 -Wundef -Wvla
OPT     ?= -O2 -g
SAN_1    = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SAN_fuzz = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_SECONDS ?= 60
SANFLAGS = $(SAN_$(SAN))
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
TEST_LIBS  := $(shell pkg-config --libs cmocka 2>/dev/null)
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(OPT) $(SANFLAGS) -Iinclude -I. $(PKG_CFLAGS) $(CFLAGS)
# Programs link with $(CC): clang's C driver leaves out UBSan's C++ runtime, so no C++-only checks under fuzz.
CXXSAN_fuzz = -fno-sanitize=vptr,function
ALL_CXXFLAGS = -std=c++17 -D_GNU_SOURCE $(CXXWARN) $(OPT) $(SANFLAGS) $(CXXSAN_$(SAN)) -Iinclude -I. $(PKG_CFLAGS) $(CXXFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
# -lstdc++: the library holds C++ (RE2) and every program links with $(CC).
LIBS     = $(PKG_LIBS) -lpthread -lm -lstdc++

# The library: every folder of applier/ but the program's (cli), and providers/ with every folder below it
# (two levels), found by wildcard: a new backend's folder needs no line here.
LIB_DIRS = $(filter-out applier/cli,$(patsubst %/,%,$(sort $(dir $(wildcard applier/*/*.c applier/*/*.cc))))) \
           $(patsubst %/,%,$(sort $(dir $(wildcard providers/*.c providers/*/*.c providers/*/*.cc \
                                                   providers/*/*/*.c providers/*/*/*.cc))))
LIB_SRC  = $(sort $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
LIB_CXX_SRC = $(sort $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.cc)))
CLI_SRC  = $(sort $(wildcard applier/cli/*.c))
UNIT_SRC = $(sort $(wildcard tests/unit/test_*.c))
INT_SRC  = $(sort $(wildcard tests/integration/test_*.c))
BENCH_SRC = $(sort $(wildcard tests/bench/bench_*.c))
FAKE_SRC = $(sort $(wildcard tests/fakes/*.c))
CONF_SRC = $(sort $(wildcard tests/conformance/*.c))
FUZZ_SRC = $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o) $(LIB_CXX_SRC:%.cc=$(BUILD)/%.o)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN = $(UNIT_SRC:%.c=$(BUILD)/%) $(INT_SRC:%.c=$(BUILD)/%)
BENCH_BIN = $(BENCH_SRC:tests/bench/%.c=$(BUILD)/%)
FAKE_BIN = $(FAKE_SRC:tests/fakes/%.c=$(BUILD)/%)
CONF_BIN = $(CONF_SRC:%.c=$(BUILD)/%)
FUZZ_BIN = $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/%)
# Each compile writes the headers it read to a .d file beside its output (-MMD; -MP so that a header
# deleted later is no error): touching a .c rebuilds its object alone, touching a header its dependents.
DEPFLAGS = -MMD -MP
PROG_DEPFLAGS = -MMD -MP -MF $@.d -MT $@
DEPS     = $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(addsuffix .d,$(TEST_BIN) $(BENCH_BIN) $(FAKE_BIN) $(FUZZ_BIN) $(CONF_BIN))

all: $(BUILD)/libdnsbatch.a $(BUILD)/dnsbatch

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/libdnsbatch.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

$(BUILD)/dnsbatch: $(CLI_OBJ) $(BUILD)/libdnsbatch.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libdnsbatch.a $(LIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libdnsbatch.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PROG_DEPFLAGS) -Itests -o $@ $< $(BUILD)/libdnsbatch.a $(TEST_LIBS) $(LIBS)

$(BUILD)/bench_%: tests/bench/bench_%.c $(BUILD)/libdnsbatch.a
	$(CC) $(ALL_CFLAGS) $(PROG_DEPFLAGS) -Itests -o $@ $< $(BUILD)/libdnsbatch.a $(LIBS)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/libdnsbatch.a
	$(CC) $(ALL_CFLAGS) $(PROG_DEPFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libdnsbatch.a $(LIBS)

$(BUILD)/%: tests/fakes/%.c $(BUILD)/libdnsbatch.a
	$(CC) $(ALL_CFLAGS) $(PROG_DEPFLAGS) -Itests -o $@ $< $(BUILD)/libdnsbatch.a $(LIBS)

tests: all $(TEST_BIN) $(FAKE_BIN) $(CONF_BIN)

deps:
	@sh scripts/deps.sh

test: deps
	@$(MAKE) --no-print-directory tests
	@BUILD=$(BUILD) sh scripts/run-tests.sh

sanitize: deps
	@$(MAKE) --no-print-directory BUILD=build-san SAN=1 OPT="-O1 -g" tests
	@BUILD=build-san SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 sh scripts/run-tests.sh

SOAK_SCHEDULES ?= 1000
SOAK_SEED ?= 1
SOAK_PROVIDERS ?=
SOAK_JOBS ?= 1
# The conformance suite's random mode (tests/conformance/README.md): per provider the count run and the false outcomes.
soak: deps
	@$(MAKE) --no-print-directory tests
	@BUILD=$(BUILD) bash tests/conformance/run.sh --random $(SOAK_SCHEDULES) --seed $(SOAK_SEED) --quiet \
	  --jobs $(SOAK_JOBS) $(if $(SOAK_PROVIDERS),--providers $(SOAK_PROVIDERS))

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BIN) $(FAKE_BIN)
	@BUILD=$(BUILD) sh scripts/run-bench.sh

# libFuzzer targets for every parser of outside input (clang), FUZZ_SECONDS each, from the seed corpus.
# Every target runs, a failing one too; those that failed are named at the end (exit 1 if any).
# tests/fuzz/lsan.supp names leaks inside the libraries; a suppression matches a frame of the leak's stack, and
# the fast unwinder stops in ldns (built without frame pointers), so the targets that make ldns parse text
# (FUZZ_FULL_STACKS) take full stacks, at a third of the speed.
FUZZ_FULL_STACKS = zonefile zonefile_text
fuzz:
	@sh scripts/deps.sh clang libclang-rt-14-dev
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang CXX=clang++ SAN=fuzz OPT="-O1 -g" CFLAGS="-Wno-format-nonliteral -Wno-missing-field-initializers" $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
	@failed=""; for f in $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%); do \
	  mkdir -p build-fuzz/corpus-$$f; echo "== fuzz_$$f, $(FUZZ_SECONDS) s"; \
	  case " $(FUZZ_FULL_STACKS) " in *" $$f "*) unwind=fast_unwind_on_malloc=0;; *) unwind=;; esac; \
	  ASAN_OPTIONS=$$unwind LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
	  build-fuzz/fuzz_$$f -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=build-fuzz/fuzz_$$f- \
	    build-fuzz/corpus-$$f tests/fuzz/corpus/$$f > build-fuzz/fuzz_$$f.log 2>&1; rc=$$?; \
	  grep -aE '^Done [0-9]+ runs|^SUMMARY|Test unit written' build-fuzz/fuzz_$$f.log | tail -n 2; \
	  [ $$rc -eq 0 ] || { echo "fuzz_$$f FAILED (exit $$rc): build-fuzz/fuzz_$$f.log"; failed="$$failed fuzz_$$f"; }; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failed:$$failed"; exit 1; fi; echo "fuzz: every target ran clean"

run: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) sh scripts/run-example.sh

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/dnsbatch/sys
	cp $(BUILD)/dnsbatch $(DESTDIR)$(PREFIX)/bin/
	cp $(BUILD)/libdnsbatch.a $(DESTDIR)$(PREFIX)/lib/
	cp include/dnsbatch/*.h $(DESTDIR)$(PREFIX)/include/dnsbatch/
	cp include/dnsbatch/sys/*.h $(DESTDIR)$(PREFIX)/include/dnsbatch/sys/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	  'Name: dnsbatch' 'Description: apply DNS change batches without one conflict blocking the rest' \
	  'Version: $(VERSION)' 'Requires: $(PKGS)' 'Libs: -L$${libdir} -ldnsbatch -lpthread -lm -lstdc++' \
	  'Cflags: -I$${includedir}' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/dnsbatch.pc

# The Dockerfile's runtime stage as a directory: its packages (scripts/runtime-packages.txt) and their
# dependencies, unpacked, and the program installed as the Dockerfile installs it. Debs kept in $(BUILD)/image/debs.
image-rootfs: all
	@rm -rf $(BUILD)/image/install
	@$(MAKE) --no-print-directory -s install PREFIX=/usr/local DESTDIR=$(abspath $(BUILD))/image/install >/dev/null
	@sh scripts/image-rootfs.sh $(BUILD)/image/install/usr/local/bin/dnsbatch $(BUILD)/image

# Every public header compiles alone, as a user's first #include would, with -pedantic.
check-headers:
	@for h in include/dnsbatch/*.h include/dnsbatch/sys/*.h; do \
	  if printf '#include "%s"\nint dnsb_header_check;\n' "$${h#include/}" | \
	    $(CC) -std=c11 -pedantic -Werror -Wall -Wextra -Iinclude $(PKG_CFLAGS) -x c -fsyntax-only -; \
	  then echo "ok - $$h compiles alone with -pedantic -Werror"; \
	  else echo "not ok - $$h compiles alone with -pedantic -Werror"; fi; \
	done

clean:
	rm -rf build build-san build-fuzz

.PHONY: all tests deps test sanitize bench soak fuzz run install image-rootfs check-headers clean

-include $(wildcard $(DEPS))
