#!/usr/bin/env bash
# Installs the official MCP Inspector (npm @modelcontextprotocol/inspector,
# pinned with its whole dependency tree by hack/inspector/package-lock.json)
# into a cache outside the repository, keyed by that lock file, and prints
# the path of its launcher, to run with node:
#
#   node "$(./hack/inspector.sh)" --cli kubectl-triage mcp --method tools/list
#
# The tests of `kubectl triage mcp` (test/e2e/mcp_inspector_test.go) run it
# against both transports; `make test` passes the path in
# KUBECTL_TRIAGE_INSPECTOR. It needs node (20 or later) and npm: .ci/run
# installs them from the distribution when they are missing.
# Override the cache with KUBECTL_TRIAGE_INSPECTOR_CACHE.
set -euo pipefail
cd "$(dirname "$0")/inspector"

version=$(sed -n 's/.*"@modelcontextprotocol\/inspector": *"\([^"]*\)".*/\1/p' package.json | head -1)
key=$(sha256sum package-lock.json | cut -c1-12)
base="${KUBECTL_TRIAGE_INSPECTOR_CACHE:-$(go env GOCACHE)/../kubectl-triage-inspector}"
dir="$base/$version-$key"
entry="$dir/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

if [ -f "$dir/.complete" ] && [ -f "$entry" ]; then
	echo "$entry"
	exit 0
fi
for tool in node npm; do
	if ! command -v "$tool" >/dev/null; then
		echo "inspector.sh: $tool is not installed: install Node.js 20 or later with npm (e.g. apt-get install nodejs npm)" >&2
		exit 1
	fi
done
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
	echo "inspector.sh: the MCP Inspector $version needs Node.js 20 or later; this is $(node --version)" >&2
	exit 1
fi

mkdir -p "$base"
tmp=$(mktemp -d "$base/.install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp package.json package-lock.json "$tmp/"
echo "inspector.sh: installing @modelcontextprotocol/inspector@$version into $dir" >&2
# --ignore-scripts: the CLI needs no install step, and nothing downloaded
# runs at install time. The package declares node >=22.19 but its CLI runs
# on 20, which the tests check.
(cd "$tmp" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
touch "$tmp/.complete"
if ! mv -T "$tmp" "$dir" 2>/dev/null; then
	# Another run installed it meanwhile.
	[ -f "$dir/.complete" ] || { echo "inspector.sh: cannot install into $dir" >&2; exit 1; }
fi
trap - EXIT
echo "$entry"
