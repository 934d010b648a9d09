// Package atomicfile replaces files so that a reader, or a crash, sees the old
// content or the new one, never a torn write.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data: a temp file in the same directory, fsync,
// rename, then a best-effort fsync of the directory to persist the rename.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // not every filesystem can sync a directory; the rename stands either way
		d.Close()
	}
	return nil
}
