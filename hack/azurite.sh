#!/usr/bin/env bash
# Installs Azurite (npm azurite, Microsoft's Azure Storage emulator), pinned
# with its whole dependency tree by hack/tools/azurite/package-lock.json, into
# a cache outside the repository keyed by that lock file, once, and prints the
# path of its blob service's entry point, to run with node:
#
#   node "$(./hack/azurite.sh)" --blobHost 127.0.0.1 --blobPort 0 --inMemoryPersistence
#
# The tests of --store (pkg/objectstore, test/e2e) start it on loopback with a
# random port; `make test` passes the path in KUBECTL_TRIAGE_AZURITE, and then
# a test that cannot start it fails instead of skipping. It needs node and
# npm: .ci/run installs them from the distribution when they are missing.
# Override the cache with KUBECTL_TRIAGE_AZURITE_CACHE.
set -euo pipefail
cd "$(dirname "$0")/tools/azurite"

version=$(sed -n 's/.*"azurite": *"\([^"]*\)".*/\1/p' package.json | head -1)
key=$(cat package.json package-lock.json | sha256sum | cut -c1-12)
base="${KUBECTL_TRIAGE_AZURITE_CACHE:-$(go env GOCACHE)/../kubectl-triage-azurite}"
dir="$base/$version-$key"
entry="$dir/node_modules/azurite/dist/src/blob/main.js"

if [ -f "$dir/.complete" ] && [ -f "$entry" ]; then
	echo "$entry"
	exit 0
fi
for tool in node npm; do
	if ! command -v "$tool" >/dev/null; then
		echo "azurite.sh: $tool is not installed: install Node.js 20 or later with npm (e.g. apt-get install nodejs npm)" >&2
		exit 1
	fi
done

mkdir -p "$base"
tmp=$(mktemp -d "$base/.install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp package.json package-lock.json "$tmp/"
echo "azurite.sh: installing azurite@$version into $dir" >&2
# --ignore-scripts: Azurite needs no install step, and nothing downloaded
# runs at install time. It declares node >= 22 but its blob service runs on
# 20 (Debian's), which the tests exercise.
(cd "$tmp" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
touch "$tmp/.complete"
if ! mv -T "$tmp" "$dir" 2>/dev/null; then
	# Another run installed it meanwhile.
	[ -f "$dir/.complete" ] || { echo "azurite.sh: cannot install into $dir" >&2; exit 1; }
fi
trap - EXIT
echo "$entry"
