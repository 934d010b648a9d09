package objectstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-triage/kubectl-triage/pkg/incident"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// Backoff is how a failed write is retried: Attempts tries in all, waiting
// Initial, then twice as long each time up to Max, with jitter.
type Backoff struct {
	Attempts     int
	Initial, Max time.Duration
}

// DefaultBackoff rides out a storage hiccup of about a minute (on top of
// the SDKs' own quick retries) without holding a cluster's queue for long.
var DefaultBackoff = Backoff{Attempts: 5, Initial: 2 * time.Second, Max: 30 * time.Second}

// uploaded is what of a workspace goes to the store: the record, the
// prompt, the evidence and the agent's output. Not the rest of the
// workspace: .claude/ (the skill, the same in every workspace), tmp/ (the
// agent's scratch space and kubectl's cache) and whatever an unsandboxed
// agent's CLI left in its HOME, the workspace.
var uploaded = []string{workspace.IncidentFile, workspace.PromptFile, workspace.ContextDir, workspace.OutputDir}

// neverUploaded holds credentials while the agent runs: the gateway's
// address, CA and bearer token.
var neverUploaded = map[string]bool{workspace.AgentKubeconfig: true}

// Key is where an incident's workspace goes: <cluster>/<yyyy>/<mm>/<dd>/<id>/,
// the date being the incident's creation day in UTC.
func Key(inc *incident.Incident) string {
	c := inc.Cluster
	if c == "" {
		c = inc.Context
	}
	t := inc.CreatedAt.UTC()
	return fmt.Sprintf("%s/%04d/%02d/%02d/%s/", segment(c), t.Year(), int(t.Month()), t.Day(), inc.IncidentID)
}

// segment makes a cluster name one safe path segment: letters, digits,
// '.', '_' and '-'; anything else becomes '_'.
func segment(s string) string {
	if s == "" || s == "." || s == ".." {
		return "_"
	}
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// Publish copies a finished incident's workspace (inc.Workspace) to the
// store, incident.json last and recording where it went, and records the
// same in the local incident.json (atomically) and in inc. With keepLocal
// false the local workspace is removed once everything is uploaded. When
// the upload gives up, the local workspace stays, its incident.json says
// why, and what was uploaded of it is removed again.
func (s *Store) Publish(ctx context.Context, inc *incident.Incident, keepLocal bool) error {
	if err := workspace.ValidateID(inc.IncidentID); err != nil {
		return err
	}
	if !inc.Finished() {
		// Only an outcome is stored: a reader, or a new leader, takes what
		// is in the store for handled.
		return fmt.Errorf("incident %s is still %s: only finished incidents are stored", inc.IncidentID, inc.Status)
	}
	dir := inc.Workspace
	if dir == "" || filepath.Base(dir) != inc.IncidentID {
		return fmt.Errorf("incident %s: workspace %q is not its directory", inc.IncidentID, dir)
	}
	files, skipped, err := collect(dir)
	if err != nil {
		return fmt.Errorf("incident %s: read workspace: %w", inc.IncidentID, err)
	}
	for _, sk := range skipped {
		if s.Log != nil {
			s.Log.Warn("not stored", "incident_id", inc.IncidentID, "reason", sk)
		}
	}
	key := Key(inc)
	ref := &incident.StorageRef{URL: s.base, Path: key}
	up := func() error {
		var done []string
		for _, f := range files {
			if err := s.put(ctx, key+f.rel, f.data); err != nil {
				s.remove(ctx, done)
				return fmt.Errorf("upload %s: %w", f.rel, err)
			}
			done = append(done, key+f.rel)
		}
		now := s.now().UTC()
		ref.UploadedAt = &now
		rec := *inc
		rec.Storage = ref
		data, err := json.MarshalIndent(&rec, "", "  ")
		if err != nil {
			return err
		}
		// Last: its presence is what makes the incident visible.
		if err := s.put(ctx, key+workspace.IncidentFile, data); err != nil {
			ref.UploadedAt = nil
			s.remove(ctx, done)
			return fmt.Errorf("upload %s: %w", workspace.IncidentFile, err)
		}
		return nil
	}
	upErr := up()
	if upErr != nil {
		ref.Error = upErr.Error()
	}
	inc.Storage = ref
	if upErr == nil && !keepLocal {
		if err := removeWorkspace(dir); err != nil {
			return fmt.Errorf("incident %s is in %s%s but its local workspace could not be removed: %w", inc.IncidentID, s.base+"/", key, err)
		}
		// The summary line, the log and Slack then point at the store,
		// not at a directory that is gone.
		inc.Workspace = ""
		return nil
	}
	if err := incident.Save(filepath.Join(dir, workspace.IncidentFile), inc); err != nil && upErr == nil {
		return fmt.Errorf("incident %s is in %s/%s but its local record could not be updated: %w", inc.IncidentID, s.base, key, err)
	}
	if upErr != nil {
		return fmt.Errorf("incident %s not stored in %s (kept in %s): %w", inc.IncidentID, s.base, dir, upErr)
	}
	return nil
}

// put writes one blob, retrying with backoff.
func (s *Store) put(ctx context.Context, key string, data []byte) error {
	b := s.Retry
	if b.Attempts < 1 {
		b.Attempts = 1
	}
	wait := b.Initial
	var err error
	for attempt := 1; ; attempt++ {
		if err = s.write(ctx, key, data); err == nil {
			return nil
		}
		if attempt >= b.Attempts || ctx.Err() != nil {
			return errors.New(Describe(err))
		}
		d := wait
		if d > 0 {
			d = d/2 + rand.N(d/2+1) // jitter: replicas that failed together retry apart
		}
		if s.Log != nil {
			s.Log.Warn("store write failed; retrying", "store", s.base, "key", key, "attempt", attempt, "retry_in", d.Round(time.Millisecond).String(), "error", Describe(err))
		}
		select {
		case <-ctx.Done():
			return errors.New(Describe(err))
		case <-time.After(d):
		}
		wait = min(wait*2, b.Max)
	}
}

// write stores one blob whole, with a content type for whoever browses
// the bucket.
func (s *Store) write(ctx context.Context, key string, data []byte) error {
	return s.bucket.Write(ctx, key, data, contentType(key))
}

func contentType(key string) string {
	switch path.Ext(key) {
	case ".json":
		return "application/json"
	case ".jsonl":
		return "application/x-ndjson"
	case ".md":
		return "text/markdown; charset=utf-8"
	case ".txt", ".log":
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}

// remove deletes what an abandoned upload wrote, best effort: without
// incident.json it is never listed anyway.
func (s *Store) remove(ctx context.Context, keys []string) {
	for _, k := range keys {
		_ = s.bucket.Delete(context.WithoutCancel(ctx), k)
	}
}

type file struct {
	rel  string // slash-separated, relative to the workspace
	data []byte
}

// collect reads what is uploaded of a workspace as every reader reads one
// (workspace.Files: no link followed, regular files only, each up to its
// limit); a file refused is left out and said so in skipped, one line
// each. The gateway's bearer token is masked wherever it appears (an agent
// may have printed its kubeconfig into its log); it is dead once the run
// ends, but a credential never leaves the machine.
func collect(dir string) (files []file, skipped []string, err error) {
	ctx := context.Background()
	ws := workspace.Files(dir)
	secrets := gatewaySecrets(ctx, ws)
	var walk func(name string) error
	walk = func(name string) error {
		fi, err := ws.Stat(ctx, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case errors.Is(err, safefile.ErrRefused):
			skipped = append(skipped, err.Error())
			return nil
		case err != nil:
			return err
		case fi.IsDir():
			entries, err := ws.ReadDir(ctx, name)
			if err != nil {
				return err
			}
			for _, e := range entries {
				if err := walk(path.Join(name, e.Name())); err != nil {
					return err
				}
			}
			return nil
		case neverUploaded[name] || name == workspace.IncidentFile:
			return nil // incident.json is written last, by Publish
		}
		data, err := ws.ReadFile(ctx, name)
		if errors.Is(err, safefile.ErrRefused) {
			skipped = append(skipped, err.Error())
			return nil
		}
		if err != nil {
			return err
		}
		for _, sec := range secrets {
			data = bytes.ReplaceAll(data, []byte(sec), []byte("[REDACTED:gateway-token]"))
		}
		// The evidence and the report were redacted as they were
		// written; the agent's log and artifacts are its own output,
		// quoting what it read. Text leaves the machine redacted
		// (idempotent on what already was), the report through the
		// pass every report crosses.
		switch {
		case name == workspace.ReportFile:
			data = []byte(redact.Clean(string(data)))
		case name == workspace.ReportJSONFile:
			data = redact.CleanJSON(data)
		case utf8.Valid(data):
			text, _ := redact.Text(string(data))
			data = []byte(text)
		}
		files = append(files, file{rel: name, data: data})
		return nil
	}
	for _, top := range uploaded {
		if err := walk(top); err != nil {
			return nil, nil, err
		}
	}
	return files, skipped, nil
}

// gatewaySecrets are the bearer tokens in the workspace's kubeconfig.
func gatewaySecrets(ctx context.Context, ws safefile.Dir) []string {
	data, err := ws.ReadFile(ctx, workspace.AgentKubeconfig)
	if err != nil {
		return nil
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range cfg.AuthInfos {
		if t := strings.TrimSpace(a.Token); len(t) >= 8 {
			out = append(out, t)
		}
	}
	return out
}

// removeWorkspace takes the workspace out of the root's listing at once
// (a hidden name, as gc does) and then deletes it.
func removeWorkspace(dir string) error {
	hidden := filepath.Join(filepath.Dir(dir), ".removing-"+filepath.Base(dir))
	if err := os.Rename(dir, hidden); err != nil {
		return err
	}
	return os.RemoveAll(hidden)
}
