package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Bounds on what is copied into the in-memory home: a CLI's settings and
// login are small; a huge file there is not something the agent needs.
const (
	maxHomeFile  = 16 << 20
	maxHomeTotal = 64 << 20
)

type homeEntry struct {
	path   string
	mode   fs.FileMode
	data   []byte
	link   string
	isDir  bool
	origin []byte // a login file's content before the run
}

// homeCopy is the agent CLI's own files, read from the user's home before
// it is covered.
type homeCopy struct {
	entries []homeEntry
	logins  map[string][]byte
}

// readHome reads spec.HomeFiles (files or whole directories) into memory.
func readHome(spec Spec) (*homeCopy, error) {
	h := &homeCopy{logins: map[string][]byte{}}
	if spec.Home == "" {
		return h, nil
	}
	total := 0
	for _, root := range spec.HomeFiles {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable or gone: the CLI does without it
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			switch {
			case fi.IsDir():
				h.entries = append(h.entries, homeEntry{path: p, mode: fi.Mode().Perm(), isDir: true})
			case fi.Mode()&fs.ModeSymlink != 0:
				if t, err := os.Readlink(p); err == nil {
					h.entries = append(h.entries, homeEntry{path: p, link: t})
				}
			case fi.Mode().IsRegular():
				if fi.Size() > maxHomeFile || total+int(fi.Size()) > maxHomeTotal {
					fmt.Fprintf(os.Stderr, "kubectl-triage sandbox: %s is too large to copy into the agent's home; left out\n", p)
					return nil
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return nil
				}
				total += len(data)
				h.entries = append(h.entries, homeEntry{path: p, mode: fi.Mode().Perm(), data: data})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, l := range spec.LoginFiles {
		if data, err := os.ReadFile(l); err == nil {
			h.logins[l] = data
		}
	}
	return h, nil
}

// write lays the copies out in the (now in-memory) home.
func (h *homeCopy) write() error {
	for _, e := range h.entries {
		if err := os.MkdirAll(filepath.Dir(e.path), 0o700); err != nil {
			return fmt.Errorf("home copy: %w", err)
		}
		var err error
		switch {
		case e.isDir:
			if err = os.MkdirAll(e.path, 0o700); err == nil {
				err = os.Chmod(e.path, e.mode|0o700)
			}
		case e.link != "":
			err = os.Symlink(e.link, e.path)
		default:
			// Writable for the CLI: it keeps its locks and sessions here.
			err = os.WriteFile(e.path, e.data, e.mode|0o600)
		}
		if err != nil {
			return fmt.Errorf("home copy %s: %w", e.path, err)
		}
	}
	return nil
}

// writeLogins hands the plugin the login files the CLI changed (a refreshed
// OAuth token), and nothing else of the in-memory home.
func writeLogins(w *os.File, spec Spec, h *homeCopy) {
	var out []Login
	for _, l := range spec.LoginFiles {
		before, existed := h.logins[l]
		fi, err := os.Lstat(l)
		if !existed || err != nil || !fi.Mode().IsRegular() || fi.Size() > maxHomeFile {
			continue
		}
		after, err := os.ReadFile(l)
		if err != nil || bytes.Equal(before, after) || len(after) == 0 {
			continue
		}
		out = append(out, Login{Path: l, Data: after, Mode: fi.Mode().Perm()})
	}
	if len(out) > 0 {
		json.NewEncoder(w).Encode(out)
	}
}
