#!/usr/bin/env bash
# scripts/wheel.sh [PLATFORM]: the Python wheel
# dist/sqlite_nosql-VERSION-py3-none-manylinux_2_17_<arch>.manylinux2014_<arch>.whl
# (make wheel [PLATFORM=linux-x64|linux-arm64]; PLATFORM defaults to this
# machine's), or dist/sqlite_nosql-VERSION-py3-none-win_amd64.whl with
# nosql.dll (PLATFORM=windows-x64; CRoaring and PCRE2 are linked into it). It stages python/ with the platform's stripped extension
# (build/dist/nosql.so, or build/<platform>/dist/nosql.so for a cross
# build, which make builds first) and every library that extension needs
# except glibc's own (libc, libm: CRoaring and PCRE2, taken from Debian's
# multiarch directory of the platform), all in sqlite_nosql/, where the
# extension finds them ($ORIGIN run path). Every ELF file staged must need
# glibc 2.17 or older (scripts/glibc-check.sh), which is what the tag
# manylinux_2_17 (manylinux2014) promises; the build stops otherwise. The
# wheel is built offline with setuptools and wheel (Debian's
# python3-setuptools and python3-wheel). Prints the wheel's path.
set -eu
cd "$(dirname "$0")/.."
py=${PYTHON:-/usr/bin/python3}
host=linux-$(uname -m | sed -e 's/x86_64/x64/' -e 's/aarch64/arm64/')
platform=${1:-$host}
case $platform in
linux-x64) arch=x86_64 triplet=x86_64-linux-gnu ;;
linux-arm64) arch=aarch64 triplet=aarch64-linux-gnu ;;
windows-x64) arch=amd64 triplet= ;;
*)
  echo "scripts/wheel.sh: no wheel for platform '$platform' (known: linux-x64 linux-arm64 windows-x64)" >&2
  exit 1
  ;;
esac
if [ "$platform" = "$host" ]; then so=build/dist/nosql.so; else so=build/$platform/dist/nosql.so; fi
libdir=/usr/lib/$triplet
stage=build/wheel/$platform
# manylinux2014 is glibc 2.17; the extension, CRoaring and PCRE2 need no newer.
glibc=2.17
tag=manylinux_2_17_$arch.manylinux2014_$arch
# The DLL has CRoaring and PCRE2 linked in and needs only Windows' own DLLs.
if [ "$platform" = windows-x64 ]; then
  so=build/windows-x64/dist/nosql.dll
  tag=win_amd64
fi
version=$(cat VERSION)

if [ ! -f "$so" ]; then
  echo "scripts/wheel.sh: $so is missing (make $so)" >&2
  exit 1
fi
if ! "$py" -c 'import setuptools, wheel.bdist_wheel' 2>/dev/null; then
  echo "scripts/wheel.sh: $py has no setuptools or wheel (apt-get install python3-setuptools python3-wheel)" >&2
  exit 1
fi
# The libraries the extension was linked against (its NEEDED entries), but
# glibc's, which every manylinux system has: Debian's multiarch copies.
needed=
[ -n "$triplet" ] && needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
  grep -v -E '^(libc|libm|libdl|libpthread|librt)\.so\.[0-9]+$|^ld-linux')
for lib in $needed; do
  if [ ! -f "$libdir/$lib" ]; then
    echo "scripts/wheel.sh: $so needs $lib, which is not in $libdir (its Debian package for $arch is missing)" >&2
    exit 1
  fi
done

rm -rf "$stage"
mkdir -p "$stage/sqlite_nosql" dist
cp python/setup.py python/pyproject.toml python/README.md LICENSE "$stage/"
cp /usr/share/doc/libroaring0/copyright "$stage/LICENSE.croaring" 2>/dev/null || true
cp /usr/share/doc/libpcre2-8-0/copyright "$stage/LICENSE.pcre2" 2>/dev/null || true
sed "s/@VERSION@/$version/" python/sqlite_nosql/__init__.py >"$stage/sqlite_nosql/__init__.py"
cp "$so" "$stage/sqlite_nosql/$(basename "$so")"
for lib in $needed; do cp -L "$libdir/$lib" "$stage/sqlite_nosql/$lib"; done
if [ -n "$triplet" ] && ! scripts/glibc-check.sh "$glibc" "$stage"/sqlite_nosql/*.so* >"$stage/glibc.log"; then
  grep FAIL "$stage/glibc.log" >&2
  echo "scripts/wheel.sh: the wheel cannot be tagged $tag" >&2
  exit 1
fi

# Same bytes for the same commit: zip timestamps from the last commit.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH
rm -f dist/sqlite_nosql-"$version"-*"_$arch".whl
(cd "$stage" && NOSQL_WHEEL_PLAT=$tag "$py" setup.py -q bdist_wheel --dist-dir out >build.log 2>&1) || {
  cat "$stage/build.log" >&2
  exit 1
}
whl=$(ls "$stage"/out/sqlite_nosql-"$version"-py3-none-*.whl)
mv "$whl" dist/
echo "dist/$(basename "$whl")"
