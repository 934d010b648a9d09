package kube

import "testing"

// TestProbeVerdict: a multi-line probe output is read for its verdict,
// not its first (progress) line. Material: calico-node's readiness probe,
// "2022-03-30 11:23:39.871 [INFO][130] confd/health.go 180: Number of
// node(s) with BGP peering established = 0 / calico/node is not ready:
// BIRD is not ready: BGP not established with 192.168.50.42,…",
// https://github.com/projectcalico/calico/issues/2561, and its felix
// variant, https://github.com/projectcalico/calico/pull/7556. Negatives: a
// one-line output is kept whole; an output of info records only keeps its
// last.
func TestProbeVerdict(t *testing.T) {
	for _, tc := range []struct{ output, want string }{
		{"2022-03-30 11:23:39.871 [INFO][130] confd/health.go 180: Number of node(s) with BGP peering established = 0\ncalico/node is not ready: BIRD is not ready: BGP not established with 192.168.50.42,192.168.50.45,192.168.50.46",
			"calico/node is not ready: BIRD is not ready: BGP not established with 192.168.50.42,192.168.50.45,192.168.50.46"},
		{"2024-01-10 23:05:37.773 [INFO][4392] confd/health.go 180: Number of node(s) with BGP peering established = 0\ncalico/node is not ready: felix is not ready: readiness probe reporting 503\n",
			"calico/node is not ready: felix is not ready: readiness probe reporting 503"},
		{"HTTP probe failed with statuscode: 503", "HTTP probe failed with statuscode: 503"},
		{"level=info msg=\"checking\"\nlevel=info msg=\"still checking\"", "level=info msg=\"still checking\""},
	} {
		if got := ProbeVerdict(tc.output); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.output, got, tc.want)
		}
	}
}
