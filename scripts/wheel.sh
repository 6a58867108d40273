#!/usr/bin/env bash
# scripts/wheel.sh: the Python wheel dist/sqlite_nosql-VERSION-py3-none-<tag>.whl
# (make wheel). It stages python/ with the stripped extension
# (build/dist/nosql.so, which make builds first) and the CRoaring library
# that extension resolves on this machine, both in sqlite_nosql/, and builds
# the wheel offline with setuptools and wheel (Debian's python3-setuptools
# and python3-wheel). The platform tag is manylinux_<glibc>_<arch> of this
# machine (python/setup.py). Prints the wheel's path.
set -eu
cd "$(dirname "$0")/.."
py=${PYTHON:-/usr/bin/python3}
so=build/dist/nosql.so
stage=build/wheel
version=$(cat VERSION)

if [ ! -f "$so" ]; then
  echo "scripts/wheel.sh: $so is missing (make build/dist/nosql.so)" >&2
  exit 1
fi
if ! "$py" -c 'import setuptools, wheel.bdist_wheel' 2>/dev/null; then
  echo "scripts/wheel.sh: $py has no setuptools or wheel (apt-get install python3-setuptools python3-wheel)" >&2
  exit 1
fi
# The CRoaring the extension was linked against, as the loader finds it.
roaring=$(ldd "$so" | awk '$1 == "libroaring.so.0" { print $3 }')
if [ ! -f "$roaring" ]; then
  echo "scripts/wheel.sh: $so does not resolve libroaring.so.0 on this machine (apt-get install libroaring-dev)" >&2
  exit 1
fi

rm -rf "$stage"
mkdir -p "$stage/sqlite_nosql" dist
cp python/setup.py python/pyproject.toml python/README.md LICENSE "$stage/"
cp /usr/share/doc/libroaring0/copyright "$stage/LICENSE.croaring" 2>/dev/null || true
sed "s/@VERSION@/$version/" python/sqlite_nosql/__init__.py >"$stage/sqlite_nosql/__init__.py"
cp "$so" "$stage/sqlite_nosql/nosql.so"
cp "$roaring" "$stage/sqlite_nosql/libroaring.so.0"

# Same bytes for the same commit: zip timestamps from the last commit.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH
rm -f dist/sqlite_nosql-"$version"-*.whl
(cd "$stage" && "$py" setup.py -q bdist_wheel --dist-dir out >build.log 2>&1) || {
  cat "$stage/build.log" >&2
  exit 1
}
whl=$(ls "$stage"/out/sqlite_nosql-"$version"-py3-none-*.whl)
mv "$whl" dist/
echo "dist/$(basename "$whl")"
