package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// InstallSkills copies every skill under root in fsys (skills/<name>/…) into
// the workspace's .claude/skills/<name>/, so each incident has its own copy
// that later skill updates cannot change. Scripts (*.sh) stay executable.
func (w *Workspace) InstallSkills(fsys fs.FS, root string) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
		if rel == "" {
			return nil
		}
		dst, err := w.Path(SkillsDir, filepath.FromSlash(rel))
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(dst, 0o700)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("install skill file %s: %w", p, err)
		}
		mode := os.FileMode(0o600)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o700
		}
		return os.WriteFile(dst, data, mode)
	})
}
