package pod

import "testing"

// TestKubeletWords: the kubelet's message, verbatim, without its pod
// trailer.
func TestKubeletWords(t *testing.T) {
	for in, want := range map[string]string{
		`container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root (pod: "kuard-1_ns(6221)", container: kuard)`: "container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root",
		`couldn't find key db-password in Secret ns/app-secrets`: "couldn't find key db-password in Secret ns/app-secrets",
	} {
		if got := kubeletWords(in); got != want {
			t.Errorf("kubeletWords(%q) = %q, want %q", in, got, want)
		}
	}
}
