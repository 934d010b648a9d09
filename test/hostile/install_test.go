package hostile

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestInstallSharedNamespaces: `install --print` into kube-system or another
// kube-* namespace, or into default without --allow-default-namespace,
// prints nothing (a pipe into kubectl apply applies nothing) and says why
// in one line.
func TestInstallSharedNamespaces(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "kube-system"},
		{"-n", "kube-public"},
		{"-n", "kube-node-lease"},
		{"-n", "kube-system", "--allow-default-namespace"},
		{"--namespace=kube-system", "--replicas", "2", "--store", "s3://incidents"},
		{"-n", "default"},
	} {
		figures.installProbes.Add(1)
		cmd := exec.Command(pluginBinary(t), append([]string{"install", "--print"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECTL_TRIAGE_CONFIG=")
		r := runCmd(t, cmd, time.Minute)
		msg := strings.TrimSpace(r.stderr)
		if r.code == 0 || r.stdout != "" || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "error: refusing to install into ") {
			figures.installPrinted.Add(1)
			t.Errorf("install --print %v: exit %d, %d bytes on stdout, stderr %q; want a non-zero exit, nothing printed, one error line", args, r.code, len(r.stdout), r.stderr)
		}
	}
}
