package safefile

import (
	"bytes"
	"context"
	"io"
	"io/fs"
)

// FS is the directory name below d as an fs.FS, for code that reads
// through one (bundle.Load): Open, ReadFile, ReadDir and Stat all go
// through d's checks and limits, under ctx's deadline; Open reads a file
// whole.
func (d Dir) FS(ctx context.Context, name string) fs.FS { return dirFS{ctx: ctx, d: d.Sub(name)} }

type dirFS struct {
	ctx context.Context
	d   Dir
}

var (
	_ fs.ReadFileFS = dirFS{}
	_ fs.ReadDirFS  = dirFS{}
	_ fs.StatFS     = dirFS{}
)

func (f dirFS) valid(op, name string) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

func (f dirFS) Open(name string) (fs.File, error) {
	if err := f.valid("open", name); err != nil {
		return nil, err
	}
	fi, err := f.d.Stat(f.ctx, name)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		entries, err := f.d.ReadDir(f.ctx, name)
		if err != nil {
			return nil, err
		}
		return &dirFile{info: fi, entries: entries}, nil
	}
	data, err := f.d.ReadFile(f.ctx, name)
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(data), info: fi}, nil
}

func (f dirFS) ReadFile(name string) ([]byte, error) {
	if err := f.valid("open", name); err != nil {
		return nil, err
	}
	return f.d.ReadFile(f.ctx, name)
}

func (f dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := f.valid("readdir", name); err != nil {
		return nil, err
	}
	return f.d.ReadDir(f.ctx, name)
}

func (f dirFS) Stat(name string) (fs.FileInfo, error) {
	if err := f.valid("stat", name); err != nil {
		return nil, err
	}
	return f.d.Stat(f.ctx, name)
}

// memFile is a file read whole.
type memFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *memFile) Close() error               { return nil }

// dirFile is a directory listed whole.
type dirFile struct {
	info    fs.FileInfo
	entries []fs.DirEntry
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.Name(), Err: fs.ErrInvalid}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}
