// Package store is the set of incident workspaces under one workspace root:
// listing them, finding one by ID or ID prefix, reading its files and
// collecting old ones (DESIGN.md §3). Every read goes through
// workspace.FilesIn (no link followed, regular files only, each up to its
// limit) and every removal through os.Root, so nothing it reads or removes
// can lie outside the root, whatever an agent or a user left there.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// MinPrefix is the shortest ID prefix accepted when looking an incident up.
const MinPrefix = 4

// removingPrefix names a workspace that gc has taken out of the listing and
// is deleting; a leftover one (an interrupted gc) is finished by the next.
const removingPrefix = ".removing-"

// Store is the incidents under one workspace root.
type Store struct {
	Root string // absolute
}

// New returns the store for root. The root need not exist: then it holds no
// incidents.
func New(root string) (*Store, error) {
	if root == "" {
		return nil, errors.New("no workspace root given")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	return &Store{Root: abs}, nil
}

// Entry is one valid incident workspace.
type Entry struct {
	ID       string
	Dir      string // where the workspace is: under the root, whatever incident.json says
	Incident *incident.Incident
	// Interrupted: incident.json says investigating but its owner process
	// is gone; Incident reads as failed, reason interrupted.
	Interrupted bool
}

// Skipped is something in the root that is not a valid incident workspace.
type Skipped struct {
	Name   string // entry name under the root
	Reason string
}

func (s Skipped) String() string { return s.Name + ": " + s.Reason }

// LastActivity is when the incident last changed: completion, or creation
// for one that never finished.
func (e *Entry) LastActivity() time.Time {
	if c := e.Incident.CompletedAt; c != nil && !c.IsZero() {
		return *c
	}
	return e.Incident.CreatedAt
}

// Duration is how long the run took; false when it has not finished.
func (e *Entry) Duration() (time.Duration, bool) {
	inc := e.Incident
	if inc.CompletedAt == nil || inc.CreatedAt.IsZero() {
		return 0, false
	}
	d := inc.CompletedAt.Sub(inc.CreatedAt)
	if d < 0 {
		d = 0
	}
	return d, true
}

// Resource names the incident's object the kubectl way: Kind/name -n ns.
func (e *Entry) Resource() string {
	r := e.Incident.Resource
	s := r.Kind + "/" + r.Name
	if r.Kind == "" && r.Name == "" {
		s = "<unknown>"
	}
	if r.Namespace != "" {
		s += " -n " + r.Namespace
	}
	return s
}

// ErrInvalidID is returned for an ID (or prefix) that could smuggle a path.
var ErrInvalidID = workspace.ErrInvalidID

// NotFoundError says no incident under the root matches an ID.
type NotFoundError struct{ Ref, Root string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no incident matches %q in %s", e.Ref, e.Root)
}

// AmbiguousError says an ID prefix matches more than one incident.
type AmbiguousError struct {
	Ref, Root  string
	Candidates []string // one line per match: ID and, when readable, what it is about
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("incident ID prefix %q is ambiguous: it matches %d incidents in %s:\n  %s\ngive more characters of the ID",
		e.Ref, len(e.Candidates), e.Root, strings.Join(e.Candidates, "\n  "))
}

var refPattern = regexp.MustCompile(`^[0-9a-f][0-9a-f-]*$`)

// NormalizeRef checks an ID or ID prefix typed by a user before it comes near
// a path: hex digits and dashes only, at most a UUID's length, at least
// MinPrefix characters. It returns it in lower case.
func NormalizeRef(ref string) (string, error) {
	r := strings.ToLower(ref)
	switch {
	case r == "":
		return "", fmt.Errorf("%w: empty; give an incident ID or a prefix of one (see 'kubectl triage list')", ErrInvalidID)
	case len(r) > 36 || !refPattern.MatchString(r):
		return "", fmt.Errorf("%w %s: want a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e, or a prefix of one", ErrInvalidID, term.Quote(ref))
	case len(r) < MinPrefix:
		return "", fmt.Errorf("%w %s: a prefix needs at least %d characters", ErrInvalidID, term.Quote(ref), MinPrefix)
	}
	return r, nil
}

// openRoot opens the workspace root; ok is false when it does not exist.
func (s *Store) openRoot() (r *os.Root, ok bool, err error) {
	r, err = os.OpenRoot(s.Root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("open workspace root: %w", err)
	}
	return r, true, nil
}

// List returns the valid incidents, newest first, and what was skipped. A
// root that does not exist holds no incidents. Hidden entries (workspaces
// being created or removed) are ignored; symlinks are never followed.
func (s *Store) List() ([]*Entry, []Skipped, error) {
	r, ok, err := s.openRoot()
	if !ok {
		return nil, nil, err
	}
	defer r.Close()
	names, err := readDir(r)
	if err != nil {
		return nil, nil, err
	}
	var entries []*Entry
	var skipped []Skipped
	for _, d := range names {
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		e, reason := s.load(d)
		if e == nil {
			skipped = append(skipped, Skipped{Name: name, Reason: reason})
			continue
		}
		entries = append(entries, e)
	}
	sortNewestFirst(entries)
	return entries, skipped, nil
}

func sortNewestFirst(entries []*Entry) {
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i].Incident.CreatedAt, entries[j].Incident.CreatedAt
		if !a.Equal(b) {
			return a.After(b)
		}
		return entries[i].ID < entries[j].ID
	})
}

func readDir(r *os.Root) ([]fs.DirEntry, error) {
	dir, err := r.Open(".")
	if err != nil {
		return nil, fmt.Errorf("read workspace root: %w", err)
	}
	defer dir.Close()
	names, err := dir.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("read workspace root: %w", err)
	}
	return names, nil
}

// load reads one root entry; on failure it says why the entry is not an
// incident.
func (s *Store) load(d fs.DirEntry) (*Entry, string) {
	name := d.Name()
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		return nil, "is a symbolic link, not an incident workspace (not followed)"
	case !d.IsDir():
		return nil, "is not a directory"
	case workspace.ValidateID(name) != nil:
		return nil, "name is not an incident ID"
	}
	data, err := workspace.FilesIn(s.Root, name).ReadFile(context.Background(), incident.FileName)
	var refused *safefile.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "no " + incident.FileName
	case errors.As(err, &refused):
		if refused.Path == filepath.Join(s.Root, name, incident.FileName) {
			return nil, incident.FileName + " " + refused.Reason()
		}
		return nil, err.Error()
	case err != nil:
		return nil, err.Error()
	}
	var inc *incident.Incident
	if err := json.Unmarshal(data, &inc); err != nil || inc == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, "corrupt " + incident.FileName + ": " + err.Error()
	}
	if inc.IncidentID != name {
		return nil, fmt.Sprintf("%s belongs to incident %q, not to this directory", incident.FileName, inc.IncidentID)
	}
	if inc.CreatedAt.IsZero() {
		return nil, incident.FileName + " has no createdAt"
	}
	e := &Entry{ID: name, Dir: filepath.Join(s.Root, name), Incident: inc}
	e.Interrupted = inc.MarkInterrupted()
	return e, ""
}

// Find returns the incident whose ID is ref or starts with it.
func (s *Store) Find(ref string) (*Entry, error) {
	ref, err := NormalizeRef(ref)
	if err != nil {
		return nil, err
	}
	r, ok, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &NotFoundError{Ref: ref, Root: s.Root}
	}
	defer r.Close()
	names, err := readDir(r)
	if err != nil {
		return nil, err
	}
	var matches []fs.DirEntry
	for _, d := range names {
		if workspace.ValidateID(d.Name()) != nil {
			continue
		}
		if d.Name() == ref {
			matches = []fs.DirEntry{d}
			break
		}
		if strings.HasPrefix(d.Name(), ref) {
			matches = append(matches, d)
		}
	}
	switch len(matches) {
	case 0:
		return nil, &NotFoundError{Ref: ref, Root: s.Root}
	case 1:
		e, reason := s.load(matches[0])
		if e == nil {
			return nil, fmt.Errorf("incident %s is not readable: %s", matches[0].Name(), reason)
		}
		return e, nil
	}
	amb := &AmbiguousError{Ref: ref, Root: s.Root}
	sort.Slice(matches, func(i, j int) bool { return matches[i].Name() < matches[j].Name() })
	for _, d := range matches {
		line := d.Name()
		if e, reason := s.load(d); e != nil {
			line += "  " + e.Resource() + "  " + e.Incident.CreatedAt.UTC().Format(time.RFC3339)
		} else {
			line += "  (" + reason + ")"
		}
		amb.Candidates = append(amb.Candidates, line)
	}
	return nil, amb
}

// ReadFile reads rel (a workspace layout path such as output/investigation.md)
// from the incident's workspace, through workspace.FilesIn: a link, a
// special file or one over its limit is refused (safefile.ErrRefused),
// the error naming it.
func (s *Store) ReadFile(e *Entry, rel string) ([]byte, error) {
	if err := workspace.ValidateID(e.ID); err != nil {
		return nil, err
	}
	return workspace.FilesIn(s.Root, e.ID).ReadFile(context.Background(), path.Clean(filepath.ToSlash(rel)))
}
