package logs

import (
	"strings"
	"testing"
)

// TestCutCrashReport: a Python traceback the tail cut before its
// exception line names no cause; the FATAL record before it does
// (ScyllaDB's aio-max-nr, https://github.com/scylladb/scylla-operator/pull/1567).
func TestCutCrashReport(t *testing.T) {
	text := "2026-12-03 10:00:00,000 INFO spawned: 'scylla' with pid 128\n" +
		"FATAL: Exception during startup, aborting: std::runtime_error (Could not setup Async I/O: Resource temporarily unavailable. The most common cause is not enough request capacity in /proc/sys/fs/aio-max-nr. Try increasing that number)\n" +
		"2026-12-03 10:00:01,000 INFO exited: scylla (exit status 7; not expected)\n" +
		"Traceback (most recent call last):\n  File \"/opt/scylladb/scripts/libexec/scylla-housekeeping\", line 196, in <module>\n    args.func(args)\n" +
		"  File \"/opt/scylladb/scripts/libexec/scylla-housekeeping\", line 80, in get_api\n    return get_json_from_url(\"http://\" + api_address + path)\n           ^^^^^^^^^^^^^^^^\n"
	d := FindDecisive(text)
	if d == nil || !strings.Contains(d.Line, "aio-max-nr") {
		t.Fatalf("decisive %+v, want the FATAL aio-max-nr line", d)
	}
}
