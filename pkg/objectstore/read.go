package objectstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// maxDaysListed: Recent lists day by day up to this many days back.
const maxDaysListed = 31

// readTimeout bounds one object read from a remote store.
const readTimeout = time.Minute

// List returns the incidents in the store, newest first, as the local
// store does (store.Entry, whose Dir is the incident's URL), and the
// records that could not be read.
func (s *Store) List(ctx context.Context) ([]*store.Entry, []store.Skipped, error) {
	return s.list(ctx, "", func(string) bool { return true })
}

// list reads every incident.json under prefix whose ID passes keep.
func (s *Store) list(ctx context.Context, prefix string, keep func(id string) bool) ([]*store.Entry, []store.Skipped, error) {
	keys, err := s.records(ctx, prefix)
	if err != nil {
		return nil, nil, err
	}
	var entries []*store.Entry
	var skipped []store.Skipped
	for _, k := range keys {
		if !keep(idOf(k)) {
			continue
		}
		e, err := s.load(ctx, k)
		if err != nil {
			skipped = append(skipped, store.Skipped{Name: k, Reason: err.Error()})
			continue
		}
		entries = append(entries, e)
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i].Incident.CreatedAt, entries[j].Incident.CreatedAt
		if !a.Equal(b) {
			return a.After(b)
		}
		return entries[i].ID < entries[j].ID
	})
	return entries, skipped, nil
}

// records lists the keys of the incident records under prefix: exactly
// <cluster>/<yyyy>/<mm>/<dd>/<uuid>/incident.json.
func (s *Store) records(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	err := s.bucket.List(ctx, prefix, false, func(key string, _ bool) error {
		if isRecord(key) {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %s", s.base, Describe(err))
	}
	return keys, nil
}

func isRecord(key string) bool {
	parts := strings.Split(key, "/")
	return len(parts) == 6 && parts[5] == workspace.IncidentFile && workspace.ValidateID(parts[4]) == nil
}

func idOf(key string) string { return strings.Split(key, "/")[4] }

// load reads and checks one record.
func (s *Store) load(ctx context.Context, key string) (*store.Entry, error) {
	data, err := s.readObject(ctx, path.Dir(key), workspace.IncidentFile)
	if err != nil {
		var refused *safefile.Error
		if errors.As(err, &refused) {
			return nil, fmt.Errorf("%s %s", workspace.IncidentFile, refused.Reason())
		}
		return nil, errors.New(Describe(err))
	}
	var inc *incident.Incident
	if err := json.Unmarshal(data, &inc); err != nil || inc == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, fmt.Errorf("corrupt %s: %v", workspace.IncidentFile, err)
	}
	id := idOf(key)
	if inc.IncidentID != id {
		return nil, fmt.Errorf("%s belongs to incident %q, not to this prefix", workspace.IncidentFile, inc.IncidentID)
	}
	if inc.CreatedAt.IsZero() {
		return nil, fmt.Errorf("%s has no createdAt", workspace.IncidentFile)
	}
	e := &store.Entry{ID: id, Dir: s.base + "/" + path.Dir(key) + "/", Incident: inc}
	e.Interrupted = inc.MarkInterrupted()
	return e, nil
}

// Find returns the incident whose ID is ref or starts with it.
func (s *Store) Find(ctx context.Context, ref string) (*store.Entry, error) {
	ref, err := store.NormalizeRef(ref)
	if err != nil {
		return nil, err
	}
	keys, err := s.records(ctx, "")
	if err != nil {
		return nil, err
	}
	var matches []string
	for _, k := range keys {
		id := idOf(k)
		if id == ref {
			matches = []string{k}
			break
		}
		if strings.HasPrefix(id, ref) {
			matches = append(matches, k)
		}
	}
	switch len(matches) {
	case 0:
		return nil, &store.NotFoundError{Ref: ref, Root: s.base}
	case 1:
		e, err := s.load(ctx, matches[0])
		if err != nil {
			return nil, fmt.Errorf("incident %s is not readable: %w", idOf(matches[0]), err)
		}
		return e, nil
	}
	amb := &store.AmbiguousError{Ref: ref, Root: s.base}
	sort.Strings(matches)
	for _, k := range matches {
		line := idOf(k)
		if e, err := s.load(ctx, k); err == nil {
			line += "  " + e.Resource() + "  " + e.Incident.CreatedAt.UTC().Format(time.RFC3339)
		} else {
			line += "  (" + err.Error() + ")"
		}
		amb.Candidates = append(amb.Candidates, line)
	}
	return nil, amb
}

// ReadFile reads rel (a workspace layout path such as
// output/investigation.md) of an incident listed from this store. A file
// that is not there reads as fs.ErrNotExist, as on disk.
func (s *Store) ReadFile(ctx context.Context, e *store.Entry, rel string) ([]byte, error) {
	if err := workspace.ValidateID(e.ID); err != nil {
		return nil, err
	}
	prefix := strings.TrimPrefix(e.Dir, s.base+"/")
	rel = path.Clean(rel)
	if prefix == e.Dir || !isRecord(prefix+workspace.IncidentFile) || path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("%s is not a file of incident %s in %s", rel, e.ID, s.base)
	}
	if neverUploaded[rel] {
		return nil, fmt.Errorf("%s: %w", rel, errNotKept)
	}
	data, err := s.readObject(ctx, strings.TrimSuffix(prefix, "/"), rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", rel, errNotKept)
	case errors.Is(err, safefile.ErrRefused):
		return nil, err
	case err != nil:
		return nil, errors.New(Describe(err))
	}
	return data, nil
}

// readObject reads rel (a workspace layout path) of the incident whose
// objects are under dir, up to workspace.ReadLimit for it. A file:// store
// is read from disk as a workspace is (safefile: fileblob would follow a
// link an agent left in an uploaded directory, or open a pipe); another
// store's object larger than the limit is refused before it is read.
func (s *Store) readObject(ctx context.Context, dir, rel string) ([]byte, error) {
	if s.local != "" {
		return safefile.Dir{Base: s.local, Path: dir, Limit: workspace.ReadLimit}.ReadFile(ctx, rel)
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	key, limit := dir+"/"+rel, workspace.ReadLimit(rel)
	data, err := s.bucket.Read(ctx, key, limit)
	var big *tooLarge
	switch {
	case errors.As(err, &big):
		return nil, &safefile.Error{Path: s.base + "/" + key, Why: safefile.TooLarge, Size: big.size, Limit: limit}
	case err != nil:
		return nil, err
	case int64(len(data)) > limit: // the store did not say its size
		return nil, &safefile.Error{Path: s.base + "/" + key, Why: safefile.TooLarge, Limit: limit}
	}
	return data, nil
}

// errNotKept is a file absent from the store: fs.ErrNotExist, as on disk.
var errNotKept = fmt.Errorf("not in the store: %w", fs.ErrNotExist)

// Recent returns the incidents created at or after since, oldest first:
// what was already handled, for a process taking over the watch (leader
// election) or anyone asking what happened lately. It lists only the days
// since then, per cluster.
func (s *Store) Recent(ctx context.Context, since time.Time) ([]incident.Incident, error) {
	clusters, err := s.clusters(ctx)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	var out []incident.Incident
	for _, c := range clusters {
		// A day's prefix at a time; for a long span, the cluster's whole
		// prefix in one listing.
		prefixes := []string{c}
		if now.Sub(since) <= maxDaysListed*24*time.Hour {
			prefixes = nil
			for d := since.UTC().Truncate(24 * time.Hour); !d.After(now); d = d.Add(24 * time.Hour) {
				prefixes = append(prefixes, fmt.Sprintf("%s%04d/%02d/%02d/", c, d.Year(), int(d.Month()), d.Day()))
			}
		}
		for _, prefix := range prefixes {
			entries, _, err := s.list(ctx, prefix, func(string) bool { return true })
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if !e.Incident.CreatedAt.Before(since) {
					out = append(out, *e.Incident)
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// clusters lists the top-level prefixes: one per cluster.
func (s *Store) clusters(ctx context.Context) ([]string, error) {
	var out []string
	err := s.bucket.List(ctx, "", true, func(key string, dir bool) error {
		if dir && !strings.HasPrefix(key, ".") {
			out = append(out, key)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %s", s.base, Describe(err))
	}
	return out, nil
}
