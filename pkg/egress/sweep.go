package egress

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/owner"
)

// dirPrefix names the socket directories in TMPDIR. The owning plugin
// process follows as an owner token (PID.STARTTIME), then a random part:
// kubectl-triage-net-4242.8812345-1234567. The directory lives outside the
// workspace because a unix socket's path is limited to about 100 bytes.
const dirPrefix = "kubectl-triage-net-"

// legacyGrace is how old a directory without an owner token (made by an
// older version) must be, and unanswered, before Sweep takes it for an
// orphan: its owner cannot be known, only that nothing serves it.
const legacyGrace = time.Minute

// Sweep removes the socket directories in TMPDIR whose plugin process is
// gone: a run killed with kill -9 never reaches Close. A directory whose
// owner is alive is never touched. It returns how many it removed; errors
// (another user's directory) leave the directory as it is.
func Sweep() int {
	return sweep(os.TempDir(), time.Now())
}

func sweep(tmp string, now time.Time) int {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, dirPrefix) {
			continue
		}
		dir := filepath.Join(tmp, name)
		if !orphaned(dir, strings.TrimPrefix(name, dirPrefix), now) {
			continue
		}
		if os.RemoveAll(dir) == nil {
			n++
		}
	}
	return n
}

// orphaned: the owner named in the directory's name is gone; without a
// name that says (an older version's), the directory is older than
// legacyGrace and no socket in it answers.
func orphaned(dir, rest string, now time.Time) bool {
	if tok, _, ok := strings.Cut(rest, "-"); ok {
		if p, ok := owner.ParseToken(tok); ok {
			return p.Gone()
		}
	}
	fi, err := os.Stat(dir)
	if err != nil || now.Sub(fi.ModTime()) < legacyGrace {
		return false
	}
	socks, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	for _, s := range socks {
		if c, err := net.DialTimeout("unix", s, time.Second); err == nil {
			c.Close()
			return false
		}
	}
	return true
}
