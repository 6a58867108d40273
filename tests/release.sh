#!/usr/bin/env bash
# tests/release.sh: make release leaves every platform's artefact in dist/
# (the Linux x64 and arm64 tarballs, the Windows x64 zip, the two
# manylinux2014 wheels and the win_amd64 one, the npm package) and a
# dist/SHA256SUMS that lists exactly those files, that sha256sum -c
# accepts, and that catches a damaged copy. The wheels of the other
# platforms: pip, asked for their platform, installs each; every ELF file
# of the aarch64 one needs glibc 2.17 or older; the extension installed
# from each passes tests/core/core.test in its platform's runner (qemu,
# wine). Needs the arm64 and Windows toolchains (make release installs
# them as root). Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
CHECK_WHO=release
. tests/checks.sh
v=$(cat VERSION)
if make -s release >build/release.log 2>&1; then ok "make release"; else
  bad "make release failed:"
  tail -n 20 build/release.log | sed 's/^/    | /'
fi
want="nosql-$v-linux-arm64.tar.gz
nosql-$v-linux-x64.tar.gz
nosql-$v-windows-x64.zip
sqlite-nosql-$v.tgz
sqlite_nosql-$v-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl
sqlite_nosql-$v-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
sqlite_nosql-$v-py3-none-win_amd64.whl"
got=$(awk '{ print $2 }' dist/SHA256SUMS 2>/dev/null | sort)
if [ "$got" = "$want" ]; then ok "dist/SHA256SUMS lists the seven artefacts"; else
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

# core WHEEL PIP-PLATFORM RUNNER...: pip installs WHEEL for PIP-PLATFORM, and
# the extension it installed passes tests/core/core.test in RUNNER.
core() {
  local whl=dist/$1 plat=$2 dir out
  shift 2
  dir=$tmp/$plat
  if "$tmp/venv/bin/python" -m pip install -q --no-index --disable-pip-version-check --platform "$plat" \
    --only-binary=:all: --target "$dir" "$whl" >"$tmp/pip.log" 2>&1; then
    ok "pip install --platform $plat takes $(basename "$whl")"
  else
    bad "pip install --platform $plat refuses $(basename "$whl"): $(tail -n 2 "$tmp/pip.log")"
    return
  fi
  out=$("$@" --ext "$dir/sqlite_nosql/nosql" tests/core/core.test 2>&1)
  if echo "$out" | tail -n 1 | grep -q -E '^[1-9][0-9]* passed, 0 failed'; then
    ok "the extension from $(basename "$whl") passes tests/core/core.test in its runner"
  else
    bad "the extension from $(basename "$whl"): $(echo "$out" | tail -n 3)"
  fi
}
if /usr/bin/python3 -m venv "$tmp/venv" >/dev/null 2>&1; then
  core "sqlite_nosql-$v-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl" manylinux2014_aarch64 \
    qemu-aarch64 -L /usr/aarch64-linux-gnu build/linux-arm64/slt
  if out=$(scripts/glibc-check.sh 2.17 "$tmp"/manylinux2014_aarch64/sqlite_nosql/*.so*); then
    ok "every ELF file of the aarch64 wheel needs glibc 2.17 or older"
  else
    bad "the aarch64 wheel: $(echo "$out" | grep FAIL)"
  fi
  core "sqlite_nosql-$v-py3-none-win_amd64.whl" win_amd64 \
    env WINEPREFIX="$PWD/build/windows-x64/wine" WINEDEBUG=-all wine build/windows-x64/slt.exe
else
  bad "no venv from /usr/bin/python3 (apt-get install python3-venv)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
