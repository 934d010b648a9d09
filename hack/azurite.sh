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
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib/npmcache.sh"
npm_cache_install azurite.sh azurite "$here/tools/azurite" \
	"${KUBECTL_TRIAGE_AZURITE_CACHE:-$(go env GOCACHE)/../kubectl-triage-azurite}" \
	"package.json package-lock.json" node_modules/azurite/dist/src/blob/main.js
