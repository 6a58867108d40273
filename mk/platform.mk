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
#
# linux-arm64 is built with Debian's cross compiler against Debian's arm64
# multiarch libraries (dpkg --add-architecture arm64; ARM64_PKGS), and its
# programs run under Debian's qemu-user with the arm64 libraries of
# /usr/aarch64-linux-gnu (the cross libc) and /usr/lib/aarch64-linux-gnu.
# PLATFORM with a value not in PLATFORMS stops make with the list.

PLATFORMS := linux-x64 linux-arm64
HOST_PLATFORM := $(patsubst %,linux-%,$(shell uname -m | sed -e 's/x86_64/x64/' -e 's/aarch64/arm64/'))
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
	cp /usr/share/doc/libroaring0/copyright build/$(ARM64_DIST)/LICENSE.croaring 2>/dev/null || true
	tar czf dist/$(ARM64_DIST).tar.gz -C build $(ARM64_DIST)
	@echo "dist/$(ARM64_DIST).tar.gz"

wheel-linux-arm64: build/linux-arm64/dist/nosql.so
	@bash scripts/wheel.sh linux-arm64

test-platform-linux-arm64: dist-linux-arm64 build/linux-arm64/nosql.so build/linux-arm64/slt
	@PLATFORM_RUN="$(ARM64_RUN)" bash tests/platform.sh linux-arm64 build/linux-arm64/slt build/linux-arm64/nosql.so \
	  dist/$(ARM64_DIST).tar.gz

# --- the host ------------------------------------------------------------------
test-platform-host: dist dist/nosql.so build/slt
	@bash tests/platform.sh $(HOST_PLATFORM) build/slt dist/nosql.so dist/nosql-$(VERSION)-linux-$(shell uname -m).tar.gz

test-platform: $(if $(PLATFORM),test-platform-$(PLATFORM_TARGET),test-platform-unnamed)

test-platform-unnamed:
	@echo "make test-platform: name a platform with PLATFORM=; known platforms: $(PLATFORMS)" >&2
	@exit 2

.PHONY: test-platform test-platform-unnamed test-platform-host test-platform-linux-arm64 dist-host dist-linux-arm64 wheel-host wheel-linux-arm64
-include $(ARM64_OBJ:.o=.d)
