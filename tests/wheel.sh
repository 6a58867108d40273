#!/usr/bin/env bash
# tests/wheel.sh: the Python wheel (scripts/wheel.sh, make wheel) installs
# with `pip install --no-index` into a fresh virtual environment of Debian's
# /usr/bin/python3 and answers the host smoke set there through
# sqlite_nosql.load (tests/hosts/python.py --package), with the extension
# and CRoaring mapped from the wheel's files in site-packages (read from
# /proc/self/maps), not from the system. Also checked: the wheel's tag and
# contents, loadable_path(), __version__, that load() leaves extension
# loading disabled, its error for a sqlite3 module that cannot load
# extensions, and the README's commands for Python as written there.
# Skipped when /usr/bin/python3 has no venv (python3-venv) or its sqlite3
# cannot load extensions. Last line: "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.." || exit 1
root=$PWD
py=/usr/bin/python3
pass=0
fail=0
skip=0
ok() { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
finish() {
  echo "$pass passed, $fail failed, $skip skipped"
  [ "$fail" -eq 0 ]
  exit
}

if ! "$py" -c 'import sqlite3, sys; sys.exit(0 if hasattr(sqlite3.Connection, "enable_load_extension") else 1)' 2>/dev/null; then
  echo "SKIP wheel: $py cannot load SQLite extensions (or is missing: apt-get install python3)"
  skip=1
  finish
fi
tmp=$(mktemp -d /tmp/nosql-wheel-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if ! "$py" -m venv "$tmp/venv" >"$tmp/venv.log" 2>&1; then
  echo "SKIP wheel: $py cannot make a virtual environment (apt-get install python3-venv)"
  sed 's/^/    | /' "$tmp/venv.log" | tail -n 5
  skip=1
  finish
fi
vpy=$tmp/venv/bin/python

if make -s build/dist/nosql.so >"$tmp/make.log" 2>&1 && whl=$(bash scripts/wheel.sh 2>"$tmp/wheel.log"); then
  ok "scripts/wheel.sh: $whl"
else
  bad "scripts/wheel.sh:"
  sed 's/^/    | /' "$tmp/make.log" "$tmp/wheel.log" | tail -n 20
  finish
fi

# The README's blocks marked "<!-- tests/wheel.sh runs this block: -->",
# run as written in a directory whose dist/ holds the extension and the
# wheel (pip kept off the network by PIP_NO_INDEX, which leaves the
# commands unchanged): the direct load in /usr/bin/python3, the
# extension-loading check and the venv install as shell, the package's
# example in the venv's python. The "# X" comment of each line that prints
# is the output it shows; "..." at its start stands for any beginning.
readme_block() { # N: the Nth marked block of README.md, without its fences
  awk -v n="$1" '/^<!-- tests\/wheel.sh runs this block: -->$/ { k++; next }
    k == n && /^```/ { if (in_block) exit; in_block = 1; next }
    in_block' "$root/README.md"
}
readme_expect() { # the outputs a block's comments show, one per line
  grep 'print(' | sed -n 's/.*   # //p'
}
readme_check() { # NAME EXPECTED ACTUAL
  local ok=1 want got
  if [ "$(echo "$2" | wc -l)" != "$(echo "$3" | wc -l)" ]; then ok=0; fi
  while [ $ok -eq 1 ] && IFS= read -r want && IFS= read -r got <&3; do
    case "$want" in
    ...*) [[ "$got" == *"${want#...}" ]] || ok=0 ;;
    *) [ "$got" = "$want" ] || ok=0 ;;
    esac
  done < <(echo "$2") 3< <(echo "$3")
  if [ $ok -eq 1 ] && [ -n "$2" ]; then ok "$1"; else
    bad "$1: the README shows"
    echo "$2" | sed 's/^/    | /'
    echo "  and it printed"
    echo "$3" | sed 's/^/    | /'
  fi
}
mkdir -p "$tmp/readme/dist" && cp "$whl" build/dist/nosql.so "$tmp/readme/dist/"
for i in 1 2 3 4; do
  [ -n "$(readme_block $i)" ] || bad "README.md: marked block $i is missing"
done
got=$(cd "$tmp/readme" && readme_block 1 | "$py" - 2>&1)
readme_check "README: the extension loaded by /usr/bin/python3" "$(readme_block 1 | readme_expect)" "$got"
got=$(cd "$tmp/readme" && bash -e -c "$(readme_block 2)" 2>&1)
readme_check "README: the extension-loading check" "$(readme_block 2 | readme_expect)" "$got"
if (cd "$tmp/readme" && PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 bash -e -c "$(readme_block 3)") >"$tmp/readme.log" 2>&1; then
  ok "README: the venv from /usr/bin/python3 and pip install of the wheel, as written"
  got=$(cd "$tmp/readme" && readme_block 4 | .venv/bin/python - 2>&1)
  readme_check "README: the example in .venv/bin/python" "$(readme_block 4 | readme_expect)" "$got"
else
  bad "README: the venv install as written:"
  sed 's/^/    | /' "$tmp/readme.log" | tail -n 20
fi

# The name's tag is this machine's glibc and architecture; the wheel holds
# the stripped extension (the same bytes as build/dist/nosql.so) and CRoaring.
tag=$("$py" -c 'import os, platform; v = os.confstr("CS_GNU_LIBC_VERSION").split()[1].split("."); print("manylinux_%s_%s_%s" % (v[0], v[1], platform.machine()))')
want="dist/sqlite_nosql-$(cat VERSION)-py3-none-$tag.whl"
if [ "$whl" = "$want" ]; then ok "wheel name $whl"; else bad "wheel name: want $want, got $whl"; fi
got=$("$py" - "$whl" build/dist/nosql.so <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
wheel = next(n for n in names if n.endswith(".dist-info/WHEEL"))
print(sorted(n for n in names if n.startswith("sqlite_nosql/")))
print([l for l in z.read(wheel).decode().splitlines() if l.startswith(("Root-Is-Purelib", "Tag"))])
print(z.read("sqlite_nosql/nosql.so") == open(sys.argv[2], "rb").read())
PY
)
want="['sqlite_nosql/__init__.py', 'sqlite_nosql/libroaring.so.0', 'sqlite_nosql/nosql.so']
['Root-Is-Purelib: false', 'Tag: py3-none-$tag']
True"
if [ "$got" = "$want" ]; then ok "wheel contents: package, stripped nosql.so, libroaring.so.0, tag"; else
  bad "wheel contents:"
  diff <(echo "$want") <(echo "$got") | sed 's/^/    | /'
fi

if "$vpy" -m pip install --no-index --disable-pip-version-check -q "$whl" >"$tmp/pip.log" 2>&1; then
  ok "pip install --no-index into a fresh venv"
else
  bad "pip install --no-index:"
  sed 's/^/    | /' "$tmp/pip.log" | tail -n 20
  finish
fi
site=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')

# Run from /tmp so that nothing of the checkout is importable.
if out=$(cd /tmp && "$vpy" "$OLDPWD/tests/hosts/python.py" --package "$OLDPWD/tests/hosts/smoke.tsv" 2>&1) &&
  echo "$out" | tail -n 1 | grep -q -E '^[1-9][0-9]* passed, 0 failed$'; then
  ok "smoke set through sqlite_nosql.load: $(echo "$out" | tail -n 1)"
else
  bad "smoke set through sqlite_nosql.load:"
  echo "$out" | tail -n 20 | sed 's/^/    | /'
fi

got=$(cd /tmp && "$vpy" - <<'PY' 2>&1
import sqlite3
import sqlite_nosql

db = sqlite3.connect(":memory:")
sqlite_nosql.load(db)
print(sqlite_nosql.__version__, db.execute("SELECT nosql_version()").fetchone()[0])
print(sqlite_nosql.loadable_path())
# The shared objects this process mapped for the extension and CRoaring.
maps = sorted({l.split()[-1] for l in open("/proc/self/maps") if "nosql.so" in l or "libroaring" in l})
print(" ".join(maps))
# load() turned extension loading off again.
try:
    db.load_extension(sqlite_nosql.loadable_path())
    print("load_extension still enabled")
except sqlite3.OperationalError as e:
    print(e)
PY
)
v=$(cat VERSION)
want="$v $v
$site/sqlite_nosql/nosql
$site/sqlite_nosql/libroaring.so.0 $site/sqlite_nosql/nosql.so
not authorized"
if [ "$got" = "$want" ]; then
  ok "__version__, loadable_path(), CRoaring and nosql.so mapped from site-packages, loading disabled after load()"
else
  bad "installed package:"
  diff <(echo "$want") <(echo "$got") | sed 's/^/    | /'
fi

# A sqlite3 module built without extension loading (pyenv's default) has no
# enable_load_extension: load() says so instead of an AttributeError.
got=$(cd /tmp && "$vpy" - <<'PY' 2>&1
import sqlite_nosql

class Connection:  # what such a module's sqlite3.Connection offers
    def execute(self, sql):
        pass

try:
    sqlite_nosql.load(Connection())
    print("no error")
except RuntimeError as e:
    print(e)
PY
)
want="sqlite_nosql.load: this Python's sqlite3 module cannot load extensions (it was built without --enable-loadable-sqlite-extensions, as pyenv builds are by default); use a Python whose sqlite3.Connection has enable_load_extension, such as Debian's /usr/bin/python3, or rebuild it with PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions"
if [ "$got" = "$want" ]; then ok "load() on a sqlite3 module without extension loading"; else bad "load() without enable_load_extension: $got"; fi
finish
