package hostile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// Escape sequences a hostile cluster object can carry: OSC 52 writes the
// clipboard, CSI 2J clears the screen, OSC 8 plants a hyperlink, a C1 CSI
// recolours, U+202E reverses what follows.
const (
	oscClipboard = "\x1b]52;c;ZXZpbCBwYXlsb2Fk\x07"
	csiClear     = "\x1b[2J"
	oscLink      = "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
	c1CSI        = "\u009b31m"
	bidiOverride = "\u202e"
)

// badBytes says what in out a terminal would act on: ESC, C0 controls but
// newline and tab, DEL, C1 controls and bidirectional overrides/isolates.
func badBytes(out string) string {
	for i, r := range out {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f:
			return quoteAround(out, i)
		case r >= 0x80 && r <= 0x9f:
			return quoteAround(out, i)
		case (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			return quoteAround(out, i)
		case r == utf8.RuneError:
		}
	}
	return ""
}

func quoteAround(s string, i int) string {
	a, b := max(0, i-40), min(len(s), i+40)
	return strings.ToValidUTF8(s[a:b], "?")
}

// TestEscapeSequencesNeverReachATerminal puts escape sequences in every
// cluster-controlled field the triage prints or writes (an event's reason
// and message, a container's waiting message, an annotation, log lines, a
// fault's type and message) and runs every printing command: triage, -o
// json, list, show, status, watch. No byte a terminal acts on may reach
// stdout, stderr or investigation.md.
func TestEscapeSequencesNeverReachATerminal(t *testing.T) {
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	root := filepath.Join(t.TempDir(), "incidents")
	evil := oscClipboard + csiClear + oscLink + c1CSI + bidiOverride

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "shouty", Namespace: ns, Annotations: map[string]string{"example.com/note": "hi" + evil}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}},
	}
	pod.Status = corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "127.0.0.1", PodIP: "10.244.0.41",
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Image: "busybox:1.36", ImageID: "docker.io/library/busybox@sha256:01", ContainerID: "containerd://e1", RestartCount: 4,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off" + evil + " restarting"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error" + evil,
				Message:   "died" + evil,
				StartedAt: metav1.NewTime(time.Now().Add(-2 * time.Minute)), FinishedAt: metav1.NewTime(time.Now().Add(-time.Minute))}},
		}},
	}
	pod = c.CreatePod(t, pod)
	logs := "starting\nERROR " + evil + " FATAL config missing" + evil + "\n"
	c.SetLogs(ns, "shouty", "app", true, logs)
	c.SetLogs(ns, "shouty", "app", false, logs)
	c.Event(t, testcluster.EventSpec{Object: pod, Reason: "BackOff" + evil, Count: 5, FieldPath: "spec.containers{app}",
		Message: "Back-off restarting failed container" + evil})

	fault := map[string]any{
		"faultType": "CrashLoop" + evil, "severity": "critical" + evil,
		"resource": map[string]any{"apiVersion": "v1", "kind": "Pod", "name": "shouty", "namespace": ns},
		"context":  "evil" + evil, "timestamp": time.Now().UTC().Format(time.RFC3339),
	}
	faultFile := filepath.Join(t.TempDir(), "fault.json")
	data, _ := json.Marshal(fault)
	if err := os.WriteFile(faultFile, data, 0o600); err != nil {
		t.Fatal(err)
	}

	probe := func(what string, r result) {
		for _, stream := range []struct{ name, text string }{{"stdout", r.stdout}, {"stderr", r.stderr}} {
			figures.escapeProbes.Add(1)
			if bad := badBytes(stream.text); bad != "" {
				figures.escapeLeaks.Add(1)
				t.Errorf("%s: %s carries a control sequence near %q", what, stream.name, bad)
			}
		}
	}
	r := run(t, c, root, "pod/shouty", "-n", ns)
	probe("triage pod/shouty", r)
	if r.code != 0 {
		t.Fatalf("triage: exit %d\n%s", r.code, r.stderr)
	}
	probe("triage --fault-file", run(t, c, root, "--fault-file", faultFile))
	// On a terminal the progress line is redrawn with the plugin's own
	// sequences (carriage return, erase line, colours); those are removed
	// before the probe, so what is left is what came from the cluster.
	tty := runEnv(t, c, root, []string{"KUBECTL_TRIAGE_FORCE_TTY=1"}, "--fault-file", faultFile)
	tty.stderr = ownSequences.ReplaceAllString(tty.stderr, "")
	probe("triage --fault-file (as a terminal)", tty)
	probe("triage -o json", run(t, c, root, "--fault-file", faultFile, "-o", "json"))
	probe("list", run(t, c, root, "list"))
	probe("list -o wide", run(t, c, root, "list", "-o", "wide"))
	for _, inc := range listJSON(t, c, root) {
		probe("status", run(t, c, root, "status", inc.IncidentID))
		probe("show", run(t, c, root, "show", inc.IncidentID))
		probe("show --json", run(t, c, root, "status", inc.IncidentID, "-o", "yaml"))
	}
	probe("watch (text lines)", run(t, c, root, "watch", "-n", ns, "--include-existing", "--max-incidents", "1", "--dedup-window", "1s"))
	probe("watch -o json", run(t, c, root, "watch", "-n", ns, "--include-existing", "--max-incidents", "1", "-o", "json", "--dedup-window", "1s"))
	probe("a bad fault file", run(t, c, root, "--fault-file", writeTemp(t, `{"faultType":"x`+evil+`"}`)))

	reports := 0
	walkFiles(t, root, func(path string, data []byte) {
		if filepath.Base(path) != "investigation.md" {
			return
		}
		reports++
		figures.escapeProbes.Add(1)
		if bad := badBytes(string(data)); bad != "" {
			figures.escapeLeaks.Add(1)
			t.Errorf("%s carries a control sequence near %q", path, bad)
		}
	})
	if reports < 3 {
		t.Errorf("only %d reports written", reports)
	}
}

// ownSequences are the sequences the progress line draws with.
var ownSequences = regexp.MustCompile(`\r|\x1b\[K|\x1b\[[0-9;]*m`)

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// runEnv is run with more environment.
func runEnv(t testing.TB, c *testcluster.Cluster, root string, env []string, args ...string) result {
	t.Helper()
	cmd := plugin(t, c, root, args...)
	cmd.Env = append(cmd.Env, env...)
	return runCmd(t, cmd, 2*time.Minute)
}
