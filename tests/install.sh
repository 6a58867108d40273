#!/usr/bin/env bash
# tests/install.sh: what a packager and a user of the release tarball do.
# 1. make install into a DESTDIR; pkg-config --cflags --libs nosql is enough
#    to build the static host (tests/static/host.c), which then passes.
# 2. make dist; the tarball, dist/nosql-VERSION-linux-x64.tar.gz (named
#    like the other platforms' archives), holds a stripped nosql.so whose
#    RUNPATH is $ORIGIN and which resolves libroaring.so.0 and
#    libpcre2-8.so.0 from its own directory, with their licences, and the
#    sqlite3 shell loads it from there.
# 3. PLATFORM= with an unknown value, or none for make test-platform,
#    stops with the list of known platforms.
# Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
pass=0
fail=0
ok() {
  pass=$((pass + 1))
}
bad() {
  echo "FAIL install: $*"
  fail=$((fail + 1))
}
tmp=$(mktemp -d /tmp/nosql-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Building asks only for the build packages: the test hosts (Tcl, Perl,
# Ruby, the sqlite3 shell) belong to the test targets. make -n with the
# Makefile marked new prints the prerequisite checks each target would run.
for target in all install dist wheel static; do
  checks=$(make -n -W Makefile "$target" 2>&1 | grep 'scripts/prereq.sh')
  if [ -n "$checks" ] && ! echo "$checks" | grep -q -E 'tcl|perl|ruby|sqlite3( |$)|python3( |$)'; then ok; else
    bad "make $target checks packages it does not need to build: $checks"
  fi
done
checks=$(make -n -W Makefile test 2>&1 | grep 'scripts/prereq.sh')
if echo "$checks" | grep -q 'libsqlite3-tcl' && echo "$checks" | grep -q 'ruby-sqlite3'; then ok; else
  bad "make test does not check the host languages' packages: $checks"
fi

if make -s install DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/log" 2>&1; then ok; else
  bad "make install failed"
  sed 's/^/    | /' "$tmp/log" | tail -n 10
fi
export PKG_CONFIG_SYSROOT_DIR="$tmp/root"
export PKG_CONFIG_LIBDIR="$tmp/root/usr/lib/pkgconfig:$(pkg-config --variable pc_path pkg-config)"
flags=$(pkg-config --cflags --libs nosql 2>&1)
if [ $? -eq 0 ] && echo "$flags" | grep -q -- '-lnosql' && echo "$flags" | grep -q -- '-lroaring'; then ok; else
  bad "pkg-config --cflags --libs nosql: $flags"
fi
# shellcheck disable=SC2086
if cc -o "$tmp/host" tests/static/host.c $flags >"$tmp/log" 2>&1; then ok; else
  bad "the static host does not build with pkg-config's flags: $flags"
  sed 's/^/    | /' "$tmp/log" | tail -n 10
fi
if [ -x "$tmp/host" ] && "$tmp/host" VERSION | tail -n 1 | grep -q -E '^[1-9][0-9]* passed, 0 failed'; then ok; else
  bad "the installed static library's host fails"
fi
for f in nosql.so libnosql.a; do
  if [ -f "$tmp/root/usr/lib/$f" ]; then ok; else bad "no /usr/lib/$f installed"; fi
done
if make -s uninstall DESTDIR="$tmp/root" PREFIX=/usr >/dev/null 2>&1 && [ ! -e "$tmp/root/usr/lib/nosql.so" ]; then ok; else
  bad "make uninstall left nosql.so"
fi
# A second install for another PREFIX ships a nosql.pc of that PREFIX,
# not the one the first call wrote.
if make -s install DESTDIR="$tmp/root2" PREFIX=/opt/nq >/dev/null 2>&1 &&
  grep -q -x 'prefix=/opt/nq' "$tmp/root2/opt/nq/lib/pkgconfig/nosql.pc" &&
  grep -q -x 'libdir=/opt/nq/lib' "$tmp/root2/opt/nq/lib/pkgconfig/nosql.pc"; then ok; else
  bad "make install PREFIX=/opt/nq after PREFIX=/usr shipped: $(head -n 2 "$tmp/root2/opt/nq/lib/pkgconfig/nosql.pc" 2>&1 | tr '\n' ' ')"
fi

# PLATFORM= names another platform's build (mk/platform.mk); an unknown
# one stops make before anything is built, with the list of known ones.
for target in dist wheel test-platform; do
  if ! out=$(make -n $target PLATFORM=linux-riscv64 2>&1) && echo "$out" | grep -q -F 'PLATFORM=linux-riscv64 is not a known platform; known platforms: linux-x64 linux-arm64 windows-x64'; then ok; else
    bad "make $target PLATFORM=linux-riscv64 does not list the known platforms: $out"
  fi
done
if ! out=$(make -s test-platform 2>&1) && echo "$out" | grep -q -F 'make test-platform: name a platform with PLATFORM=; known platforms: linux-x64 linux-arm64 windows-x64'; then ok; else
  bad "make test-platform without PLATFORM=: $out"
fi
if out=$(make -s dist 2>&1); then ok; else
  bad "make dist failed: $out"
fi
# This machine's tarball (dist/ may also hold the arm64 one of make release),
# named by the platform: linux-x64 on x86-64, as in PLATFORMS.
host=linux-$(uname -m | sed -e 's/x86_64/x64/' -e 's/aarch64/arm64/')
tarball=$(ls dist/nosql-"$(cat VERSION)-$host".tar.gz 2>/dev/null)
if [ -n "$tarball" ] && tar xzf "$tarball" -C "$tmp"; then
  ok
  dir=$(ls -d "$tmp"/nosql-*/ | head -n 1)
  if readelf -d "$dir/nosql.so" | grep -q 'R.*PATH.*\[\$ORIGIN\]'; then ok; else bad "nosql.so has no \$ORIGIN rpath"; fi
  for lib in libroaring.so.0 libpcre2-8.so.0; do
    if ldd "$dir/nosql.so" | grep "$lib" | grep -q -F "$dir"; then ok; else
      bad "nosql.so does not resolve $lib beside itself: $(ldd "$dir/nosql.so" | grep "${lib%%.*}")"
    fi
  done
  # It needs nothing else but glibc: every library ldd names is either
  # beside it or one of glibc's own.
  other=$(ldd "$dir/nosql.so" | grep '=>' | grep -v -F "$dir" | awk '{ print $1 }' |
    grep -v -E '^(libc|libm|libdl|libpthread|ld-linux[^ ]*)\.so' | tr '\n' ' ')
  if [ -z "$other" ]; then ok; else bad "nosql.so needs libraries the tarball does not carry: $other"; fi
  if ! readelf -S "$dir/nosql.so" | grep -q '\.debug_info'; then ok; else bad "nosql.so is not stripped"; fi
  v=$(printf '.load %snosql\nSELECT nosql_version();\n' "$dir" | sqlite3 :memory: 2>&1)
  if [ "$v" = "$(cat VERSION)" ]; then ok; else bad "the shell cannot load the tarball's nosql.so: $v"; fi
  for f in LICENSE README.md libroaring.so.0 libpcre2-8.so.0 LICENSE.croaring LICENSE.pcre2; do
    if [ -f "$dir/$f" ]; then ok; else bad "the tarball lacks $f"; fi
  done
else
  bad "no release tarball in dist/"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
