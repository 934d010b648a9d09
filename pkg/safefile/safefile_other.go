//go:build !unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Without openat, each element is looked at with Lstat before the next,
// and the file opened is checked to be the one looked at (os.SameFile):
// a link swapped in between is caught at the file, not on its way.

func (d Dir) walk(elems []string) (string, error) {
	p := d.Base
	for _, e := range elems {
		p = filepath.Join(p, e)
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		switch {
		case fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
			return "", &Error{Path: p, Why: Link}
		case !fi.IsDir():
			return "", &fs.PathError{Op: "open", Path: p, Err: errors.New("not a directory")}
		}
	}
	return p, nil
}

func (d Dir) open(name string) (*File, error) {
	elems, err := d.elems(name)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, &fs.PathError{Op: "open", Path: d.full(name), Err: fs.ErrInvalid}
	}
	dir, err := d.walk(elems[:len(elems)-1])
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, elems[len(elems)-1])
	limit := d.limit(name)
	before, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if before.Mode()&fs.ModeIrregular != 0 {
		return nil, &Error{Path: p, Why: Link}
	}
	if err := check(p, before, 1, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !os.SameFile(before, fi) {
		err = &Error{Path: p, Why: Link}
	}
	if err == nil {
		err = check(p, fi, 1, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, path: p, info: fi, limit: limit, left: limit}, nil
}

func (d Dir) stat(name string) (fs.FileInfo, error) {
	elems, err := d.elems(name)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return os.Stat(d.Base)
	}
	dir, err := d.walk(elems[:len(elems)-1])
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, elems[len(elems)-1])
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return nil, &Error{Path: p, Why: Link}
	}
	return fi, nil
}

func (d Dir) readDir(name string) ([]fs.DirEntry, error) {
	elems, err := d.elems(name)
	if err != nil {
		return nil, err
	}
	dir, err := d.walk(elems)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}
