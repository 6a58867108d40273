#!/usr/bin/env bash
# tests/release.sh: make release leaves every platform's artefact in dist/
# (the Linux x86-64 and arm64 tarballs, the Windows x64 zip, the two
# manylinux2014 wheels, the npm package) and a dist/SHA256SUMS that lists
# exactly those files, that sha256sum -c accepts, and that catches a
# damaged copy. Needs the arm64 and Windows toolchains (make release
# installs them as root). Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
pass=0
fail=0
ok() {
  echo "ok $1"
  pass=$((pass + 1))
}
bad() {
  echo "FAIL release: $1"
  fail=$((fail + 1))
}
v=$(cat VERSION)
if make -s release >build/release.log 2>&1; then ok "make release"; else
  bad "make release failed:"
  tail -n 20 build/release.log | sed 's/^/    | /'
fi
want="nosql-$v-linux-arm64.tar.gz
nosql-$v-linux-$(uname -m).tar.gz
nosql-$v-windows-x64.zip
sqlite-nosql-$v.tgz
sqlite_nosql-$v-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl
sqlite_nosql-$v-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
got=$(awk '{ print $2 }' dist/SHA256SUMS 2>/dev/null | sort)
if [ "$got" = "$want" ]; then ok "dist/SHA256SUMS lists the six artefacts"; else
  bad "dist/SHA256SUMS lists:"
  diff <(echo "$want") <(echo "$got") | sed 's/^/    | /'
fi
if (cd dist && sha256sum --quiet -c SHA256SUMS) >/dev/null 2>&1; then ok "sha256sum -c SHA256SUMS"; else
  bad "sha256sum -c SHA256SUMS fails"
fi
tmp=$(mktemp -d /tmp/nosql-release-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp dist/SHA256SUMS "$tmp/" && cp "dist/nosql-$v-windows-x64.zip" "$tmp/"
printf 'x' >>"$tmp/nosql-$v-windows-x64.zip"
if ! (cd "$tmp" && sha256sum --quiet -c --ignore-missing SHA256SUMS) >/dev/null 2>&1; then
  ok "a damaged download fails the check"
else
  bad "sha256sum -c passed a damaged zip"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
