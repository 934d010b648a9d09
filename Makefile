# kubectl-triage. `make demo` shows it working; `make test` runs every test.
GO      ?= go
PKG     := github.com/kubectl-triage/kubectl-triage
BIN     := bin/kubectl-triage
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
VERSION ?= $(shell git describe --tags --match 'v*' 2>/dev/null || echo v0.0.0-$(COMMIT))
LDFLAGS := -s -w -X $(PKG)/pkg/version.Version=$(VERSION) -X $(PKG)/pkg/version.Commit=$(COMMIT)
# Build tags. None is the krew build: its stores are azblob:// and file://.
# store_s3 and store_gcs add s3:// and gs://, store_all both (the container
# image's build, IMAGE_TAGS); each cloud SDK costs every command megabytes
# of binary and of resident memory.
TAGS       ?=
IMAGE_TAGS ?= store_all
# The control plane binaries (etcd, kube-apiserver, kubectl) for tests and the
# demo; built once from the Go module proxy and cached outside the repo.
TESTBIN  = $(shell ./hack/testbin.sh)
# The official MCP Inspector (pinned in hack/inspector/), for the tests of
# `kubectl triage mcp`; installed once into a cache outside the repo.
INSPECTOR = $(shell ./hack/inspector.sh)
# The real agent CLIs (claude, codex, gemini) pinned in hack/tools/agentclis,
# installed from npm once into a cache outside the repo; the end-to-end tests
# run them against a scripted model server (test/modelserver).
AGENTCLIS = $(shell ./hack/agentclis.sh)

.PHONY: all build test unit testbin demo demo-watch vet clean eval bench agent-clis

all: build

# Static, as the release archives are (hack/dist.sh): with cgo, the plugin
# package kustomize imports makes the linker export every symbol, 32 MB
# more binary for nothing.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -tags "$(TAGS)" -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kubectl-triage

vet:
	$(GO) vet ./...

testbin:
	./hack/testbin.sh

.PHONY: inspector
inspector:
	./hack/inspector.sh

# The MCP Inspector tests skip without it; make test installs it.
test: export KUBECTL_TRIAGE_INSPECTOR = $(INSPECTOR)

# Azurite (npm azurite, pinned in hack/tools/azurite), the real Azure Blob
# emulator the tests of --store upload to; installed once into a cache
# outside the repo. Without it those tests skip; with it (make test) a test
# that cannot start it fails.
AZURITE = $(shell ./hack/azurite.sh)
.PHONY: azurite
azurite:
	./hack/azurite.sh
test: export KUBECTL_TRIAGE_AZURITE = $(AZURITE)

# Prints the directory holding the pinned claude, codex and gemini.
agent-clis:
	./hack/agentclis.sh

# krew and its manifest validator (hack/tools/krew), built from the Go module
# proxy once into a cache outside the repo; test/krew runs them on the
# rendered manifest (without them those tests skip).
KREW_TOOLS = $(shell ./hack/krew.sh)
.PHONY: krew-tools
krew-tools:
	./hack/krew.sh
test: export KUBECTL_TRIAGE_KREW = $(KREW_TOOLS)

# Every test: unit tests and the end-to-end tests against a real
# kube-apiserver + etcd started by the tests themselves, and the object
# store's tests once more with every driver linked (store_all, the image's
# build: the s3:// and gs:// drivers).
# The real-node tier (test/realnode) runs too where it can (root, Debian's
# containerd); its one-line outcome is printed at the end either way, and so
# are the hostile-input suite's figures.
test: build vet fuzz-short
	@test -n "$(AGENTCLIS)" || { echo "make test: hack/agentclis.sh could not install the agent CLIs (node and npm needed)" >&2; exit 1; }
	@test -n "$(AZURITE)" || { echo "make test: hack/azurite.sh could not install Azurite (node and npm needed)" >&2; exit 1; }
	@rm -f $(REALNODE_REPORT)
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) KUBECTL_TRIAGE_BIN=$(CURDIR)/$(BIN) KUBECTL_TRIAGE_AGENTCLIS=$(AGENTCLIS) KUBECTL_TRIAGE_REALNODE_REPORT=$(REALNODE_REPORT) KUBECTL_TRIAGE_HOSTILE_FIGURES=$(CURDIR)/bin/hostile-figures.txt $(GO) test -count=1 -timeout 30m ./... ; s=$$?; $(GO) test -count=1 -tags store_all ./pkg/objectstore || s=1; cat bin/hostile-figures.txt 2>/dev/null; cat $(REALNODE_REPORT) 2>/dev/null; exit $$s

# The fuzz targets of what hostile input reaches first (the fault parser,
# the redactor, the terminal sanitiser), each for FUZZTIME; their findings
# land in testdata/fuzz and become regression tests. FUZZTIME is a count of
# executions, not a duration: a duration-bounded run of go1.26 can fail with a
# bare "context deadline exceeded" at its deadline on a loaded machine
# (https://go.dev/issue/75804).
FUZZTIME ?= 20000x
fuzz-short:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./pkg/fault
	$(GO) test -run '^$$' -fuzz '^FuzzText$$' -fuzztime $(FUZZTIME) ./pkg/redact
	$(GO) test -run '^$$' -fuzz '^FuzzClean$$' -fuzztime $(FUZZTIME) ./pkg/term

.PHONY: fuzz-short

# Only the tests that need no control plane.
unit:
	$(GO) test -count=1 $$($(GO) list ./... | grep -v /test/) ./test/scenarios

# A throwaway control plane, a broken workload on it, and kubectl triage's
# report on it with the builtin agent.
demo: build
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) run ./test/demo -plugin $(CURDIR)/$(BIN)

# The same, for watch mode: a stand-in kubernetes-mcp-server reports two
# faults and kubectl triage watch triages them.
demo-watch: build
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) run ./test/demo -plugin $(CURDIR)/$(BIN) -watch

clean:
	rm -rf bin dist

# The scenario corpus on a real control plane, as a table.
eval:
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) test -count=1 -run 'TestScenarios$$' -v ./test/e2e | grep -vE '^(=== RUN|=== PAUSE|=== CONT|\s+--- (PASS|FAIL)|--- PASS|PASS$$|ok )|scenarios_test.go'

# Speed and cost: one pod's triage in namespaces of 1,000 and 10,000 pods and
# events (wall time and API requests per run) against kubectl describe on the
# same control plane; TriageVsByHand: at 10,000 pods, the triage's time as a
# share of `kubectl describe pod` + `kubectl logs --previous` (interleaved
# rounds; target at most 0.7) and its object requests (target fewer than 10;
# KUBECTL_TRIAGE_BASELINE_BIN=another build runs in the same rounds); the
# read-only gateway's added latency (p50/p99 against
# direct access, and from inside the agent's sandbox), the time the plugin
# adds before an agent CLI starts (workspace, gateway, egress, sandbox), and
# the redaction throughput.
# WatchBurst: 1,000 faults at once through the real watch binary: peak RSS,
# time to drain, and every fault triaged or counted as dropped.
# Footprint: the release binary's size and the peak RSS of `version` and of
# a one-pod triage, for the krew build and the image's, beside kubectl
# describe's.
bench: build
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) KUBECTL_TRIAGE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -run '^$$' -bench 'TriagePod|KubectlDescribe|TriageVsByHand' -benchtime 20x -timeout 30m ./test/e2e
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) test -count=1 -run '^$$' -bench 'GatewayLatency|SandboxedGatewayRequest' -benchtime 2000x ./test/e2e
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) test -count=1 -run '^$$' -bench 'AgentStart' -benchtime 30x ./test/e2e
	$(GO) test -count=1 -run '^$$' -bench 'BenchmarkText$$' ./pkg/redact
	$(GO) test -count=1 -run '^$$' -bench 'Ingest|DedupMemory' -benchmem ./pkg/watch
	$(GO) test -count=1 -run '^$$' -bench 'Decide' -benchtime 5x -benchmem ./pkg/applog
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) KUBECTL_TRIAGE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -run '^$$' -bench 'RealNode' -benchtime 5x -timeout 10m ./test/realnode
	$(GO) test -count=1 -run '^$$' -bench 'GroupBurst' -benchmem ./pkg/watch
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) KUBECTL_TRIAGE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -run '^$$' -bench 'WatchBurst' -benchtime 1x -timeout 20m ./test/e2e
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) test -count=1 -run '^$$' -bench 'Footprint' -benchtime 5x -timeout 30m ./test/e2e

# ---- Release packaging (hack/dist.sh, hack/krewmanifest, hack/smoke.sh) ----
# Reproducible archives for every platform, and the krew manifest rendered
# for them. Overrides: PLATFORMS="linux/amd64 …" or host, DIST_DIR, URI_BASE
# (the download location, e.g. a private krew index), KREW_MANIFEST (output
# file; krew wants it named triage.yaml), KREW_TEMPLATE (the manifest
# template, krew-release-bot style, at the top of the repository).
PLATFORMS     ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
DIST_DIR      ?= dist
URI_BASE      ?= https://github.com/kubectl-triage/kubectl-triage/releases/download/$(VERSION)
KREW_MANIFEST ?= $(DIST_DIR)/triage.yaml
KREW_TEMPLATE ?= krew-manifest.yaml

# dist/kubectl-triage_$(VERSION)_OS_ARCH.tar.gz|.zip and dist/SHA256SUMS.
dist:
	GO="$(GO)" VERSION="$(VERSION)" COMMIT="$(COMMIT)" DIST_DIR="$(DIST_DIR)" PLATFORMS="$(PLATFORMS)" TAGS="$(TAGS)" ./hack/dist.sh

# dist/triage.yaml, krew-manifest.yaml rendered for the archives in DIST_DIR
# (version, uri and sha256 per platform; a platform not built is left out);
# made at release time with the archives it describes (the binaries embed the
# commit, so it is never committed).
krew-manifest: dist
	$(GO) run ./hack/krewmanifest manifest -version "$(VERSION)" -dist "$(DIST_DIR)" -uri-base "$(URI_BASE)" -in "$(KREW_TEMPLATE)" -out "$(KREW_MANIFEST)"

# The host's archive installed the way krew lays it out, run through the real
# kubectl's plugin dispatch against a throwaway control plane.
smoke:
	GO="$(GO)" VERSION="$(VERSION)" COMMIT="$(COMMIT)" ./hack/smoke.sh

.PHONY: dist krew-manifest smoke

# A stand-in for kubernetes-mcp-server's events feature (test/mcpserver) that
# sends a few faults about resources in namespace default to its first
# subscriber, to try watch mode against:
#   kubectl triage watch --mcp-endpoint http://$(MCP_ADDR)/mcp --max-incidents 2
# MCP_ARGS adds flags, e.g. MCP_ARGS="-loop -interval 5s -replay FILE".
MCP_ADDR ?= 127.0.0.1:8089
mcp-test-server:
	$(GO) run ./test/mcpserver/cmd/mcp-test-server -addr $(MCP_ADDR) $(MCP_ARGS)

.PHONY: mcp-test-server

# ---- Real-node tier (test/realnode) ----
# A real kubelet, containerd, scheduler and controller-manager in network and
# mount namespaces of their own produce real faults; each is triaged with the
# builtin agent at several moments of its life. Needs root and Debian's
# containerd, runc, busybox-static and containernetworking-plugins (.ci/run
# installs them); elsewhere it says in one line why it is skipped. The node
# binaries come from `make testbin` (built where the tier can run).
REALNODE_REPORT = $(CURDIR)/bin/realnode.txt

test-real: build
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) KUBECTL_TRIAGE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -timeout 20m ./test/realnode

# The same run, saving every fault's triaged workspace (context/ and the
# report) as the unit tier's real corpus, pkg/investigate/testdata/real.
capture-real: build
	rm -rf pkg/investigate/testdata/real
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) KUBECTL_TRIAGE_BIN=$(CURDIR)/$(BIN) KUBECTL_TRIAGE_REALNODE_CAPTURE=$(CURDIR)/pkg/investigate/testdata/real $(GO) test -count=1 -timeout 20m ./test/realnode

# The demo on a real node (root only): a Deployment whose pods crash-loop
# for real, and kubectl triage's report on it.
demo-real: build
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) run ./test/realnode/cmd/realnode demo -plugin $(CURDIR)/$(BIN)

.PHONY: test-real capture-real demo-real

# The container image without Docker: the static binary (every store
# driver: IMAGE_TAGS) on an empty base,
# one layer, user 65532, entrypoint `kubectl-triage watch`, as an OCI image
# layout in dist/image (reproducible: SOURCE_DATE_EPOCH, default the last
# commit's time). Push it with any OCI tool, e.g. `crane push dist/image REF`.
IMAGE_DIR  ?= dist/image
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
.PHONY: image
image:
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -trimpath -tags "$(IMAGE_TAGS)" -ldflags "$(LDFLAGS)" -o bin/linux-$(IMAGE_ARCH)/kubectl-triage ./cmd/kubectl-triage
	SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) $(GO) run ./hack/image -binary bin/linux-$(IMAGE_ARCH)/kubectl-triage -version $(VERSION) -platform linux/$(IMAGE_ARCH) -out $(IMAGE_DIR)

# ---- Scenario corpus (test/scenarios) ----
# Runs every scenario of the e2e suite on the test control plane and saves
# each one's workspace as its corpus directory (context/, scenario.json and
# the golden report.md), replacing the previous capture. Review with git diff.
capture-scenarios: build
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) KUBECTL_TRIAGE_BIN=$(CURDIR)/$(BIN) KUBECTL_TRIAGE_SCENARIOS_CAPTURE=$(CURDIR)/test/scenarios $(GO) test -count=1 -timeout 20m -run 'TestScenarios$$' ./test/e2e

.PHONY: capture-scenarios
