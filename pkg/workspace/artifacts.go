package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

// maxArtifactBytes bounds what is hashed per file.
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
		// A hard link or a parent that changed under us could still lead
		// out: resolve and check before opening.
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !Within(w.Dir, real) {
			cat.Rejected = append(cat.Rejected, Rejected{rel, "resolves outside the workspace"})
			return nil
		}
		sum, err := hashFile(real)
		if err != nil {
			cat.Rejected = append(cat.Rejected, Rejected{rel, err.Error()})
			return nil
		}
		cat.Artifacts = append(cat.Artifacts, Artifact{Path: rel, Size: fi.Size(), SHA256: sum})
		return nil
	})
	return cat, err
}

func hashFile(p string) (string, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|nofollow, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxArtifactBytes)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
