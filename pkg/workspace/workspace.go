// Package workspace is an incident's directory (DESIGN.md §3): created
// atomically with owner-only permissions, every path confined under it.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kubectl-triage/kubectl-triage/pkg/owner"
)

// BuiltinFindingsFile holds the builtin investigator's findings an external
// agent is asked to confirm, refute or extend (DESIGN.md §6).
const BuiltinFindingsFile = "context/builtin-findings.json"

// Layout of a workspace, relative to its directory.
const (
	IncidentFile     = "incident.json"
	PromptFile       = "PROMPT.md"
	ContextDir       = "context"
	ResourcesDir     = "context/resources"
	EventFile        = "context/event.json"
	ClusterInfoFile  = "context/cluster-info.json"
	EventsFile       = "context/events.json"
	LogsFile         = "context/logs.txt"
	InstructionsFile = "context/system-instructions.txt"
	AgentKubeconfig  = "context/kubeconfig"
	OutputDir        = "output"
	AgentLogFile     = "output/agent.log"
	AuditFile        = "output/audit.jsonl"
	ReportFile       = "output/investigation.md"
	ReportJSONFile   = "output/investigation.json"
	ArtifactsDir     = "output/artifacts"
	ArtifactsCatalog = "output/artifacts.json"
	SkillsDir        = ".claude/skills"
	EnvWorkspaceRoot = "WORKSPACE_ROOT"
	appDir           = "kubectl-triage"
	incidentsDir     = "incidents"
	tempPrefix       = ".creating-"
)

var skeleton = []string{ContextDir, ResourcesDir, OutputDir, ArtifactsDir, SkillsDir}

// ErrInvalidID is returned for an incident ID that is not a UUID.
var ErrInvalidID = errors.New("invalid incident ID")

// ErrOutside is returned for a path that would leave the workspace.
var ErrOutside = errors.New("path escapes the workspace")

// Workspace is one incident's directory.
type Workspace struct {
	ID  string // incident UUID
	Dir string // absolute path
}

// DefaultRoot is where workspaces live when neither --workspace-root nor
// WORKSPACE_ROOT says otherwise: $XDG_STATE_HOME/kubectl-triage/incidents,
// falling back to ~/.local/state/kubectl-triage/incidents.
func DefaultRoot() (string, error) {
	if v := os.Getenv("XDG_STATE_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, appDir, incidentsDir), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the workspace root: no home directory (%w); set --workspace-root or %s", err, EnvWorkspaceRoot)
	}
	return filepath.Join(home, ".local", "state", appDir, incidentsDir), nil
}

// ValidateID accepts only canonical UUIDs, so an ID can never smuggle a path.
func ValidateID(id string) error {
	u, err := uuid.Parse(id)
	if err != nil || u.String() != id {
		return fmt.Errorf("%w %q: want a UUID such as %s", ErrInvalidID, id, "0f8fad5b-d9cb-469f-a165-70867728950e")
	}
	return nil
}

// ValidateRoot refuses a workspace root that is only blanks: WORKSPACE_ROOT=" "
// would otherwise create a directory named " " in the current one.
func ValidateRoot(root string) error {
	if root != "" && strings.TrimSpace(root) == "" {
		return fmt.Errorf("workspace root %q is blank: set --workspace-root or %s to a directory, or unset it for the default", root, EnvWorkspaceRoot)
	}
	return nil
}

// Create makes the workspace for id under root. The directory is built under
// a temporary name, filled by populate (which may write incident.json and
// anything else that must exist from the start), and renamed into place, so
// either a complete workspace exists or nothing does.
func Create(root, id string, populate func(tmp *Workspace, finalDir string) error) (*Workspace, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	if err := ValidateRoot(root); err != nil {
		return nil, err
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("create workspace root %s: %w", root, err)
	}
	// The temporary name says who is creating it, so that gc can remove it
	// at once if that process dies before the rename (see Abandoned).
	tmp, err := os.MkdirTemp(root, tempPrefix+id+"-"+owner.Self().Token()+"-")
	if err != nil {
		return nil, fmt.Errorf("create workspace in %s: %w", root, err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	// MkdirTemp already makes 0700; chmod guards against an odd umask-less FS.
	if err := os.Chmod(tmp, 0o700); err != nil {
		return nil, err
	}
	for _, d := range skeleton {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o700); err != nil {
			return nil, fmt.Errorf("create workspace: %w", err)
		}
	}
	final := filepath.Join(root, id)
	if _, err := os.Lstat(final); err == nil {
		return nil, fmt.Errorf("create workspace %s: already exists", final)
	}
	if populate != nil {
		// populate writes into tmp but records (e.g. in incident.json) where
		// the workspace will be once renamed.
		if err := populate(&Workspace{ID: id, Dir: tmp}, final); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		return nil, fmt.Errorf("create workspace %s: %w", final, err)
	}
	ok = true
	return &Workspace{ID: id, Dir: final}, nil
}

// abandonedGrace is how long a workspace being created whose creator cannot
// be identified (a name from an older version) is left alone: creation
// takes well under a second.
const abandonedGrace = time.Hour

// Abandoned reports whether name, an entry of a workspace root, is a
// workspace left half-created by a process that is gone: at once when the
// name identifies its creator, after an hour otherwise.
func Abandoned(name string, modTime, now time.Time) bool {
	rest, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		return false
	}
	if len(rest) > 37 && rest[36] == '-' {
		if tok, _, ok := strings.Cut(rest[37:], "-"); ok {
			if p, ok := owner.ParseToken(tok); ok {
				return p.Gone()
			}
		}
	}
	return now.Sub(modTime) > abandonedGrace
}

// Path joins rel onto the workspace and refuses anything that would leave it.
func (w *Workspace) Path(rel ...string) (string, error) {
	joined := filepath.Join(append([]string{w.Dir}, rel...)...)
	if !Within(w.Dir, joined) {
		return "", fmt.Errorf("%w: %s", ErrOutside, filepath.Join(rel...))
	}
	return joined, nil
}

// MustPath is Path for the package's own layout constants, which cannot escape.
func (w *Workspace) MustPath(rel string) string {
	p, err := w.Path(rel)
	if err != nil {
		panic(err)
	}
	return p
}

// Within reports whether path is dir or lies below it, lexically.
func Within(dir, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// DiskUsage is the total size of the regular files under name in fsys.
// Symbolic links are not followed, so what a link points to outside does
// not count; entries that vanish during the walk are skipped, name itself
// must exist.
func DiskUsage(fsys fs.FS, name string) (int64, error) {
	var total int64
	err := fs.WalkDir(fsys, name, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != name && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		total += info.Size()
		return nil
	})
	return total, err
}
