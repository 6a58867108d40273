#!/usr/bin/env bash
# scripts/thirdparty.sh CC OUT: CRoaring and PCRE2, the two libraries the
# extension links, built as static libraries by the C compiler CC for a
# platform Debian ships no binaries of them for (windows-x64 with
# x86_64-w64-mingw32-gcc; a WebAssembly compiler later). Writes
# OUT/include/ (roaring/roaring.h, pcre2.h), OUT/lib/ (libroaring.a,
# libpcre2-8.a) and their licences (OUT/LICENSE.croaring, LICENSE.pcre2);
# AR defaults to CC with "gcc" replaced by "ar".
#
# The sources are Debian's own source packages of the versions the Linux
# builds link (croaring, pcre2), fetched once into build/thirdparty/src/
# with apt-get source. The deb-src entries are derived from this machine's
# own apt sources (each "deb" entry read as "deb-src"), kept in a private
# apt directory under build/thirdparty/apt/, so the system's apt setup is
# not changed and no mirror is named in the repository. Only the upstream
# tarballs are used (--tar-only): Debian's changes to these two packages
# are packaging.
#
# PCRE2 is built as Debian configures it (8-bit code units, Unicode, link
# size 2, newline LF) but without the JIT, which doc_match does not ask for.
set -eu
cd "$(dirname "$0")/.."
cc=$1
out=$2
ar=${AR:-${cc%gcc}ar}
root=$PWD/build/thirdparty
src=$root/src

fetch() {
  local apt=$root/apt f
  rm -rf "$apt" && mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$apt/cache/archives/partial" "$src"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    sed -e 's/^Types:.*/Types: deb-src/' "$f" >"$apt/sources.list.d/$(basename "$f")"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -n -e 's/^deb \(.*\)/deb-src \1/p' "$f" >"$apt/sources.list.d/$(basename "$f" .list)-src.list"
  done
  local opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt/sources.list.d"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
  apt-get "${opts[@]}" update -q >"$apt/update.log" 2>&1 || {
    echo "scripts/thirdparty.sh: apt-get update of the deb-src entries failed:" >&2
    tail -n 5 "$apt/update.log" >&2
    exit 1
  }
  (cd "$src" && apt-get "${opts[@]}" source --download-only --tar-only croaring pcre2 >"$apt/source.log" 2>&1) || {
    echo "scripts/thirdparty.sh: apt-get source croaring pcre2 failed:" >&2
    tail -n 5 "$apt/source.log" >&2
    exit 1
  }
  for f in "$src"/*.orig.tar.*; do tar xf "$f" -C "$src"; done
}

roaring_dir=$(find "$src" -maxdepth 1 -type d -name 'CRoaring-*' 2>/dev/null | head -n 1)
pcre2_dir=$(find "$src" -maxdepth 1 -type d -name 'pcre2-*' 2>/dev/null | head -n 1)
if [ -z "$roaring_dir" ] || [ -z "$pcre2_dir" ]; then
  fetch
  roaring_dir=$(find "$src" -maxdepth 1 -type d -name 'CRoaring-*' | head -n 1)
  pcre2_dir=$(find "$src" -maxdepth 1 -type d -name 'pcre2-*' | head -n 1)
fi

mkdir -p "$out/include" "$out/lib" "$out/obj/roaring" "$out/obj/pcre2"

# CRoaring: every source file, portable C (no -march: the DLL runs on any x86-64).
objs=()
for f in $(cd "$roaring_dir" && find src -name '*.c' | sort); do
  o=$out/obj/roaring/$(echo "$f" | tr / _ | sed 's/\.c$/.o/')
  "$cc" -O2 -std=gnu11 -w -I"$roaring_dir/include" -c "$roaring_dir/$f" -o "$o"
  objs+=("$o")
done
rm -f "$out/lib/libroaring.a"
"$ar" rcs "$out/lib/libroaring.a" "${objs[@]}"
cp -r "$roaring_dir/include/roaring" "$out/include/"

# PCRE2: the generic config and tables, as its NON-AUTOTOOLS-BUILD describes.
cp "$pcre2_dir/src/config.h.generic" "$out/obj/pcre2/config.h"
cp "$pcre2_dir/src/pcre2.h.generic" "$out/include/pcre2.h"
cp "$pcre2_dir/src/pcre2_chartables.c.dist" "$out/obj/pcre2/pcre2_chartables.c"
objs=()
for f in auto_possess chartables compile config context convert dfa_match error extuni find_bracket \
  jit_compile maketables match match_data newline ord2utf pattern_info script_run serialize \
  string_utils study substitute substring tables ucd valid_utf xclass; do
  c=$pcre2_dir/src/pcre2_$f.c
  [ "$f" = chartables ] && c=$out/obj/pcre2/pcre2_chartables.c
  "$cc" -O2 -w -DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 -DPCRE2_STATIC -DSUPPORT_UNICODE \
    -I"$out/obj/pcre2" -I"$out/include" -I"$pcre2_dir/src" -c "$c" -o "$out/obj/pcre2/$f.o"
  objs+=("$out/obj/pcre2/$f.o")
done
rm -f "$out/lib/libpcre2-8.a"
"$ar" rcs "$out/lib/libpcre2-8.a" "${objs[@]}"
cp "$roaring_dir/LICENSE" "$out/LICENSE.croaring"
cp "$pcre2_dir/LICENCE" "$out/LICENSE.pcre2"
echo "$out/lib/libroaring.a $out/lib/libpcre2-8.a ($(basename "$roaring_dir"), $(basename "$pcre2_dir"))"
