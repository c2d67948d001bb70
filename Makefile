# dnsbatch - plain Makefile with pkg-config.
#   make            library (build/libdnsbatch.a) and program (build/dnsbatch)
#   make run        apply an example plan to a temp copy of the example zone
#   make test       every test (unit, integration with real servers)
#   make sanitize   the tests under AddressSanitizer and UndefinedBehaviorSanitizer
#   make bench      benchmarks (figures printed, nothing asserted)
#   make soak       random fault schedules on every provider, judged (SOAK_SCHEDULES per provider, default 1000)
#   make deps       install the Debian packages building needs (no server: those are make test-deps)
#   make test-deps  install the servers and tools the tests start (make test and make sanitize run it)
#   make shared     the shared library build/libdnsbatch.so.$(VERSION) (soname libdnsbatch.so.$(SOVERSION))
#   make WERROR=0   warnings stay warnings (packagers on newer compilers); the default keeps -Werror
#   make install    PREFIX=/usr/local DESTDIR= LIBDIR=  (program, both libraries, headers, dnsbatch.pc)
#   make install-doc  the man pages, the bash completion and the examples (after make man)
#   make man        man pages and bash completion from `dnsbatch help --json` (build/man/man1, build/man/completion)
#   make deb        Debian packages dnsbatch, libdnsbatch$(SOVERSION), libdnsbatch-dev in build/deb
#   make dist       the source tarball build/dnsbatch-$(VERSION).tar.gz
#   make check-repro  two .deb builds from the tarball, in two directories, are byte-identical
#   make image      the container image $(IMAGE):$(VERSION) (docker, podman or buildah)
#   make image-rootfs  the container image's root filesystem, without a container daemon ($(BUILD)/image/rootfs)
.SUFFIXES:

PREFIX  ?= /usr/local
LIBDIR  ?= $(PREFIX)/lib
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
# The shared library's ABI number (its soname libdnsbatch.so.N): raised when an exported function changes or goes.
SOVERSION = 0
IMAGE   ?= ghcr.io/dnsbatch/dnsbatch
SAN     ?= 0

# WERROR=0 builds with the warnings but without -Werror, for packagers on a newer compiler than CI's (as hiredis's
# USE_WERROR); the default, and CI, keep -Werror.
WERROR  ?= 1
WERROR_FLAG_1 = -Werror
WERROR_FLAG = $(WERROR_FLAG_$(WERROR))
WARN     = -Wall -Wextra $(WERROR_FLAG) -Wstrict-prototypes -Wmissing-prototypes -Wshadow \
           -Wpointer-arith -Wwrite-strings -Wformat=2 -Wundef -Wvla
# The same for C++ (only applier/webhook/re2.cc, the C view of RE2), less the C-only warnings.
CXXWARN  = -Wall -Wextra $(WERROR_FLAG) -Wmissing-declarations -Wshadow \
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

# The library: every folder of applier/, and providers/ with every folder below it (two levels), found by
# wildcard: a new backend's folder needs no line here. The program (cli/) stands above both and links it.
LIB_DIRS = $(patsubst %/,%,$(sort $(dir $(wildcard applier/*/*.c applier/*/*.cc)))) \
           $(patsubst %/,%,$(sort $(dir $(wildcard providers/*.c providers/*/*.c providers/*/*.cc \
                                                   providers/*/*/*.c providers/*/*/*.cc))))
LIB_SRC  = $(sort $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c)))
LIB_CXX_SRC = $(sort $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.cc)))
CLI_SRC  = $(sort $(wildcard cli/*.c))
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

# The library's objects are position-independent: the same objects make libdnsbatch.a (which the
# program and the tests link) and libdnsbatch.so. Its few thread-local variables take the
# initial-exec model: with -fPIC's default every program would need __tls_get_addr, and so name
# ld-linux among its libraries (scripts/runtime-packages.sh). The stamp holds these flags: objects
# compiled with others are compiled again.
LIB_PIC = -fPIC -ftls-model=initial-exec
$(LIB_OBJ): ALL_CFLAGS += $(LIB_PIC)
$(LIB_OBJ): ALL_CXXFLAGS += $(LIB_PIC)
$(LIB_OBJ): $(BUILD)/.lib-pic
$(BUILD)/.lib-pic: FORCE
	@mkdir -p $(BUILD); [ "$$(cat $@ 2>/dev/null)" = "$(LIB_PIC)" ] || echo "$(LIB_PIC)" > $@
FORCE:

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(ALL_CXXFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/libdnsbatch.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

# Only the public headers' functions are exported (packaging/libdnsbatch.map, scripts/public-symbols.sh).
SHLIB = $(BUILD)/libdnsbatch.so.$(VERSION)
$(SHLIB): $(LIB_OBJ) packaging/libdnsbatch.map
	$(CC) -shared $(ALL_LDFLAGS) -Wl,-soname,libdnsbatch.so.$(SOVERSION) -Wl,--version-script=packaging/libdnsbatch.map \
	  -Wl,--no-undefined -Wl,--no-undefined-version -Wl,-z,relro -Wl,-z,now -o $@ $(LIB_OBJ) $(LIBS)
	ln -sf libdnsbatch.so.$(VERSION) $(BUILD)/libdnsbatch.so.$(SOVERSION)
	ln -sf libdnsbatch.so.$(SOVERSION) $(BUILD)/libdnsbatch.so

shared: $(SHLIB)

$(BUILD)/dnsbatch: $(CLI_OBJ) $(BUILD)/libdnsbatch.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libdnsbatch.a $(LIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libdnsbatch.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PROG_DEPFLAGS) -Itests -o $@ $< $(BUILD)/libdnsbatch.a $(TEST_LIBS) $(LIBS)

# test_alloc_fail fails libdnsbatch.a's allocations one at a time: the allocator its objects call is wrapped at link
# time (under the sanitizers too).
ALLOC_WRAP = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup,--wrap=asprintf,--wrap=vasprintf
$(BUILD)/tests/unit/test_alloc_fail: tests/unit/test_alloc_fail.c $(BUILD)/libdnsbatch.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PROG_DEPFLAGS) -Itests $(ALLOC_WRAP) -o $@ $< $(BUILD)/libdnsbatch.a $(TEST_LIBS) $(LIBS)

$(BUILD)/bench_%: tests/bench/bench_%.c $(BUILD)/libdnsbatch.a
	$(CC) $(ALL_CFLAGS) $(PROG_DEPFLAGS) -Itests -o $@ $< $(BUILD)/libdnsbatch.a $(LIBS)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/libdnsbatch.a
	$(CC) $(ALL_CFLAGS) $(PROG_DEPFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libdnsbatch.a $(LIBS)

$(BUILD)/%: tests/fakes/%.c $(BUILD)/libdnsbatch.a
	$(CC) $(ALL_CFLAGS) $(PROG_DEPFLAGS) -Itests -o $@ $< $(BUILD)/libdnsbatch.a $(LIBS)

tests: all $(TEST_BIN) $(FAKE_BIN) $(CONF_BIN)

deps:
	@sh scripts/deps.sh

test-deps:
	@sh scripts/deps.sh --test

package-deps:
	@sh scripts/deps.sh --package

test: test-deps
	@$(MAKE) --no-print-directory tests
	@BUILD=$(BUILD) bash scripts/run-tests.sh

sanitize: test-deps
	@$(MAKE) --no-print-directory BUILD=build-san SAN=1 OPT="-O1 -g" tests
	@BUILD=build-san SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 bash scripts/run-tests.sh

SOAK_SCHEDULES ?= 1000
SOAK_SEED ?= 1
SOAK_PROVIDERS ?=
SOAK_JOBS ?= 1
# The conformance suite's random mode (tests/conformance/README.md): per provider the count run and the false outcomes.
soak: test-deps
	@$(MAKE) --no-print-directory tests
	@BUILD=$(BUILD) bash tests/conformance/run.sh --random $(SOAK_SCHEDULES) --seed $(SOAK_SEED) --quiet \
	  --jobs $(SOAK_JOBS) $(if $(SOAK_PROVIDERS),--providers $(SOAK_PROVIDERS))

bench: test-deps
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

# The program, both libraries, the headers and dnsbatch.pc: what building needs alone (the image's
# build stage runs it). The man pages, the completion and the examples: make install-doc.
install: all shared
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include/dnsbatch/sys
	install -m 0755 $(BUILD)/dnsbatch $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(BUILD)/libdnsbatch.a $(DESTDIR)$(LIBDIR)/
	install -m 0644 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libdnsbatch.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libdnsbatch.so.$(SOVERSION)
	ln -sf libdnsbatch.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libdnsbatch.so
	install -m 0644 include/dnsbatch/*.h $(DESTDIR)$(PREFIX)/include/dnsbatch/
	install -m 0644 include/dnsbatch/sys/*.h $(DESTDIR)$(PREFIX)/include/dnsbatch/sys/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$${prefix}/include' '' \
	  'Name: dnsbatch' 'Description: apply DNS change batches without one conflict blocking the rest' \
	  'Version: $(VERSION)' 'Requires: ldns' 'Requires.private: $(filter-out ldns,$(PKGS))' \
	  'Libs: -L$${libdir} -ldnsbatch' 'Libs.private: -lpthread -lm -lstdc++' \
	  'Cflags: -I$${includedir}' > $(DESTDIR)$(LIBDIR)/pkgconfig/dnsbatch.pc

install-doc: man
	mkdir -p $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/doc/dnsbatch
	install -m 0644 $(BUILD)/man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(BUILD)/man/completion/dnsbatch $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dnsbatch
	cp -R examples $(DESTDIR)$(PREFIX)/share/doc/dnsbatch/

# Man pages and bash completion from the flag tables, as `dnsbatch help --json` prints them
# (HELP_JSON=FILE takes them from a file instead: tests/integration/help_fixture.json in its test).
HELP_JSON ?=
man: all
	@sh scripts/deps.sh --package
	@rm -rf $(BUILD)/man
	@mkdir -p $(BUILD)/man
	@if [ -n "$(HELP_JSON)" ]; then cp $(HELP_JSON) $(BUILD)/man/help.json; \
	else $(BUILD)/dnsbatch help --json > $(BUILD)/man/help.json; fi
	python3 scripts/gen-man.py $(BUILD)/man/help.json $(BUILD)/man $(VERSION)

# The Debian packages (packaging/, scripts/deb.sh): dnsbatch, libdnsbatch$(SOVERSION), libdnsbatch-dev.
deb:
	@sh scripts/deps.sh --package
	@sh scripts/deb.sh $(BUILD)/deb

# The source tarball: the files git tracks (git archive) at HEAD, or the tree's files outside a checkout.
dist:
	@sh scripts/deps.sh --package
	@sh scripts/dist.sh $(BUILD)

# Two builds of the .deb from the tarball, in two directories, are byte-identical (scripts/check-repro.sh).
check-repro: dist
	@sh scripts/check-repro.sh $(BUILD)/dnsbatch-$(VERSION).tar.gz $(BUILD)/repro

# The container image, tagged with the version of include/dnsbatch/version.h.
image-name:
	@echo "$(IMAGE):$(VERSION)"

image:
	@echo "$(IMAGE):$(VERSION)"
	@tool=$$(for t in docker podman buildah; do command -v $$t >/dev/null && echo $$t && break; done); \
	[ -n "$$tool" ] || { echo "make image: no docker, podman or buildah; make image-rootfs makes its root filesystem" >&2; exit 1; }; \
	if [ $$tool = buildah ]; then buildah bud --build-arg VERSION=$(VERSION) -t $(IMAGE):$(VERSION) .; \
	else $$tool build --build-arg VERSION=$(VERSION) -t $(IMAGE):$(VERSION) .; fi

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

.PHONY: all tests deps test-deps package-deps test sanitize bench soak fuzz run install install-doc man deb dist \
	check-repro image image-name shared FORCE image-rootfs check-headers clean

-include $(wildcard $(DEPS))
