package kube

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBurstRetryYieldsToItsError: a repeated record that only announces a
// retry yields to the failure logged with it each time; a retry notice
// whose failure is not repeated, and an error burst without a notice,
// stay as they are.
func TestBurstRetryYieldsToItsError(t *testing.T) {
	start := time.Date(2021, 11, 9, 10, 21, 32, 0, time.UTC)
	burst := func(lines ...string) string {
		var b strings.Builder
		for i := 0; i < 5; i++ {
			at := start.Add(time.Duration(i) * 2 * time.Second).Format("2006-01-02T15:04:05.000Z")
			for _, l := range lines {
				fmt.Fprintf(&b, "%s %s\n", at, l)
			}
		}
		return b.String()
	}
	now := start.Add(time.Minute)
	tests := []struct {
		name, log, want string
	}{
		// https://github.com/hashicorp/vault-helm/issues/645
		{"vault's raft join", burst("[ERROR] core: failed to retry join raft cluster: retry=2s",
			`[WARN]  core: join attempt failed: error="error during raft bootstrap init call: Put \"https://vault-0.vault-internal:8200/v1/sys/storage/raft/bootstrap/challenge\": x509: certificate is valid for vault.ns.svc, not vault-0.vault-internal"`),
			"certificate is valid for"},
		// Consul's retry join (hashicorp/consul agent/retry_join.go) words
		// the notice "Join cluster failed, will retry"; the refused dial
		// is logged beside it.
		{"a notice beside a refused dial", burst("[ERROR] agent: Join cluster failed, will retry: cluster=LAN retry_interval=30s",
			"[WARN]  agent: (LAN) couldn't join: error=\"Failed to join 10.0.0.5:8301: dial tcp 10.0.0.5:8301: connect: connection refused\""),
			"connection refused"},
		{"a notice alone stays", burst("[ERROR] core: failed to retry join raft cluster: retry=2s", "[INFO]  core: security barrier not initialized"),
			"retry=2s"},
		{"an error that states its cause stays", burst("[ERROR] core: join attempt failed: dial tcp 10.0.0.5:8201: connect: connection refused",
			`[WARN]  core: x509: certificate signed by unknown authority`),
			"connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ErrorBurst(tt.log, now)
			if !strings.Contains(b.Repeated, tt.want) || b.RepeatedN != 5 {
				t.Fatalf("repeated %q (%d), want one naming %q, 5 times", b.Repeated, b.RepeatedN, tt.want)
			}
		})
	}
}
