package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
)

// Artifact is a file an agent left in output/artifacts.
type Artifact struct {
	Path   string `json:"path"` // relative to the workspace
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Rejected is an entry of output/artifacts that was not collected.
type Rejected struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ArtifactCatalog is output/artifacts.json.
type ArtifactCatalog struct {
	Artifacts []Artifact `json:"artifacts"`
	Rejected  []Rejected `json:"rejected,omitempty"`
}

// maxArtifactBytes bounds an artifact: a larger one is rejected.
const maxArtifactBytes = 64 << 20

// CollectArtifacts catalogues the regular files under output/artifacts.
// Symlinks, devices, sockets and anything that resolves outside the
// workspace are rejected (listed, never followed or opened).
func (w *Workspace) CollectArtifacts() (*ArtifactCatalog, error) {
	root := w.MustPath(ArtifactsDir)
	cat := &ArtifactCatalog{Artifacts: []Artifact{}}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(w.Dir, p)
		if err != nil {
			cat.Rejected = append(cat.Rejected, Rejected{rel, err.Error()})
			return nil
		}
		if p == root {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			cat.Rejected = append(cat.Rejected, Rejected{rel, err.Error()})
			return nil
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			cat.Rejected = append(cat.Rejected, Rejected{rel, "symlink (not followed)"})
			return nil
		case fi.IsDir():
			return nil
		case !fi.Mode().IsRegular():
			cat.Rejected = append(cat.Rejected, Rejected{rel, "not a regular file"})
			return nil
		}
		// Opened as every reader opens a workspace file: a link swapped in
		// since, a hard link, a pipe or one too large is rejected too.
		sum, err := w.hash(filepath.ToSlash(rel))
		if err != nil {
			var refused *safefile.Error
			if errors.As(err, &refused) {
				cat.Rejected = append(cat.Rejected, Rejected{rel, refused.Reason()})
			} else {
				cat.Rejected = append(cat.Rejected, Rejected{rel, err.Error()})
			}
			return nil
		}
		cat.Artifacts = append(cat.Artifacts, Artifact{Path: rel, Size: fi.Size(), SHA256: sum})
		return nil
	})
	return cat, err
}

func (w *Workspace) hash(rel string) (string, error) {
	h := sha256.New()
	err := w.Files().Read(context.Background(), rel, func(f *safefile.File) error {
		_, err := io.Copy(h, f)
		return err
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
