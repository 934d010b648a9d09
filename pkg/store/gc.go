package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// GCOptions say what gc collects.
type GCOptions struct {
	// OlderThan: an incident is collected when it finished at least this
	// long ago.
	OlderThan time.Duration
	// DryRun reports what would be removed and removes nothing.
	DryRun bool
	// Now is the reference time; zero means time.Now().
	Now time.Time
}

// Removal is one collected (or, in a dry run, collectable) incident.
type Removal struct {
	Entry *Entry
	Bytes int64 // disk usage of its files
	Err   error // removal failed; the workspace may be partly gone
}

// GCResult is what gc did.
type GCResult struct {
	Removed []Removal // newest first; in a dry run, what would be removed
	Running []*Entry  // investigating: never collected
	Kept    int       // finished but younger than the threshold
	Skipped []Skipped // not valid incidents: left alone
	// Leftovers is how many workspaces an earlier, interrupted gc had taken
	// out of the listing, or a killed run had left half-created, that this
	// one deleted.
	Leftovers int
}

// Freed is the disk space the removals freed (or would free).
func (r *GCResult) Freed() int64 {
	var n int64
	for _, rm := range r.Removed {
		if rm.Err == nil {
			n += rm.Bytes
		}
	}
	return n
}

// Failed is how many removals failed.
func (r *GCResult) Failed() int {
	n := 0
	for _, rm := range r.Removed {
		if rm.Err != nil {
			n++
		}
	}
	return n
}

// collectable reports whether the incident reached a final status (an
// interrupted one reads as failed). Anything else (investigating, or a
// status this version does not know) is treated as running and kept.
func collectable(s incident.Status) bool {
	switch s {
	case incident.Resolved, incident.Failed, incident.AgentFailed:
		return true
	}
	return false
}

// GC removes the finished incidents whose last activity (completion, or
// creation when no completion was recorded) is at least OlderThan ago.
// Investigating incidents are running and never collected; entries that are
// not valid incidents are left alone.
func (s *Store) GC(opts GCOptions) (*GCResult, error) {
	if opts.OlderThan < 0 {
		return nil, fmt.Errorf("older-than must not be negative, got %s", opts.OlderThan)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	cutoff := now.Add(-opts.OlderThan)
	entries, skipped, err := s.List()
	if err != nil {
		return nil, err
	}
	res := &GCResult{Skipped: skipped}
	r, ok, err := s.openRoot()
	if err != nil || !ok {
		return res, err
	}
	defer r.Close()

	for _, e := range entries {
		switch {
		case !collectable(e.Incident.Status):
			res.Running = append(res.Running, e)
			continue
		case e.LastActivity().After(cutoff):
			res.Kept++
			continue
		}
		rm := Removal{Entry: e}
		rm.Bytes, rm.Err = workspace.DiskUsage(r.FS(), e.ID)
		if rm.Err == nil && !opts.DryRun {
			rm.Err = remove(r, e.ID)
		}
		if rm.Err != nil {
			rm.Err = fmt.Errorf("remove incident %s: %w", e.ID, rm.Err)
		}
		res.Removed = append(res.Removed, rm)
	}
	if !opts.DryRun {
		res.Leftovers = sweepLeftovers(r, now)
	}
	return res, nil
}

// remove takes the workspace out of the listing with one rename, so a
// reader never sees it half-deleted, then deletes it.
func remove(r *os.Root, id string) error {
	fi, err := r.Lstat(id)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", id)
	}
	hidden := removingPrefix + id
	if err := r.RemoveAll(hidden); err != nil {
		return err
	}
	if err := r.Rename(id, hidden); err != nil {
		return err
	}
	return removeAll(r, hidden)
}

// removeAll is Root.RemoveAll, retried once after making every directory
// writable: an agent may have left read-only directories behind.
func removeAll(r *os.Root, name string) error {
	err := r.RemoveAll(name)
	if err == nil {
		return nil
	}
	_ = fs.WalkDir(r.FS(), name, func(p string, d fs.DirEntry, werr error) error {
		if werr == nil && d.IsDir() {
			_ = r.Chmod(filepath.FromSlash(p), 0o700)
		}
		return nil
	})
	// WalkDir could not enter a directory without read permission; fix the
	// top one at least.
	_ = r.Chmod(name, 0o700)
	if err2 := r.RemoveAll(name); err2 != nil {
		return err
	}
	return nil
}

// sweepLeftovers finishes deleting workspaces an interrupted gc had hidden,
// and removes the ones a run that is gone left half-created.
func sweepLeftovers(r *os.Root, now time.Time) int {
	names, err := readDir(r)
	if err != nil {
		return 0
	}
	n := 0
	for _, d := range names {
		if d.Type().IsRegular() && strings.HasPrefix(d.Name(), workspace.CancelPrefix) {
			// A cancellation request its incident's owner never took
			// (it had ended, or was gone): owners poll several times a
			// second.
			if fi, err := d.Info(); err == nil && now.Sub(fi.ModTime()) > time.Minute && r.Remove(d.Name()) == nil {
				n++
			}
			continue
		}
		if !d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			continue
		}
		leftover := strings.HasPrefix(d.Name(), removingPrefix)
		if !leftover {
			if fi, err := d.Info(); err == nil {
				leftover = workspace.Abandoned(d.Name(), fi.ModTime(), now)
			}
		}
		if leftover && removeAll(r, d.Name()) == nil {
			n++
		}
	}
	return n
}
