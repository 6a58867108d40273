#!/usr/bin/env bash
# scripts/bump-version.sh X.Y.Z: set VERSION and turn the "Unreleased"
# section of CHANGELOG.md into "X.Y.Z - date", opening a new empty
# "Unreleased" above it. Commit the result yourself.
set -eu
cd "$(dirname "$0")/.."
new=${1:?usage: scripts/bump-version.sh X.Y.Z}
if ! echo "$new" | grep -q -E '^[0-9]+\.[0-9]+\.[0-9]+$'; then
  echo "bump-version: '$new' is not X.Y.Z" >&2
  exit 1
fi
if ! grep -q '^## Unreleased' CHANGELOG.md; then
  echo "bump-version: CHANGELOG.md has no '## Unreleased' section" >&2
  exit 1
fi
printf '%s\n' "$new" >VERSION
sed -i "s/^## Unreleased\$/## Unreleased\n\n## $new - $(date -u +%Y-%m-%d)/" CHANGELOG.md
echo "VERSION is now $new"
