# kubectl-triage. `make demo` shows it working; `make test` runs every test.
GO      ?= go
PKG     := github.com/kubectl-triage/kubectl-triage
BIN     := bin/kubectl-triage
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
VERSION ?= $(shell git describe --tags --match 'v*' 2>/dev/null || echo v0.0.0-$(COMMIT))
LDFLAGS := -s -w -X $(PKG)/pkg/version.Version=$(VERSION) -X $(PKG)/pkg/version.Commit=$(COMMIT)
# The control plane binaries (etcd, kube-apiserver, kubectl) for tests and the
# demo; built once from the Go module proxy and cached outside the repo.
TESTBIN  = $(shell ./hack/testbin.sh)

.PHONY: all build test unit testbin demo vet clean eval bench

all: build

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kubectl-triage

vet:
	$(GO) vet ./...

testbin:
	./hack/testbin.sh

# Every test: unit tests and the end-to-end tests against a real
# kube-apiserver + etcd started by the tests themselves.
test: build vet
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) KUBECTL_TRIAGE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 30m ./...

# Only the tests that need no control plane.
unit:
	$(GO) test -count=1 $$($(GO) list ./... | grep -v /test/)

# A throwaway control plane, a broken workload on it, and kubectl triage's
# report on it with the builtin agent.
demo: build
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) run ./test/demo -plugin $(CURDIR)/$(BIN)

clean:
	rm -rf bin dist

# The scenario corpus on a real control plane, as a table.
eval:
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) test -count=1 -run 'TestScenarios$$' -v ./test/e2e | grep -vE '^(=== RUN|=== PAUSE|=== CONT|\s+--- (PASS|FAIL)|--- PASS|PASS$$|ok )|scenarios_test.go'

# Speed and cost: one pod's triage in namespaces of 1,000 and 5,000 pods and
# events (wall time and API requests per run) against kubectl describe on the
# same control plane, the read-only gateway's added latency (p50/p99 against
# direct access), and the redaction throughput.
bench: build
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) KUBECTL_TRIAGE_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -run '^$$' -bench 'TriagePod|KubectlDescribe' -benchtime 20x -timeout 30m ./test/e2e
	KUBECTL_TRIAGE_TESTBIN=$(TESTBIN) $(GO) test -count=1 -run '^$$' -bench 'GatewayLatency' -benchtime 2000x ./test/e2e
	$(GO) test -count=1 -run '^$$' -bench 'BenchmarkText$$' ./pkg/redact
