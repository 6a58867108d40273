# shellcheck shell=sh disable=SC2034
# checks.sh: the pass/fail tally of the shell test scripts (tests/platform.sh,
# tests/release.sh). Sourced after setting CHECK_WHO:
#
#   CHECK_WHO=release
#   . tests/checks.sh
#   ok WHAT     a check that held: prints "ok WHAT"
#   bad WHAT    one that failed: prints "FAIL $CHECK_WHO: WHAT"
#
# The script ends with: echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]
pass=0
fail=0
ok() {
  echo "ok $1"
  pass=$((pass + 1))
}
bad() {
  echo "FAIL $CHECK_WHO: $1"
  fail=$((fail + 1))
}
