// Package atomicfile replaces files so that a reader, or a crash, sees the old
// content or the new one, never a torn write.
package atomicfile

import (
	"os"
	"path/filepath"
	"sync"
)

// Write replaces path with data: a temp file in the same directory, fsync,
// rename, then a best-effort fsync of the directory to persist the rename.
func Write(path string, data []byte, perm os.FileMode) error {
	if err := replace(path, data, perm); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// Replace is Write without the directory's fsync: the new content is on
// disk before it replaces the old, so a crash still leaves one or the
// other, but the rename itself may be lost to a crash of the machine. It
// is for a record a later Write of the same file supersedes (a run's
// intermediate states), where each directory fsync only delayed the run.
func Replace(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm)
}

// File is one file of WriteFiles.
type File struct {
	Path string
	Data []byte
	Perm os.FileMode
}

// WriteFiles writes each file as Write does, all at once, so their fsyncs
// share the filesystem's journal commits, and syncs each directory once
// after its renames. It returns the first error; the files written stand.
func WriteFiles(files []File) error {
	var wg sync.WaitGroup
	errs := make([]error, len(files))
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = replace(f.Path, f.Data, f.Perm)
		}()
	}
	wg.Wait()
	dirs := map[string]bool{}
	for i, f := range files {
		if errs[i] == nil {
			dirs[filepath.Dir(f.Path)] = true
		}
	}
	for d := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			syncDir(d)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// replace writes data to a temp file beside path, fsyncs it and renames it
// over path.
func replace(path string, data []byte, perm os.FileMode) (err error) {
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
	return os.Rename(tmp, path)
}

// syncDir persists the renames in dir, best effort: not every filesystem
// can sync a directory; the renames stand either way.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
