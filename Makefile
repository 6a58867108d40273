# nosql: NoSQL data-modeling techniques inside SQLite.
#
#   make          build dist/nosql.so (load it with .load ./dist/nosql)
#   make demo     build, then run the side-by-side scripts in sql/
#   make test     build, then run every test file plain and under ASan+UBSan, the
#                 docs check, short robustness runs and SQLite 3.53 (a few minutes)
#   make test-all the same with the long robustness runs, every SQLite from 3.38
#                 to the newest, the npm package and dqlite (what CI runs)
#   make test-matrix  the suite against every SQLite of the version matrix
#   make test-hosts   the smoke set from the sqlite3 shell, Python, Tcl, Perl, Ruby (and Node:
#                     make test-hosts-node builds better-sqlite3 first)
#   make bench    side-by-side timings (SIZE=0.1 scales the data, ONLY=name picks workloads);
#                 the results also go to build/bench/results.json
#   make plots    the SVG charts in docs/img/ from bench runs at three small sizes
#   make wasm     dist/wasm/nosql.mjs + nosql.wasm (emscripten): SQLite and the extension for
#                 browsers and Node (docs/wasm.md); make test-browser runs the playground in Chromium
#   make static   dist/libnosql.a and dist/nosql.h for sqlite3_auto_extension hosts
#   make install  PREFIX=/usr/local DESTDIR=: extension, static library, header, nosql.pc
#   make dist     dist/nosql-VERSION-linux-x64.tar.gz (or linux-arm64 on an arm64 machine):
#                 stripped nosql.so with CRoaring and PCRE2 beside it
#   make npm      dist/sqlite-nosql-VERSION.tgz: the npm package (getLoadablePath(), load(db)),
#                 with the builds of linux-x64, linux-arm64 and windows-x64
#   make wheel    dist/sqlite_nosql-VERSION-py3-none-manylinux_2_17_<arch>.manylinux2014_<arch>.whl:
#                 the Python package (sqlite_nosql.load(conn), loadable_path())
#   make dist|wheel|test-platform PLATFORM=linux-x64|linux-arm64|windows-x64
#                 another platform's build, and its suite under qemu or wine (mk/platform.mk)
#   make release  every tarball, zip, wheel and the npm package in dist/, with SHA256SUMS
#   make lint     clang-format check and cppcheck
#   make fuzz     libFuzzer targets (clang, ASan+UBSan), FUZZ_TIME seconds each
#                 (FUZZ_ONLY=name picks targets); new crashes land in build/fuzz/
#
# Every target first checks its Debian packages (scripts/prereq.sh): as root it
# installs what is missing, otherwise it prints the apt-get line to run.
#
# macOS (untested: no macOS machine runs these tests; docs/install.md): make
# builds dist/nosql.dylib with clang, CRoaring, PCRE2 and SQLite's headers
# found through pkg-config (Homebrew's croaring, pcre2, sqlite), and checks no
# Debian packages; the test and release targets are Linux-only.

HOST_OS := $(shell uname -s)
ifeq ($(origin CC),default)
CC := $(if $(filter Darwin,$(HOST_OS)),clang,gcc)
endif
VERSION := $(shell cat VERSION)

# Debian packages each group of targets needs. Building (make, make install,
# make dist, make wheel, make static) needs only BUILD_PKGS; the sqlite3 shell
# is for make demo; the test targets also need the host languages the smoke
# set (tests/hosts/) loads the extension from.
BUILD_PKGS := $(if $(filter Darwin,$(HOST_OS)),,gcc make libc6-dev libsqlite3-dev libroaring-dev libpcre2-dev pkg-config)
DEMO_PKGS := sqlite3
TEST_PKGS := $(DEMO_PKGS) binutils python3 tcl libsqlite3-tcl libdbd-sqlite3-perl ruby-sqlite3

# Both cores (or every core) unless the caller chose a -j: a fresh clone's
# make test spends most of its build time compiling each file twice (plain
# and ASan), and the files are independent.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
LINT_PKGS := clang-format cppcheck
FUZZ_PKGS := clang libclang-rt-dev

WARN := -Wall -Wextra
BASE_CFLAGS := -O2 -g -fPIC $(WARN) -fvisibility=hidden -std=gnu11
EXT_CFLAGS := $(BASE_CFLAGS) -DNOSQL_VERSION='"$(VERSION)"'
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# CRoaring (libroaring-dev) holds the inverted index's posting bitmaps.
EXT_LIBS := -lroaring -lpcre2-8 -lm
HOST_LIBS := -lsqlite3 -lm -ldl
# The extension's file name and link flags: a .so on Linux; on Darwin a
# .dylib whose SQLite symbols stay unresolved until the host loads it.
SO := so
SHARED := -shared
ifeq ($(HOST_OS),Darwin)
SO := dylib
SHARED := -dynamiclib -undefined dynamic_lookup
EXT_CFLAGS += $(shell pkg-config --cflags roaring libpcre2-8 sqlite3)
EXT_LIBS := $(shell pkg-config --libs roaring libpcre2-8) -lm
endif

EXT_SRC := $(sort $(wildcard ext/*.c))
EXT_HDR := $(wildcard ext/*.h)
EXT_OBJ := $(EXT_SRC:ext/%.c=build/obj/%.o)
SAN_OBJ := $(EXT_SRC:ext/%.c=build/asan/obj/%.o)
STATIC_OBJ := $(EXT_SRC:ext/%.c=build/static/obj/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/unit/%)
SAN_UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/asan/unit/%)
RUNNER_SRC := tests/runner/slt.c tests/runner/md5.c
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))

PREREQ := build/prereq.stamp
DEMO_PREREQ := build/prereq-demo.stamp
TEST_PREREQ := build/prereq-test.stamp

.PHONY: all static test test-all test-matrix test-hosts test-hosts-node demo bench lint format clean prereq install uninstall dist npm wheel plots fuzz wasm test-browser
all: dist/nosql.$(SO)

# Builds for other platforms (PLATFORM=linux-arm64 ...): dist, wheel, test-platform.
include mk/platform.mk

$(PREREQ): Makefile scripts/prereq.sh
	@mkdir -p build
	@scripts/prereq.sh $(BUILD_PKGS)
	@touch $@

$(DEMO_PREREQ): Makefile scripts/prereq.sh | $(PREREQ)
	@scripts/prereq.sh $(DEMO_PKGS)
	@touch $@

$(TEST_PREREQ): Makefile scripts/prereq.sh | $(PREREQ)
	@scripts/prereq.sh $(TEST_PKGS)
	@touch $@

prereq: $(PREREQ) $(TEST_PREREQ)

# --- the extension --------------------------------------------------------
build/obj/%.o: ext/%.c VERSION | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(EXT_CFLAGS) -MMD -MP -c $< -o $@

# The static library calls SQLite directly (SQLITE_CORE), so a host can call
# sqlite3_nosql_init(db, &zErr, NULL) itself or pass it to sqlite3_auto_extension.
build/static/obj/%.o: ext/%.c VERSION | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(EXT_CFLAGS) -DSQLITE_CORE -MMD -MP -c $< -o $@

build/asan/obj/%.o: ext/%.c VERSION | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(EXT_CFLAGS) -O1 $(SAN_FLAGS) -MMD -MP -c $< -o $@

dist/nosql.$(SO): $(EXT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(SHARED) -fvisibility=hidden -o $@ $(EXT_OBJ) $(EXT_LIBS)

build/asan/nosql.so: $(SAN_OBJ)
	$(CC) -shared $(SAN_FLAGS) -o $@ $(SAN_OBJ) $(EXT_LIBS)

static: dist/libnosql.a dist/nosql.h

dist/libnosql.a: $(STATIC_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $(STATIC_OBJ)

dist/nosql.h: ext/nosql.h
	@mkdir -p $(@D)
	cp $< $@

# --- install and release -----------------------------------------------------
# make install PREFIX=/usr/local DESTDIR=: the loadable extension in
# $(LIBDIR)/nosql.so, the static library, the header, a pkg-config file and
# the reference pages. make dist: a tarball with a stripped nosql.so that
# finds the CRoaring and PCRE2 it ships beside itself ($ORIGIN rpath), for
# hosts without libroaring (Debian 12 is the oldest Debian that packages
# it) and with another PCRE2 or none; its name is the platform's
# (DIST_NAME, mk/platform.mk).
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DOCDIR ?= $(PREFIX)/share/doc/nosql
# The compiler's own multiarch directory: another architecture's CRoaring
# (libroaring-dev:arm64, installed for cross builds) must not be shipped.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
ROARING_SO := $(firstword $(wildcard /usr/lib/$(MULTIARCH)/libroaring.so.0 /usr/lib/libroaring.so.0))
PCRE2_SO := $(firstword $(wildcard /usr/lib/$(MULTIARCH)/libpcre2-8.so.0 /usr/lib/libpcre2-8.so.0))

# Written anew by every call, for the PREFIX of that call (an earlier
# make test installs with PREFIX=/usr; make install must not ship that).
.PHONY: build/nosql.pc
build/nosql.pc:
	@mkdir -p $(@D)
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: nosql' 'Description: NoSQL data-modeling techniques inside SQLite (static library)' \
	  'Version: $(VERSION)' 'Requires: sqlite3' 'Libs: -L$${libdir} -lnosql -lroaring -lpcre2-8 -lm' \
	  'Cflags: -I$${includedir}' >$@

install: dist/nosql.$(SO) static build/nosql.pc
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(DOCDIR)
	install -m 755 dist/nosql.$(SO) $(DESTDIR)$(LIBDIR)/nosql.$(SO)
	install -m 644 dist/libnosql.a $(DESTDIR)$(LIBDIR)/libnosql.a
	install -m 644 dist/nosql.h $(DESTDIR)$(INCLUDEDIR)/nosql.h
	install -m 644 build/nosql.pc $(DESTDIR)$(LIBDIR)/pkgconfig/nosql.pc
	install -m 644 README.md LICENSE CHANGELOG.md docs/*.md $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/nosql.$(SO) $(DESTDIR)$(LIBDIR)/libnosql.a $(DESTDIR)$(INCLUDEDIR)/nosql.h \
	  $(DESTDIR)$(LIBDIR)/pkgconfig/nosql.pc
	rm -rf $(DESTDIR)$(DOCDIR)

build/dist/nosql.so: $(EXT_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -fvisibility=hidden -Wl,-rpath,'$$ORIGIN' -o $@ $(EXT_OBJ) $(EXT_LIBS)
	strip --strip-unneeded $@

dist: dist-$(PLATFORM_TARGET)

dist-host: $(LINUX_ONLY) build/dist/nosql.so
	rm -rf build/$(DIST_NAME) && mkdir -p build/$(DIST_NAME)
	cp build/dist/nosql.so LICENSE README.md CHANGELOG.md build/$(DIST_NAME)/
	cp $(ROARING_SO) build/$(DIST_NAME)/libroaring.so.0
	cp $(PCRE2_SO) build/$(DIST_NAME)/libpcre2-8.so.0
	cp /usr/share/doc/libroaring0/copyright build/$(DIST_NAME)/LICENSE.croaring 2>/dev/null || true
	cp /usr/share/doc/libpcre2-8-0/copyright build/$(DIST_NAME)/LICENSE.pcre2 2>/dev/null || true
	tar czf dist/$(DIST_NAME).tar.gz -C build $(DIST_NAME)
	@echo "dist/$(DIST_NAME).tar.gz"

# The npm package (npm/, sqlite-vec's layout): one package for every platform
# of NPM_PLATFORMS (mk/platform.mk), each stripped build under lib/<platform>/
# with the libraries it needs but glibc's, packed into dist/sqlite-nosql-VERSION.tgz.
npm: $(LINUX_ONLY) $(NPM_BUILDS)
	@command -v npm >/dev/null || { echo "make npm needs Node's npm (apt-get install npm)"; exit 1; }
	rm -rf build/npm && mkdir -p build/npm/lib
	cp npm/index.cjs npm/index.mjs npm/index.d.ts npm/README.md LICENSE build/npm/
	sed -e 's/@VERSION@/$(VERSION)/' npm/package.json >build/npm/package.json
	$(foreach p,$(NPM_PLATFORMS),$(call npm_lib_$(p),build/npm/lib/$(p)) &&) true
	cd build/npm && npm pack --silent --pack-destination ../../dist >/dev/null
	@echo "dist/sqlite-nosql-$(VERSION).tgz"

# The Python wheel (python/, sqlite-vec's layout): the stripped extension and
# CRoaring in sqlite_nosql/, built offline with setuptools and wheel.
wheel: wheel-$(PLATFORM_TARGET)

wheel-host: $(LINUX_ONLY) build/dist/nosql.so
	@bash scripts/wheel.sh $(HOST_PLATFORM)

# --- test programs ----------------------------------------------------------
build/slt: $(RUNNER_SRC) tests/runner/md5.h | $(PREREQ)
	$(CC) $(BASE_CFLAGS) -o $@ $(RUNNER_SRC) $(HOST_LIBS)

build/asan/slt: $(RUNNER_SRC) tests/runner/md5.h | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O1 $(SAN_FLAGS) -o $@ $(RUNNER_SRC) $(HOST_LIBS)

build/unit/%: tests/unit/%.c tests/unit/unit.h tests/unit/unit_api.c $(EXT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -Iext -o $@ $< tests/unit/unit_api.c $(EXT_OBJ) $(HOST_LIBS) $(EXT_LIBS)

build/asan/unit/%: tests/unit/%.c tests/unit/unit.h tests/unit/unit_api.c $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O1 $(SAN_FLAGS) -Iext -o $@ $< tests/unit/unit_api.c $(SAN_OBJ) $(HOST_LIBS) $(EXT_LIBS)

# Damaged shadow tables: random edits, then every read, write and command.
build/damage: tests/damaged/damage.c | $(PREREQ)
	$(CC) $(BASE_CFLAGS) -o $@ $< $(HOST_LIBS)

build/asan/damage: tests/damaged/damage.c | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O1 $(SAN_FLAGS) -o $@ $< $(HOST_LIBS)

# Multi-process tests: children fork, each loads dist/nosql.so on its own connection.
build/concurrency/%: tests/concurrency/%.c tests/concurrency/fanout.h | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -o $@ $< $(HOST_LIBS)
# The planning property test: loads dist/nosql.so like any host.
build/property/plan: tests/property/plan.c tests/property/rows.h | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -o $@ $< $(HOST_LIBS)
build/property/history: tests/property/history.c tests/property/rows.h | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -o $@ $< $(HOST_LIBS)
build/property/hidden: tests/property/hidden.c | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -o $@ $< $(HOST_LIBS)
build/property/nearest: tests/property/nearest.c | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -o $@ $< $(HOST_LIBS) -lm
build/property/graph_index: tests/property/graph_index.c | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -o $@ $< $(HOST_LIBS)
build/property/triggers: tests/property/triggers.c tests/property/rows.h | $(PREREQ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -o $@ $< $(HOST_LIBS)
# The seeded generator, the statement runner and the opener they share.
build/property/plan build/property/history build/property/hidden build/property/graph_index build/property/triggers: tests/property/prop.h
build/crash: tests/crash/crash.c $(EXT_OBJ)
	$(CC) $(BASE_CFLAGS) -Iext -o $@ $< $(EXT_OBJ) $(HOST_LIBS) $(EXT_LIBS)

build/oom: tests/oom/oom.c $(EXT_OBJ)
	$(CC) $(BASE_CFLAGS) -Iext -o $@ $< $(EXT_OBJ) $(HOST_LIBS) $(EXT_LIBS)

build/asan/oom: tests/oom/oom.c $(SAN_OBJ)
	$(CC) $(BASE_CFLAGS) -O1 $(SAN_FLAGS) -Iext -o $@ $< $(SAN_OBJ) $(HOST_LIBS) $(EXT_LIBS)

build/interrupt: tests/interrupt/interrupt.c $(EXT_OBJ)
	$(CC) $(BASE_CFLAGS) -Iext -o $@ $< $(EXT_OBJ) $(HOST_LIBS) $(EXT_LIBS)

build/asan/interrupt: tests/interrupt/interrupt.c $(SAN_OBJ)
	$(CC) $(BASE_CFLAGS) -O1 $(SAN_FLAGS) -Iext -o $@ $< $(SAN_OBJ) $(HOST_LIBS) $(EXT_LIBS)

build/static-host: tests/static/host.c dist/libnosql.a dist/nosql.h
	$(CC) $(BASE_CFLAGS) -Idist -o $@ tests/static/host.c dist/libnosql.a $(HOST_LIBS) $(EXT_LIBS)

# The benchmark program lives in build/bench/ beside its results
# (build/bench/results.json); an older checkout's build/bench file goes.
build/bench/bench: $(BENCH_SRC) tests/bench/bench.h $(STATIC_OBJ)
	@if [ -f build/bench ]; then rm -f build/bench; fi
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -DSQLITE_CORE -DNOSQL_VERSION='"$(VERSION)"' -Iext -o $@ $(BENCH_SRC) $(STATIC_OBJ) $(HOST_LIBS) $(EXT_LIBS)

# --- fuzzing ----------------------------------------------------------------
# One libFuzzer target per parser and decoder (tests/fuzz/fuzz_*.c, helpers
# in fuzz.h). make test replays tests/fuzz/corpus/<target>/ through gcc builds
# of the same targets (replay.c is their main()), plain and with ASan, so it
# needs no clang; make fuzz builds them with clang -fsanitize=fuzzer and runs
# each for FUZZ_TIME seconds on a copy of its corpus in build/fuzz/corpus/.
# A crash is written to build/fuzz/crashes/<target>-*: copy it into
# tests/fuzz/corpus/<target>/ as a regression once it is fixed.
FUZZ_CC ?= clang
FUZZ_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_OBJ := $(EXT_SRC:ext/%.c=build/fuzz/obj/%.o)
FUZZ_TIME ?= 60
FUZZ_ONLY ?=
comma := ,
FUZZ_RUN := $(if $(FUZZ_ONLY),$(filter $(addprefix fuzz_,$(subst $(comma), ,$(FUZZ_ONLY))),$(FUZZ_TARGETS)),$(FUZZ_TARGETS))

build/fuzz/prereq.stamp: Makefile scripts/prereq.sh | $(PREREQ)
	@mkdir -p $(@D)
	@scripts/prereq.sh $(FUZZ_PKGS)
	@touch $@

build/fuzz/obj/%.o: ext/%.c VERSION | build/fuzz/prereq.stamp
	@mkdir -p $(@D)
	$(FUZZ_CC) $(EXT_CFLAGS) -O1 $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	$(FUZZ_CC) $(BASE_CFLAGS) -O1 $(FUZZ_FLAGS) -fsanitize=fuzzer -Iext -o $@ $< $(FUZZ_OBJ) $(HOST_LIBS) $(EXT_LIBS)

build/fuzz-replay/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h tests/fuzz/replay.c $(EXT_OBJ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -Iext -o $@ $< tests/fuzz/replay.c $(EXT_OBJ) $(HOST_LIBS) $(EXT_LIBS)

build/asan/fuzz-replay/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h tests/fuzz/replay.c $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) -O1 $(SAN_FLAGS) -Iext -o $@ $< tests/fuzz/replay.c $(SAN_OBJ) $(HOST_LIBS) $(EXT_LIBS)

fuzz: $(FUZZ_RUN:%=build/fuzz/%)
	@mkdir -p build/fuzz/crashes
	@for t in $(FUZZ_RUN); do \
	  mkdir -p build/fuzz/corpus/$$t; \
	  echo "=== $$t: $(FUZZ_TIME) s"; \
	  build/fuzz/$$t -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/crashes/$$t- build/fuzz/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

# --- WebAssembly (docs/wasm.md) ----------------------------------------------
# SQLite (the amalgamation of better-sqlite3 WASM_SQLITE, fetched as for the
# version matrix), the extension (-DSQLITE_CORE, registered by wasm/glue.c as
# an auto-extension), CRoaring and PCRE2 (Debian's source packages, built by
# scripts/thirdparty.sh) compiled with Debian's emscripten into one module.
# Debian's emscripten runs its JS tools with /usr/bin/node, which finds
# Debian's acorn only through NODE_PATH. make wasm also copies the module and
# the sql/ scripts into docs/playground/ (not committed: .gitignore).
WASM_PKGS := emscripten
space := $(subst ,, )
WASM_SQLITE := 13.2.0
WASM_ENV := NODE_PATH=/usr/share/nodejs
EMCC := $(WASM_ENV) emcc
WASM_TP := build/wasm/thirdparty
WASM_SQLITE_OPTS := -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS \
  -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0 -DSQLITE_TEMP_STORE=3 -DSQLITE_DEFAULT_MEMSTATUS=0
WASM_CFLAGS := -O2 -Wno-missing-field-initializers -DNOSQL_VERSION='"$(VERSION)"' -DSQLITE_CORE -I$(WASM_TP)/include -Ibuild/wasm/include -Iext
WASM_OBJ := $(EXT_SRC:ext/%.c=build/wasm/obj/%.o) build/wasm/obj/glue.o
WASM_EXPORTS := malloc free nosqlWasmInit nosqlWasmBindInt64 nosqlWasmBindInt64Dec sqlite3_open_v2 sqlite3_close_v2 \
  sqlite3_errmsg sqlite3_prepare_v2 sqlite3_step sqlite3_reset sqlite3_finalize sqlite3_clear_bindings \
  sqlite3_bind_parameter_index sqlite3_bind_null sqlite3_bind_int sqlite3_bind_double sqlite3_bind_text \
  sqlite3_bind_blob sqlite3_data_count sqlite3_column_count sqlite3_column_name sqlite3_column_type \
  sqlite3_column_double sqlite3_column_text sqlite3_column_blob sqlite3_column_bytes sqlite3_sql \
  sqlite3_changes sqlite3_serialize sqlite3_deserialize sqlite3_malloc sqlite3_free sqlite3_complete \
  sqlite3_libversion
WASM_LDFLAGS := -O2 -sMODULARIZE=1 -sEXPORT_ES6=1 -sENVIRONMENT=web,worker -sALLOW_MEMORY_GROWTH=1 \
  -sEXPORTED_FUNCTIONS=$(subst $(space),$(comma),$(WASM_EXPORTS:%=_%)) \
  -sEXPORTED_RUNTIME_METHODS=UTF8ToString,stringToUTF8,lengthBytesUTF8,getValue,setValue


$(WASM_TP)/lib/libroaring.a: scripts/thirdparty.sh | build/prereq-wasm.stamp
	$(WASM_ENV) AR=emar scripts/thirdparty.sh emcc $(WASM_TP)

build/prereq-wasm.stamp: scripts/prereq.sh
	@mkdir -p $(@D)
	@scripts/prereq.sh $(WASM_PKGS) && touch $@

# The amalgamation's sqlite3.h beside Debian's sqlite3ext.h (libsqlite3-dev:
# better-sqlite3 ships no sqlite3ext.h), which includes it from its own
# directory; with SQLITE_CORE the extension calls SQLite directly.
build/wasm/include/sqlite3.h: build/matrix/$(WASM_SQLITE)/sqlite3.c | $(PREREQ)
	@mkdir -p $(@D)
	cp build/matrix/$(WASM_SQLITE)/sqlite3.h /usr/include/sqlite3ext.h $(@D)/

build/wasm/obj/sqlite3.o: build/matrix/$(WASM_SQLITE)/sqlite3.c | build/prereq-wasm.stamp
	@mkdir -p $(@D)
	$(EMCC) -O2 -w $(WASM_SQLITE_OPTS) -c $< -o $@

build/wasm/obj/%.o: ext/%.c VERSION $(WASM_TP)/lib/libroaring.a build/wasm/include/sqlite3.h
	@mkdir -p $(@D)
	$(EMCC) $(WASM_CFLAGS) $(WARN) -MMD -MP -c $< -o $@

build/wasm/obj/glue.o: wasm/glue.c ext/nosql.h build/wasm/include/sqlite3.h | build/prereq-wasm.stamp
	@mkdir -p $(@D)
	$(EMCC) $(WASM_CFLAGS) $(WARN) -c $< -o $@

# emcc writes the factory (build/wasm/nosql-core.mjs); wasm/wrapper.mjs
# replaces its export with one that hands it the .wasm bytes (fetched, or
# read from disk under Node), so one file serves browsers, workers and Node.
dist/wasm/nosql.mjs: $(WASM_OBJ) build/wasm/obj/sqlite3.o wasm/api.js wasm/wrapper.mjs
	@mkdir -p $(@D)
	$(EMCC) $(WASM_LDFLAGS) --post-js wasm/api.js -o build/wasm/nosql-core.mjs $(WASM_OBJ) build/wasm/obj/sqlite3.o \
	  $(WASM_TP)/lib/libroaring.a $(WASM_TP)/lib/libpcre2-8.a
	sed 's/^export default Module;$$/const nosqlFactory = Module;/' build/wasm/nosql-core.mjs >$@.tmp
	grep -q '^const nosqlFactory = Module;$$' $@.tmp
	cat wasm/wrapper.mjs >>$@.tmp
	mv $@.tmp $@
	cp build/wasm/nosql-core.wasm dist/wasm/nosql.wasm
	cat $(WASM_TP)/LICENSE.croaring >dist/wasm/LICENSE.croaring
	cat $(WASM_TP)/LICENSE.pcre2 >dist/wasm/LICENSE.pcre2

# The reference the WebAssembly build is compared with (tests/wasm/): the
# sqlite3 shell (Debian's) on a native libsqlite3.so.0 of the same
# amalgamation and options, so that both sides run the same SQLite (the
# shell's own 3.40 differs from 3.54 in ways that show: subtypes through
# subqueries, bytecode step counts). The shell is started with
# LD_LIBRARY_PATH=build/wasm/native LD_PRELOAD=build/wasm/native/shell_id.so.
build/wasm/native/libsqlite3.so.0: build/matrix/$(WASM_SQLITE)/sqlite3.c
	@mkdir -p $(@D)
	$(CC) -O2 -fPIC -shared -w $(filter-out -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_THREADSAFE=0,$(WASM_SQLITE_OPTS)) \
	  -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_PREUPDATE_HOOK \
	  -Wl,-soname,libsqlite3.so.0 -o $@ $< -lm

# The shell checks that the library's source id is its own (wasm/shell_id.c).
build/wasm/native/shell_id.so: wasm/shell_id.c | $(DEMO_PREREQ)
	@mkdir -p $(@D)
	$(CC) -O2 -fPIC -shared -DSHELL_SOURCE_ID='"'"$$(sqlite3 -version | cut -d' ' -f2-4)"'"' -o $@ $<

wasm: dist/wasm/nosql.mjs
	@mkdir -p docs/playground/dist docs/playground/sql
	cp dist/wasm/nosql.mjs dist/wasm/nosql.wasm docs/playground/dist/
	cp sql/*.sql docs/playground/sql/
	@echo "dist/wasm/nosql.wasm: $$(wc -c <dist/wasm/nosql.wasm) bytes, $$(gzip -9 <dist/wasm/nosql.wasm | wc -c) gzipped"

# make test-browser: the module under Node and the playground in headless
# Chromium against the native shell (tests/wasm/browser.sh; skipped with a
# message without emscripten or chromium). make test-all runs it.
test-browser:
	@bash tests/wasm/browser.sh

-include $(WASM_OBJ:.o=.d)

# --- the SQLite version matrix ------------------------------------------------
# The runner built against SQLite amalgamations that npm packages of
# better-sqlite3 bundle (fetched into build/matrix/<npm version>/, never
# committed; the table is in scripts/sqlite-amalgamation.sh). make test runs
# the suite against 3.53.4 (3.52-3.53 are the releases whose
# sqlite3_value_numeric_type needs a connection); make test-all and make
# test-matrix against every release line from the floor to the newest;
# 7.5.0 (SQLite 3.37.2) must refuse to load.
MATRIX_CI := 13.0.3
MATRIX_ALL := 7.5.1 7.6.2 8.2.0 8.5.0 9.0.0 9.2.2 9.4.0 11.3.0 11.7.0 11.8.1 11.10.0 12.4.1 12.8.0 12.9.0 13.0.3 13.2.0
MATRIX_OLD := 7.5.0
MATRIX_OPTS := -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS

build/matrix/%/sqlite3.c: | $(PREREQ)
	scripts/sqlite-amalgamation.sh $* $(@D)

build/matrix/%/sqlite3.o: build/matrix/%/sqlite3.c
	$(CC) -O0 -w $(MATRIX_OPTS) -c -o $@ $<

build/matrix/%/slt: $(RUNNER_SRC) tests/runner/md5.h build/matrix/%/sqlite3.o
	$(CC) $(BASE_CFLAGS) -Ibuild/matrix/$* -o $@ $(RUNNER_SRC) build/matrix/$*/sqlite3.o -lm -ldl -lpthread

.PRECIOUS: build/matrix/%/sqlite3.c build/matrix/%/sqlite3.o

test-matrix: dist/nosql.so $(MATRIX_ALL:%=build/matrix/%/slt) $(MATRIX_OLD:%=build/matrix/%/slt) | $(TEST_PREREQ)
	@MATRIX="$(MATRIX_ALL)" MATRIX_OLD="$(MATRIX_OLD)" bash tests/matrix.sh

CONC_BIN := $(patsubst tests/concurrency/%.c,build/concurrency/%,$(sort $(wildcard tests/concurrency/*.c)))
TEST_BUILD := dist/nosql.so build/slt $(UNIT_BIN) $(CONC_BIN) build/property/plan build/property/history build/property/hidden build/property/graph_index build/property/triggers build/property/nearest build/static-host build/bench/bench build/damage \
              $(FUZZ_TARGETS:%=build/fuzz-replay/%) build/crash build/oom build/interrupt \
              build/asan/nosql.so build/asan/slt $(SAN_UNIT_BIN) build/asan/damage build/asan/oom \
              $(FUZZ_TARGETS:%=build/asan/fuzz-replay/%) \
              $(MATRIX_CI:%=build/matrix/%/slt)
TEST_ALL_BUILD := $(TEST_BUILD) build/asan/interrupt $(MATRIX_ALL:%=build/matrix/%/slt) $(MATRIX_OLD:%=build/matrix/%/slt) $(PLATFORM_TEST_BUILD)
TEST_ENV := MATRIX_CI="$(MATRIX_CI)" MATRIX_ALL="$(MATRIX_ALL)" MATRIX_OLD="$(MATRIX_OLD)"

# make test: every test file, plain and under ASan+UBSan, the docs check and
# short runs of the robustness tests (a few minutes on 2 cores). make
# test-all: the same with the long settings, plus the version matrix, the
# npm package and the dqlite example (what CI runs; about 18 minutes).
test: $(LINUX_ONLY) $(TEST_BUILD) | $(TEST_PREREQ)
	@$(TEST_ENV) bash tests/run.sh

test-all: $(LINUX_ONLY) $(TEST_ALL_BUILD) | $(TEST_PREREQ)
	@$(TEST_ENV) bash tests/run.sh --all

# The smoke set from every host language installed (make test runs it too).
test-hosts: dist/nosql.so | $(TEST_PREREQ)
	@bash tests/hosts/run.sh

# Node: builds better-sqlite3 from the npm registry into tests/hosts/node_modules.
test-hosts-node: dist/nosql.so | $(TEST_PREREQ)
	@bash scripts/node-host.sh
	@bash tests/hosts/run.sh

# --- demo and bench ---------------------------------------------------------
demo: dist/nosql.so | $(DEMO_PREREQ)
	@for f in sql/*.sql; do \
	  echo "=== $$f"; \
	  sqlite3 -bail :memory: < $$f || exit 1; \
	done

SIZE ?= 1
ONLY ?=
bench: build/bench/bench
	build/bench/bench --size $(SIZE) $(if $(ONLY),--only $(ONLY))

# The charts in docs/img/ (scripts/plot.py: plain SVG, Python's standard
# library only) from bench runs at three small sizes, so that each
# technique's cost per row shows how it grows.
PLOT_SIZES ?= 0.01 0.03 0.1
plots: build/bench/bench
	@for s in $(PLOT_SIZES); do \
	  echo "=== bench --size $$s"; \
	  build/bench/bench --size $$s --json build/bench/results-$$s.json >build/bench/results-$$s.md || exit 1; \
	done
	python3 scripts/plot.py --out docs/img $(PLOT_SIZES:%=build/bench/results-%.json)

# --- lint -------------------------------------------------------------------
LINT_SRC := $(wildcard ext/*.c ext/*.h tests/runner/*.c tests/runner/*.h tests/unit/*.c tests/unit/*.h \
                       tests/bench/*.c tests/bench/*.h tests/static/*.c tests/damaged/*.c tests/concurrency/*.c tests/concurrency/*.h \
                       tests/fuzz/*.c tests/fuzz/*.h tests/crash/*.c tests/oom/*.c tests/interrupt/*.c tests/property/*.c tests/property/*.h)
lint: | $(PREREQ)
	@scripts/prereq.sh $(LINT_PKGS)
	clang-format --dry-run --Werror $(LINT_SRC)
	cppcheck --quiet --error-exitcode=1 --inline-suppr --std=c11 \
	  --enable=warning,portability,performance \
	  --suppress=missingIncludeSystem -i tests/hosts/node_modules -I ext ext tests

clean:
	rm -rf build dist docs/playground/dist docs/playground/sql

-include $(EXT_OBJ:.o=.d) $(SAN_OBJ:.o=.d) $(STATIC_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d)

format:
	clang-format -i $(LINT_SRC)
