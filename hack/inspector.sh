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
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/npmcache.sh"
npm_cache_install inspector.sh @modelcontextprotocol/inspector "$here/inspector" \
	"${KUBECTL_TRIAGE_INSPECTOR_CACHE:-$(go env GOCACHE)/../kubectl-triage-inspector}" \
	package-lock.json node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js
