package metrics

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// WorkspaceBytes is the total size of the regular files under dir, for
// agent_runtime_workspace_size_bytes. Symbolic links are not followed, so
// what a link points to outside the workspace does not count; files that
// vanish during the walk are skipped.
func WorkspaceBytes(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir && errors.Is(err, fs.ErrNotExist) {
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
	if err != nil {
		return 0, fmt.Errorf("measure workspace %s: %w", dir, err)
	}
	return total, nil
}
