package applog

import (
	"slices"
	"testing"
)

// TestExitOnly: a wrapper that says only that a subprocess exited, in
// several programs' words, and lines that state a cause of their own.
func TestExitOnly(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"panic: exit status 2", true}, // https://github.com/istio/istio/issues/28897
		{"Error: exit status 3", true}, // https://github.com/linkerd/linkerd2/issues/6254
		{"subprocess.CalledProcessError: Command '['pip', 'install', '-r', 'requirements.txt']' returned non-zero exit status 1.", true},
		{"error: running iptables-restore: exit status 1", true},
		{"panic: runtime error: index out of range [3] with length 3", false},
		{"Error: failed to connect to db:5432: connection refused", false},
		{"exit status 2 after reading /etc/app.conf: unknown directive", false},
	}
	for _, tt := range tests {
		if got := ExitOnly(tt.line); got != tt.want {
			t.Errorf("ExitOnly(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestRetryOnly: a retry notice without the failure it retries.
func TestRetryOnly(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		// https://github.com/hashicorp/vault-helm/issues/645
		{"core: failed to retry join raft cluster: retry=2s", true},
		// promtail's client (grafana/loki clients/pkg/promtail/client):
		// the error it retries is in the line, so it is no notice only.
		{`error sending batch, will retry: Post "http://loki:3100/loki/api/v1/push": dial tcp: lookup loki on 10.96.0.10:53: no such host`, false},
		{"Back-off restarting failed container", true},
		{"core: join attempt failed: x509: certificate is valid for vault.ns.svc, not vault-0.vault-internal", false},
	}
	for _, tt := range tests {
		if got := RetryOnly(tt.line); got != tt.want {
			t.Errorf("RetryOnly(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestJavaErrnoAndWatchLimit: FileNotFoundException carries open(2)'s
// errno text; a watcher's EMFILE/ENOSPC is the node's inotify limit.
func TestJavaErrnoAndWatchLimit(t *testing.T) {
	tests := []struct {
		line      string
		has, lack Signal
	}{
		// https://github.com/sonatype/operator-nxrm3/issues/54
		{"java.io.FileNotFoundException: /nexus-data/karaf.pid (Permission denied)", SigPermission, SigMissingFile},
		// The same open(2) on a read-only mount (EROFS).
		{"java.io.FileNotFoundException: /var/jenkins_home/copy_reference_file.log (Read-only file system)", SigReadOnlyFS, SigMissingFile},
		{"java.io.FileNotFoundException: /etc/app/application.yml (No such file or directory)", SigMissingFile, ""},
		{`msg="error creating promtail" error="failed to make file target manager: too many open files"`, SigWatchLimit, ""},
		{"tail: inotify cannot be used, reverting to polling: Too many open files", SigWatchLimit, ""},
		{"Error: ENOSPC: System limit for number of file watchers reached, watch '/app/src'", SigWatchLimit, ""},
		{"accept tcp [::]:8080: accept4: too many open files", "", SigWatchLimit},
		{"write /data/wal/00000001: no space left on device", SigNoSpace, SigWatchLimit},
	}
	for _, tt := range tests {
		sigs := Signals(tt.line)
		if tt.has != "" && !slices.Contains(sigs, tt.has) || tt.lack != "" && slices.Contains(sigs, tt.lack) {
			t.Errorf("%q: signals %v, want %q and not %q", tt.line, sigs, tt.has, tt.lack)
		}
		if tt.has == SigWatchLimit && sigs[0] != SigWatchLimit {
			t.Errorf("%q: %s outweighs the watch limit", tt.line, sigs[0])
		}
	}
}

// TestExceptionAfterFramesIsItsOwnEvent: a second exception printed after
// the first one's frames is another report, not the first one's cause.
func TestExceptionAfterFramesIsItsOwnEvent(t *testing.T) {
	log := Parse("java.io.FileNotFoundException: ../tmp/x.lock (No such file or directory)\n" +
		"        at java.io.RandomAccessFile.open0(Native Method)\n" +
		"java.io.FileNotFoundException: /nexus-data/karaf.pid (Permission denied)\n" +
		"        at java.io.FileOutputStream.open0(Native Method)\n")
	if len(log.Events) != 2 || log.Events[1].Text() != "java.io.FileNotFoundException: /nexus-data/karaf.pid (Permission denied)" {
		t.Fatalf("events %+v", log.Events)
	}
	// A record's message followed by its exception stays one event.
	log = Parse("Unable to start Kestrel.\nSystem.Net.Sockets.SocketException (13): Permission denied\n   at System.Net.Sockets.Socket.Bind(EndPoint localEP)\n")
	if len(log.Events) != 1 {
		t.Fatalf("events %+v", log.Events)
	}
}
