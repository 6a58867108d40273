#!/usr/bin/env bash
# tests/platform.sh PLATFORM SLT EXT ARCHIVE: one platform's build, tested
# on its own architecture (make test-platform PLATFORM=..., mk/platform.mk).
# PLATFORM_RUN is the emulator that runs the platform's programs here
# (qemu-aarch64 -L ..., wine; empty for the native platform).
#   - EXT is a shared object of the platform's architecture and exports
#     sqlite3_nosql_init and nothing else;
#   - SLT, the runner built for the platform, runs every tests/**/*.test file
#     and the reference check (docs/) with EXT;
#   - ARCHIVE (make dist PLATFORM=...) holds the stripped extension, for the
#     platform's architecture, with what it needs beside it, and the runner
#     loads it from where the archive unpacks;
#   - a runner of this machine's own architecture refuses EXT with the
#     loader's error (what docs/install.md tells users to expect), when
#     PLATFORM is not this machine's.
# Last line: "N passed, N failed" (the suite's and the reference's counts
# plus one per check).
set -u
cd "$(dirname "$0")/.."
platform=$1
slt=$2
ext=$3
archive=$4
run=${PLATFORM_RUN:-}
pass=0
fail=0
ok() {
  echo "ok $1"
  pass=$((pass + 1))
}
bad() {
  echo "FAIL $platform: $1"
  fail=$((fail + 1))
}
tmp=$(mktemp -d /tmp/nosql-platform-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

case $platform in
linux-x64) machine='Advanced Micro Devices X86-64' ;;
linux-arm64) machine='AArch64' ;;
*)
  echo "tests/platform.sh: unknown platform $platform"
  echo "0 passed, 1 failed"
  exit 1
  ;;
esac

# elf_machine FILE: the Machine field of an ELF header.
elf_machine() { readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p'; }
# elf_exports FILE: the defined dynamic symbols a shared object exports.
elf_exports() {
  readelf --dyn-syms --wide "$1" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $4 != "NOTYPE" { print $8 }' |
    sed 's/@.*//' | sort -u
}

if [ "$(elf_machine "$ext")" = "$machine" ]; then ok "$ext is built for $machine"; else
  bad "$ext is built for '$(elf_machine "$ext")', not $machine"
fi
got=$(elf_exports "$ext")
if [ "$got" = "sqlite3_nosql_init" ]; then ok "$ext exports sqlite3_nosql_init only"; else
  bad "$ext exports more than sqlite3_nosql_init: $(echo "$got" | tr '\n' ' ')"
fi

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
if tar xzf "$archive" -C "$tmp" 2>"$tmp/tar.log"; then ok "$(basename "$archive") unpacks"; else
  bad "$archive does not unpack: $(cat "$tmp/tar.log")"
fi
dir=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
so=$dir/nosql.so
if [ "$(elf_machine "$so")" = "$machine" ] && [ "$(elf_machine "$dir/libroaring.so.0")" = "$machine" ]; then
  ok "the archive's nosql.so and libroaring.so.0 are built for $machine"
else
  bad "the archive's nosql.so ('$(elf_machine "$so")') or libroaring.so.0 ('$(elf_machine "$dir/libroaring.so.0")') is not for $machine"
fi
if readelf -d "$so" 2>/dev/null | grep -E 'RUNPATH|RPATH' | grep -q -F '[$ORIGIN]'; then
  ok "the archive's nosql.so looks for libraries beside itself (\$ORIGIN)"
else
  bad "the archive's nosql.so has no \$ORIGIN run path: $(readelf -d "$so" | grep -E 'RUNPATH|RPATH')"
fi
if [ -z "$(readelf -S --wide "$so" | grep -F '.debug_info')" ]; then ok "the archive's nosql.so is stripped"; else
  bad "the archive's nosql.so carries debug information"
fi
out=$($run "$slt" --ext "$dir/nosql" tests/core/core.test 2>&1)
if echo "$out" | tail -n 1 | grep -q -E '^[1-9][0-9]* passed, 0 failed'; then
  ok "the runner loads the archive's extension: $(echo "$out" | tail -n 1)"
else
  bad "the archive's extension does not pass tests/core/core.test:"
  echo "$out" | tail -n 8 | sed 's/^/    | /'
fi

# A host of another architecture gets the loader's own error, no crash.
if [ -n "$run" ] && [ -x build/slt ]; then
  out=$(build/slt --ext "${ext%.*}" tests/core/core.test 2>&1)
  if echo "$out" | grep -q -E 'wrong ELF class|cannot open shared object file|invalid ELF header|ELF file'"'"'s machine'; then
    ok "build/slt ($(uname -m)) refuses $ext: $(echo "$out" | grep -m 1 -o -E '[^:]*: (wrong ELF class|cannot open shared object file|invalid ELF header).*')"
  else
    bad "build/slt loading $ext did not fail with the loader's error:"
    echo "$out" | tail -n 5 | sed 's/^/    | /'
  fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
