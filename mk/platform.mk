# mk/platform.mk: builds for platforms other than the native one (issue 40),
# included by the Makefile. Without PLATFORM nothing here changes a target.
#
#   make dist PLATFORM=linux-arm64           dist/nosql-VERSION-linux-arm64.tar.gz
#   make test-platform PLATFORM=linux-arm64  the runner built for aarch64 runs every
#                                            tests/**/*.test file and the docs check
#                                            under qemu-aarch64 (tests/platform.sh)
#   make test-platform PLATFORM=linux-x64    the same on this machine, natively
#   make wheel PLATFORM=linux-arm64          dist/sqlite_nosql-VERSION-py3-none-
#                                            manylinux_2_17_aarch64.manylinux2014_aarch64.whl
#   make dist PLATFORM=windows-x64           dist/nosql-VERSION-windows-x64.zip: nosql.dll
#   make wheel PLATFORM=windows-x64          dist/sqlite_nosql-VERSION-py3-none-win_amd64.whl
#   make test-platform PLATFORM=windows-x64  the runner built with mingw-w64 (SQLite
#                                            linked in from an amalgamation) under wine
#
# linux-arm64 is built with Debian's cross compiler against Debian's arm64
# multiarch libraries (dpkg --add-architecture arm64; ARM64_PKGS), and its
# programs run under Debian's qemu-user with the arm64 libraries of
# /usr/aarch64-linux-gnu (the cross libc) and /usr/lib/aarch64-linux-gnu.
#
# windows-x64 is built with Debian's mingw-w64: CRoaring and PCRE2 compiled
# from Debian's own source packages into static libraries
# (scripts/thirdparty.sh) and linked into nosql.dll with libgcc and
# winpthreads, so that the DLL imports only KERNEL32.dll and msvcrt.dll.
# The extension compiles against Debian's SQLite headers as on Linux; the
# runner links the amalgamation of make test's SQLite (tests/matrix.sh's,
# from npm's better-sqlite3) and runs under Debian's wine in a private
# prefix, build/windows-x64/wine.
#
# PLATFORM with a value not in PLATFORMS stops make with the list.

PLATFORMS := linux-x64 linux-arm64 windows-x64
HOST_PLATFORM := $(patsubst %,linux-%,$(shell uname -m | sed -e 's/x86_64/x64/' -e 's/aarch64/arm64/'))
# make dist's tarball for this machine: dist/nosql-VERSION-linux-x64.tar.gz
# on x86-64, named like every platform's archive.
DIST_NAME := nosql-$(VERSION)-$(HOST_PLATFORM)
# macOS (untested) builds dist/nosql.dylib only: the archives, wheels and
# platform suites stop with this target's message there.
LINUX_ONLY := $(if $(filter Darwin,$(HOST_OS)),linux-only)
linux-only:
	@echo "make: the release archives, wheels and test targets are built on Linux; on macOS make builds dist/nosql.dylib (untested, docs/install.md)" >&2
	@exit 2
PLATFORM ?=
ifneq ($(PLATFORM),)
ifeq ($(filter $(PLATFORM),$(PLATFORMS)),)
$(error PLATFORM=$(PLATFORM) is not a known platform; known platforms: $(PLATFORMS))
endif
endif

# The dist and wheel targets of the Makefile build for $(PLATFORM_TARGET):
# "host" for the native build, or a platform this file cross-builds.
PLATFORM_TARGET := $(if $(filter-out $(HOST_PLATFORM),$(PLATFORM)),$(PLATFORM),host)

# --- linux-arm64 ---------------------------------------------------------------
ARM64_CC := aarch64-linux-gnu-gcc
ARM64_STRIP := aarch64-linux-gnu-strip
ARM64_LIBDIR := /usr/lib/aarch64-linux-gnu
ARM64_RUN := qemu-aarch64 -L /usr/aarch64-linux-gnu
ARM64_PKGS := gcc-aarch64-linux-gnu qemu-user libsqlite3-dev:arm64 libroaring-dev:arm64 libpcre2-dev:arm64
ARM64_OBJ := $(EXT_SRC:ext/%.c=build/linux-arm64/obj/%.o)
ARM64_DIST := nosql-$(VERSION)-linux-arm64

# The arm64 packages need the architecture added first; prereq.sh installs
# the rest as for any target.
build/linux-arm64/prereq.stamp: mk/platform.mk scripts/prereq.sh | $(PREREQ)
	@mkdir -p $(@D)
	@dpkg --print-foreign-architectures | grep -q -x arm64 || \
	  { [ "$$(id -u)" -eq 0 ] && dpkg --add-architecture arm64 && apt-get update -q >/dev/null; } || \
	  { echo "nosql: run: sudo dpkg --add-architecture arm64 && sudo apt-get update" >&2; exit 1; }
	@scripts/prereq.sh $(ARM64_PKGS)
	@touch $@

build/linux-arm64/obj/%.o: ext/%.c VERSION | build/linux-arm64/prereq.stamp
	@mkdir -p $(@D)
	$(ARM64_CC) $(EXT_CFLAGS) -MMD -MP -c $< -o $@

build/linux-arm64/nosql.so: $(ARM64_OBJ)
	$(ARM64_CC) -shared -fvisibility=hidden -o $@ $(ARM64_OBJ) $(EXT_LIBS)

# The release build: stripped, finds the CRoaring shipped beside it.
build/linux-arm64/dist/nosql.so: $(ARM64_OBJ)
	@mkdir -p $(@D)
	$(ARM64_CC) -shared -fvisibility=hidden -Wl,-rpath,'$$ORIGIN' -o $@ $(ARM64_OBJ) $(EXT_LIBS)
	$(ARM64_STRIP) --strip-unneeded $@

build/linux-arm64/slt: $(RUNNER_SRC) tests/runner/md5.h | build/linux-arm64/prereq.stamp
	$(ARM64_CC) $(BASE_CFLAGS) -o $@ $(RUNNER_SRC) $(HOST_LIBS)

dist-linux-arm64: build/linux-arm64/dist/nosql.so
	rm -rf build/$(ARM64_DIST) && mkdir -p build/$(ARM64_DIST) dist
	cp build/linux-arm64/dist/nosql.so LICENSE README.md CHANGELOG.md build/$(ARM64_DIST)/
	cp $(ARM64_LIBDIR)/libroaring.so.0 build/$(ARM64_DIST)/libroaring.so.0
	cp $(ARM64_LIBDIR)/libpcre2-8.so.0 build/$(ARM64_DIST)/libpcre2-8.so.0
	cp /usr/share/doc/libroaring0/copyright build/$(ARM64_DIST)/LICENSE.croaring 2>/dev/null || true
	cp /usr/share/doc/libpcre2-8-0/copyright build/$(ARM64_DIST)/LICENSE.pcre2 2>/dev/null || true
	tar czf dist/$(ARM64_DIST).tar.gz -C build $(ARM64_DIST)
	@echo "dist/$(ARM64_DIST).tar.gz"

wheel-linux-arm64: build/linux-arm64/dist/nosql.so
	@bash scripts/wheel.sh linux-arm64

test-platform-linux-arm64: dist-linux-arm64 build/linux-arm64/nosql.so build/linux-arm64/slt
	@PLATFORM_RUN="$(ARM64_RUN)" bash tests/platform.sh linux-arm64 build/linux-arm64/slt build/linux-arm64/nosql.so \
	  dist/$(ARM64_DIST).tar.gz

# --- windows-x64 ---------------------------------------------------------------
WIN_CC := x86_64-w64-mingw32-gcc
WIN_STRIP := x86_64-w64-mingw32-strip
WIN_PKGS := gcc-mingw-w64-x86-64 wine64 wine zip unzip
WIN_RUN := env WINEPREFIX=$(CURDIR)/build/windows-x64/wine WINEDEBUG=-all wine
WIN_THIRD := build/windows-x64/thirdparty
# The runner's SQLite: npm's better-sqlite3 13.0.3 bundles 3.53.4 (MATRIX_CI of the Makefile).
WIN_SQLITE := 13.0.3
WIN_CFLAGS := $(EXT_CFLAGS) -D__USE_MINGW_ANSI_STDIO=1 -DPCRE2_STATIC -Ibuild/windows-x64/include -I$(WIN_THIRD)/include
WIN_LIBS := -static -L$(WIN_THIRD)/lib -lroaring -lpcre2-8 -lpthread -lm
WIN_OBJ := $(EXT_SRC:ext/%.c=build/windows-x64/obj/%.o)
WIN_DIST := nosql-$(VERSION)-windows-x64

build/windows-x64/prereq.stamp: mk/platform.mk scripts/prereq.sh | $(PREREQ)
	@mkdir -p $(@D)
	@scripts/prereq.sh $(WIN_PKGS)
	@touch $@

$(WIN_THIRD)/lib/libroaring.a: scripts/thirdparty.sh | build/windows-x64/prereq.stamp
	bash scripts/thirdparty.sh $(WIN_CC) $(WIN_THIRD)

# Debian's SQLite headers, the ones the Linux builds compile against.
build/windows-x64/include/sqlite3ext.h: /usr/include/sqlite3ext.h /usr/include/sqlite3.h | $(PREREQ)
	@mkdir -p $(@D)
	cp /usr/include/sqlite3ext.h /usr/include/sqlite3.h $(@D)/

build/windows-x64/obj/%.o: ext/%.c VERSION $(WIN_THIRD)/lib/libroaring.a build/windows-x64/include/sqlite3ext.h
	@mkdir -p $(@D)
	$(WIN_CC) $(WIN_CFLAGS) -MMD -MP -c $< -o $@

build/windows-x64/nosql.dll: $(WIN_OBJ)
	$(WIN_CC) -shared -o $@ $(WIN_OBJ) $(WIN_LIBS)

build/windows-x64/dist/nosql.dll: build/windows-x64/nosql.dll
	@mkdir -p $(@D)
	$(WIN_STRIP) --strip-unneeded -o $@ $<

build/windows-x64/sqlite3.o: build/matrix/$(WIN_SQLITE)/sqlite3.c | build/windows-x64/prereq.stamp
	$(WIN_CC) -O1 -w $(MATRIX_OPTS) -DSQLITE_ENABLE_DBSTAT_VTAB -c -o $@ $<

build/windows-x64/slt.exe: $(RUNNER_SRC) tests/runner/md5.h build/windows-x64/sqlite3.o
	$(WIN_CC) $(BASE_CFLAGS) -D__USE_MINGW_ANSI_STDIO=1 -Ibuild/matrix/$(WIN_SQLITE) -o $@ $(RUNNER_SRC) \
	  build/windows-x64/sqlite3.o -static

dist-windows-x64: build/windows-x64/dist/nosql.dll
	rm -rf build/$(WIN_DIST) && mkdir -p build/$(WIN_DIST) dist
	cp build/windows-x64/dist/nosql.dll LICENSE README.md CHANGELOG.md build/$(WIN_DIST)/
	cp $(WIN_THIRD)/LICENSE.croaring $(WIN_THIRD)/LICENSE.pcre2 build/$(WIN_DIST)/
	rm -f dist/$(WIN_DIST).zip
	cd build && zip -q -r -X ../dist/$(WIN_DIST).zip $(WIN_DIST)
	@echo "dist/$(WIN_DIST).zip"

wheel-windows-x64: build/windows-x64/dist/nosql.dll
	@bash scripts/wheel.sh windows-x64

test-platform-windows-x64: dist-windows-x64 build/windows-x64/nosql.dll build/windows-x64/slt.exe
	@PLATFORM_RUN="$(WIN_RUN)" bash tests/platform.sh windows-x64 build/windows-x64/slt.exe build/windows-x64/nosql.dll \
	  dist/$(WIN_DIST).zip

# --- the npm package (make npm) -------------------------------------------------
# Every platform's build in one package, under lib/<platform>/: the Linux
# ones with CRoaring and PCRE2 beside them ($ORIGIN), the DLL alone.
# NPM_PLATFORMS=linux-x64 packs this machine's build only (no cross tools).
NPM_PLATFORMS ?= linux-x64 linux-arm64 windows-x64
X64_LIBDIR := /usr/lib/x86_64-linux-gnu
npm_build_linux-x64 := build/dist/nosql.so
npm_build_linux-arm64 := build/linux-arm64/dist/nosql.so
npm_build_windows-x64 := build/windows-x64/dist/nosql.dll
NPM_BUILDS := $(foreach p,$(NPM_PLATFORMS),$(npm_build_$(p)))
npm_lib_linux-x64 = mkdir -p $(1) && cp $(npm_build_linux-x64) $(1)/ && \
  cp -L $(X64_LIBDIR)/libroaring.so.0 $(X64_LIBDIR)/libpcre2-8.so.0 $(1)/
npm_lib_linux-arm64 = mkdir -p $(1) && cp $(npm_build_linux-arm64) $(1)/ && \
  cp -L $(ARM64_LIBDIR)/libroaring.so.0 $(ARM64_LIBDIR)/libpcre2-8.so.0 $(1)/
npm_lib_windows-x64 = mkdir -p $(1) && cp $(npm_build_windows-x64) $(1)/

# --- make release ------------------------------------------------------------------
# Every artefact of every platform in dist/, and dist/SHA256SUMS over them
# (checked with sha256sum -c before make returns). docs/install.md says
# which one each kind of user takes.
RELEASE_FILES := $(DIST_NAME).tar.gz $(ARM64_DIST).tar.gz $(WIN_DIST).zip \
  sqlite_nosql-$(VERSION)-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl \
  sqlite_nosql-$(VERSION)-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl \
  sqlite_nosql-$(VERSION)-py3-none-win_amd64.whl sqlite-nosql-$(VERSION).tgz

release: $(LINUX_ONLY) dist-host dist-linux-arm64 dist-windows-x64 wheel-host wheel-linux-arm64 wheel-windows-x64 npm
	cd dist && sha256sum $(RELEASE_FILES) >SHA256SUMS && sha256sum --quiet -c SHA256SUMS
	@echo "dist/SHA256SUMS:" && sed 's/^/  /' dist/SHA256SUMS

# What make test-all builds before its steps start, so that the steps that
# use these builds (the platform suites, the npm package) run side by side
# without two makes writing one file: only where the platform's tools are.
has_tools = $(and $(shell command -v $(1)),$(shell command -v $(2)))
PLATFORM_TEST_BUILD := \
  $(if $(call has_tools,aarch64-linux-gnu-gcc,qemu-aarch64),build/linux-arm64/nosql.so build/linux-arm64/dist/nosql.so build/linux-arm64/slt) \
  $(if $(call has_tools,x86_64-w64-mingw32-gcc,wine),build/windows-x64/nosql.dll build/windows-x64/dist/nosql.dll build/windows-x64/slt.exe)

# --- the host ------------------------------------------------------------------
test-platform-host: dist dist/nosql.so build/slt
	@bash tests/platform.sh $(HOST_PLATFORM) build/slt dist/nosql.so dist/$(DIST_NAME).tar.gz

test-platform: $(LINUX_ONLY) $(if $(PLATFORM),test-platform-$(PLATFORM_TARGET),test-platform-unnamed)

test-platform-unnamed:
	@echo "make test-platform: name a platform with PLATFORM=; known platforms: $(PLATFORMS)" >&2
	@exit 2

.PHONY: linux-only release test-platform test-platform-unnamed test-platform-host test-platform-linux-arm64 dist-host dist-linux-arm64 wheel-host wheel-linux-arm64 dist-windows-x64 test-platform-windows-x64 wheel-windows-x64
-include $(ARM64_OBJ:.o=.d) $(WIN_OBJ:.o=.d)
