#!/usr/bin/env bash
# prereq.sh PACKAGE...: make sure the named Debian packages are installed.
# As root, installs what is missing with apt-get; otherwise stops and prints
# the exact apt-get line to run. Called by the Makefile before any build.
set -u
missing=()
for pkg in "$@"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  case "$status" in
    *"ok installed"*) ;;
    *) missing+=("$pkg") ;;
  esac
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "nosql: installing missing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends "${missing[@]}"; then
    apt-get update -q && apt-get install -y --no-install-recommends "${missing[@]}" || {
      echo "nosql: could not install: ${missing[*]}" >&2
      exit 1
    }
  fi
  exit 0
fi
echo "nosql: missing Debian packages: ${missing[*]}" >&2
echo "nosql: install them with:" >&2
echo "  sudo apt-get install -y ${missing[*]}" >&2
exit 1
