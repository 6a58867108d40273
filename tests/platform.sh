#!/usr/bin/env bash
# tests/platform.sh PLATFORM SLT EXT ARCHIVE: one platform's build, tested
# on its own architecture (make test-platform PLATFORM=..., mk/platform.mk).
# PLATFORM_RUN is the emulator that runs the platform's programs here
# (qemu-aarch64 -L ..., wine; empty for the native platform).
#   - EXT is a shared object (ELF, or PE for Windows) of the platform's
#     architecture and exports sqlite3_nosql_init and nothing else; a DLL
#     imports nothing but the system's KERNEL32.dll and msvcrt.dll;
#   - SLT, the runner built for the platform, runs every tests/**/*.test file
#     and the reference check (docs/) with EXT;
#   - ARCHIVE (make dist PLATFORM=...) holds the stripped extension, for the
#     platform's architecture, with what it needs beside it (a .so finds it
#     through its $ORIGIN run path), and the runner loads it from where the
#     archive unpacks;
#   - a runner of this machine's own architecture refuses EXT with the
#     loader's error (what docs/install.md tells users to expect), when
#     PLATFORM is not this machine's.
# Last line: "N passed, N failed" (the suite's and the reference's counts
# plus one per check).
set -u
cd "$(dirname "$0")/.." || exit 1
platform=$1
slt=$2
ext=$3
archive=$4
run=${PLATFORM_RUN:-}
CHECK_WHO="$platform"
. tests/checks.sh
tmp=$(mktemp -d /tmp/nosql-platform-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

case $platform in
linux-x64) machine='Advanced Micro Devices X86-64' ;;
linux-arm64) machine='AArch64' ;;
windows-x64) machine='pei-x86-64' ;;
*)
  echo "tests/platform.sh: unknown platform $platform"
  echo "0 passed, 1 failed"
  exit 1
  ;;
esac

# binary_machine FILE: the Machine field of an ELF header, or the PE format.
binary_machine() {
  case $platform in
  windows-*) x86_64-w64-mingw32-objdump -f "$1" 2>/dev/null | sed -n 's/.*file format //p' ;;
  *) readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p' ;;
  esac
}
# binary_exports FILE: the symbols a shared object or DLL exports.
binary_exports() {
  case $platform in
  windows-*)
    x86_64-w64-mingw32-objdump -p "$1" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' |
      sed -n 's/^[[:space:]]*\[ *[0-9]*\] //p' | sort -u
    ;;
  *)
    readelf --dyn-syms --wide "$1" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $4 != "NOTYPE" { print $8 }' |
      sed 's/@.*//' | sort -u
    ;;
  esac
}
# binary_debug FILE: whether it carries debug information.
binary_debug() {
  case $platform in
  windows-*) x86_64-w64-mingw32-objdump -h "$1" | grep -q -F '.debug_info' ;;
  *) readelf -S --wide "$1" | grep -q -F '.debug_info' ;;
  esac
}

if [ "$(binary_machine "$ext")" = "$machine" ]; then ok "$ext is built for $machine"; else
  bad "$ext is built for '$(binary_machine "$ext")', not $machine"
fi
got=$(binary_exports "$ext")
if [ "$got" = "sqlite3_nosql_init" ]; then ok "$ext exports sqlite3_nosql_init only"; else
  bad "$ext exports more than sqlite3_nosql_init: $(echo "$got" | tr '\n' ' ')"
fi
case $platform in
windows-*)
  got=$(x86_64-w64-mingw32-objdump -p "$ext" | sed -n 's/^[[:space:]]*DLL Name: //p' | sort | tr '\n' ' ')
  if [ "$got" = "KERNEL32.dll msvcrt.dll " ]; then ok "$ext imports only the system's KERNEL32.dll and msvcrt.dll"; else
    bad "$ext imports DLLs a Windows system does not have: $got"
  fi
  ;;
esac

# count OUT: add the runner's closing counts to ours; 1 when it has none.
count() {
  local last p f
  last=$(echo "$1" | tail -n 1)
  p=$(echo "$last" | sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1/p')
  f=$(echo "$last" | sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\2/p')
  [ -n "$p" ] || return 1
  pass=$((pass + p))
  fail=$((fail + f))
}

tests=$(find tests -name '*.test' | sort)
t0=$(date +%s)
# shellcheck disable=SC2086
out=$($run "$slt" --ext "${ext%.*}" $tests 2>&1)
rc=$?
secs=$(($(date +%s) - t0))
echo "$out" | grep -E '^(FAIL|  )' | head -n 80
if count "$out"; then
  echo "$platform suite: $(echo "$out" | tail -n 1) ($secs s)"
else
  bad "the runner died (exit code $rc) after: $(echo "$out" | grep -E ': [0-9]+ passed' | tail -n 1)"
  echo "$out" | tail -n 5 | sed 's/^/    | /'
fi
out=$($run "$slt" --ext "${ext%.*}" --docs docs 2>&1)
rc=$?
echo "$out" | grep -E '^(FAIL|  )' | head -n 40
if count "$out"; then echo "$platform reference: $(echo "$out" | tail -n 1)"; else
  bad "the reference check died (exit code $rc)"
  echo "$out" | tail -n 5 | sed 's/^/    | /'
fi

# The release archive, unpacked as a user does.
case $archive in
*.zip) unpack() { unzip -q "$archive" -d "$tmp"; } ;;
*) unpack() { tar xzf "$archive" -C "$tmp"; } ;;
esac
if unpack 2>"$tmp/unpack.log"; then ok "$(basename "$archive") unpacks"; else
  bad "$archive does not unpack: $(cat "$tmp/unpack.log")"
fi
dir=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
so=$dir/$(basename "$ext")
case $platform in
windows-*) beside=() ;;
*) beside=("$dir/libroaring.so.0" "$dir/libpcre2-8.so.0") ;;
esac
bad_machine=
for f in "$so" "${beside[@]}"; do
  [ "$(binary_machine "$f")" = "$machine" ] || bad_machine="$bad_machine $(basename "$f") ('$(binary_machine "$f")')"
done
if [ -z "$bad_machine" ]; then
  ok "the archive's $(basename "$so") ${beside[*]:+and $(basename -a "${beside[@]}" | tr '\n' ' ')}built for $machine"
else
  bad "the archive holds files not built for $machine:$bad_machine"
fi
case $platform in
windows-*) ;;
*)
  # shellcheck disable=SC2016 # the literal $ORIGIN
  if readelf -d "$so" 2>/dev/null | grep -E 'RUNPATH|RPATH' | grep -q -F '[$ORIGIN]'; then
    ok "the archive's nosql.so looks for libraries beside itself (\$ORIGIN)"
  else
    bad "the archive's nosql.so has no \$ORIGIN run path: $(readelf -d "$so" | grep -E 'RUNPATH|RPATH')"
  fi
  ;;
esac
if ! binary_debug "$so"; then ok "the archive's $(basename "$so") is stripped"; else
  bad "the archive's $(basename "$so") carries debug information"
fi
out=$($run "$slt" --ext "$dir/nosql" tests/core/core.test 2>&1)
if echo "$out" | tail -n 1 | grep -q -E '^[1-9][0-9]* passed, 0 failed'; then
  ok "the runner loads the archive's extension: $(echo "$out" | tail -n 1)"
else
  bad "the archive's extension does not pass tests/core/core.test:"
  echo "$out" | tail -n 8 | sed 's/^/    | /'
fi

# A Linux x86-64 process that loads EXT of another architecture gets the
# loader's own error (the text docs/install.md shows), not a crash.
if [ -n "$run" ] && command -v python3 >/dev/null 2>&1; then
  out=$(python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1])' "$ext" 2>&1 | tail -n 1)
  if echo "$out" | grep -q -E '^OSError: .*(wrong ELF class|cannot open shared object file|invalid ELF header)'; then
    ok "dlopen on $(uname -m) refuses $ext: $out"
  else
    bad "dlopen on $(uname -m) of $ext did not fail with the loader's error: $out"
  fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
