package hostile

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// mountTmpfs mounts a tmpfs of the given size at a new directory, or skips
// the test where mounting is not allowed (not root, no CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s): the full-disk steps need root", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Logf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// TestDiskFullAtEachStep runs a triage on file systems too small for it at
// each of its steps (the root, the workspace skeleton, the skill, the
// evidence, the report, the final record): every run ends either with no
// trace and exit 1, or with an incident recorded failed with the reason
// and exit 4 (or, with room enough, resolved); and gc cleans up after it.
func TestDiskFullAtEachStep(t *testing.T) {
	mountTmpfs(t, "4k") // skips the whole test where mounting is not allowed
	c := testcluster.Get(t)
	ns := c.Namespace(t)
	crashPod(t, c, ns, "victim")
	// Logs big enough that writing the evidence needs room of its own.
	big := strings.Repeat("INFO request served in 3ms path=/api/v1/orders status=200 bytes=5123\n", 6000) + "FATAL config: required env DATABASE_URL is empty\n"
	c.SetLogs(ns, "victim", "app", true, big)

	outcomes := map[int]int{}
	// 4 KiB steps through the region where the evidence, the report and
	// the final record are written (measured: a run needs ~200 KiB here).
	sizes := []string{"4k", "8k", "16k", "32k", "64k", "96k", "128k"}
	for k := 136; k <= 204; k += 4 {
		sizes = append(sizes, fmt.Sprintf("%dk", k))
	}
	sizes = append(sizes, "1m")
	for _, size := range sizes {
		t.Run(size, func(t *testing.T) {
			mnt := mountTmpfs(t, size)
			root := filepath.Join(mnt, "incidents")
			r := run(t, c, root, "pod/victim", "-n", ns)
			figures.diskFullSteps.Add(1)
			outcomes[r.code]++
			ok := assertSettled(t, root)
			ids := incidentDirs(t, root)
			switch r.code {
			case 0:
				if len(ids) != 1 {
					t.Errorf("resolved, but %d incidents in the root", len(ids))
					ok = false
				}
			case 1:
				if len(ids) != 0 {
					t.Errorf("exit 1 (no incident), but the root holds %v", ids)
					ok = false
				}
			case 4:
				if len(ids) != 1 {
					t.Errorf("exit 4, but %d incidents in the root", len(ids))
					ok = false
					break
				}
				inc, err := incident.Load(filepath.Join(root, ids[0], incident.FileName))
				if err != nil || inc.Status != incident.Failed || inc.FailureReason == "" {
					t.Errorf("exit 4, but the record says %+v (%v)", inc, err)
					ok = false
				}
				if !strings.Contains(r.stderr, "no space left") {
					t.Errorf("exit 4 without saying why:\n%s", r.stderr)
				}
			default:
				t.Errorf("exit %d\n%s", r.code, r.stderr)
				ok = false
			}
			if !assertEnds(t, c, root, "size "+size) {
				ok = false
			}
			t.Logf("size %s: exit %d: %s", size, r.code, lastLine(r.stderr))
			if ok {
				figures.diskFullClean.Add(1)
			}
		})
	}
	t.Logf("outcomes by exit code: %v", outcomes)
	if outcomes[4] == 0 || outcomes[1] == 0 {
		t.Errorf("the sizes did not cover both a failure before and after the incident exists: %v", outcomes)
	}
}

func incidentDirs(t *testing.T, root string) []string {
	t.Helper()
	var ids []string
	for _, n := range rootEntries(t, root) {
		if !strings.HasPrefix(n, ".") {
			ids = append(ids, n)
		}
	}
	return ids
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
