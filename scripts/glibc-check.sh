#!/usr/bin/env bash
# scripts/glibc-check.sh MAX FILE...: the newest glibc symbol version each
# ELF file needs (the GLIBC_x.y versions its dynamic symbols are bound to,
# as readelf --version-info lists them), one line per file, and whether it
# is at most MAX (2.17 for a manylinux2014 / manylinux_2_17 wheel). Exits 1
# when a file needs a newer glibc than MAX or is not an ELF file. The
# wheel build (scripts/wheel.sh) and tests/wheel.sh use it to justify the
# wheel's tag. Last line: "N passed, N failed".
set -u
max=$1
shift
pass=0
fail=0
# vle A B: version A <= version B.
vle() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" = "$1" ]; }
for f in "$@"; do
  if ! readelf -h "$f" >/dev/null 2>&1; then
    echo "FAIL $f: not an ELF file"
    fail=$((fail + 1))
    continue
  fi
  need=$(readelf --version-info --wide "$f" | grep -o -E 'GLIBC_[0-9]+(\.[0-9]+)+' | sed 's/GLIBC_//' | sort -u -V | tail -n 1)
  need=${need:-none}
  if [ "$need" = none ] || vle "$need" "$max"; then
    echo "ok $f: needs glibc $need (at most $max)"
    pass=$((pass + 1))
  else
    echo "FAIL $f: needs glibc $need, newer than $max"
    fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
