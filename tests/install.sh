#!/usr/bin/env bash
# tests/install.sh: what a packager and a user of the release tarball do.
# 1. make install into a DESTDIR; pkg-config --cflags --libs nosql is enough
#    to build the static host (tests/static/host.c), which then passes.
# 2. make dist; the tarball holds a stripped nosql.so whose RUNPATH is
#    $ORIGIN and which resolves libroaring.so.0 from its own directory, and
#    the sqlite3 shell loads it from there.
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

if out=$(make -s dist 2>&1); then ok; else
  bad "make dist failed: $out"
fi
tarball=$(ls dist/nosql-"$(cat VERSION)"-linux-*.tar.gz 2>/dev/null | head -n 1)
if [ -n "$tarball" ] && tar xzf "$tarball" -C "$tmp"; then
  ok
  dir=$(ls -d "$tmp"/nosql-*/ | head -n 1)
  if readelf -d "$dir/nosql.so" | grep -q 'R.*PATH.*\[\$ORIGIN\]'; then ok; else bad "nosql.so has no \$ORIGIN rpath"; fi
  if ldd "$dir/nosql.so" | grep 'libroaring.so.0' | grep -q -F "$dir"; then ok; else
    bad "nosql.so does not resolve libroaring.so.0 beside itself: $(ldd "$dir/nosql.so" | grep roaring)"
  fi
  if ! readelf -S "$dir/nosql.so" | grep -q '\.debug_info'; then ok; else bad "nosql.so is not stripped"; fi
  v=$(printf '.load %snosql\nSELECT nosql_version();\n' "$dir" | sqlite3 :memory: 2>&1)
  if [ "$v" = "$(cat VERSION)" ]; then ok; else bad "the shell cannot load the tarball's nosql.so: $v"; fi
  for f in LICENSE README.md libroaring.so.0; do
    if [ -f "$dir/$f" ]; then ok; else bad "the tarball lacks $f"; fi
  done
else
  bad "no release tarball in dist/"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
