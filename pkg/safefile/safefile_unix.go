//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The walk opens Base, then each element below it relative to the last
// with O_NOFOLLOW, so what is checked is what is read: no element can be
// swapped for a link between a check and an open.

// walk opens the directory made of Base and elems, refusing a link or a
// non-directory among elems; it returns its descriptor.
func (d Dir) walk(elems []string) (int, error) {
	fd, err := unix.Open(d.Base, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: d.Base, Err: err}
	}
	walked := d.Base
	for _, e := range elems {
		walked = walked + string(os.PathSeparator) + e
		next, err := unix.Openat(fd, e, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			err = classify(fd, e, walked, err, true)
			unix.Close(fd)
			return -1, err
		}
		unix.Close(fd)
		fd = next
	}
	return fd, nil
}

// classify turns a failed open of name in dirfd into the reason: a link, a
// file where a directory was wanted, a special file, or the error itself.
func classify(dirfd int, name, p string, openErr error, wantDir bool) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "open", Path: p, Err: err}
	}
	m := mode(uint32(st.Mode))
	switch {
	case m&fs.ModeSymlink != 0:
		return &Error{Path: p, Why: Link}
	case wantDir && !m.IsDir():
		return &fs.PathError{Op: "open", Path: p, Err: unix.ENOTDIR}
	case !wantDir && !m.IsRegular():
		return &Error{Path: p, Why: NotRegular, What: what(m)}
	}
	return &fs.PathError{Op: "open", Path: p, Err: openErr}
}

func (d Dir) parent(name string) (dirfd int, last string, err error) {
	elems, err := d.elems(name)
	if err != nil {
		return -1, "", err
	}
	if len(elems) == 0 {
		return -1, "", &fs.PathError{Op: "open", Path: d.full(name), Err: fs.ErrInvalid}
	}
	fd, err := d.walk(elems[:len(elems)-1])
	return fd, elems[len(elems)-1], err
}

func (d Dir) open(name string) (*File, error) {
	p := d.full(name)
	dirfd, last, err := d.parent(name)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dirfd)
	limit := d.limit(name)
	// Looked at before it is opened, so that a pipe or a device is not
	// even opened in the common case; O_NONBLOCK covers one swapped in
	// since (a pipe then opens at once, and is refused below).
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, last, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	if err := check(p, statInfo(last, &st), uint64(st.Nlink), limit); err != nil {
		return nil, err
	}
	fd, err := unix.Openat(dirfd, last, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, classify(dirfd, last, p, err, false)
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	fi := statInfo(last, &st)
	if err := check(p, fi, uint64(st.Nlink), limit); err != nil {
		unix.Close(fd)
		return nil, err
	}
	// A regular file: reads never return EAGAIN, blocking mode is Go's
	// plain file path.
	_ = unix.SetNonblock(fd, false)
	return &File{f: os.NewFile(uintptr(fd), p), path: p, info: fi, limit: limit, left: limit}, nil
}

func (d Dir) stat(name string) (fs.FileInfo, error) {
	p := d.full(name)
	elems, err := d.elems(name)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		fd, err := d.walk(nil)
		if err != nil {
			return nil, err
		}
		defer unix.Close(fd)
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return nil, &fs.PathError{Op: "stat", Path: p, Err: err}
		}
		return statInfo(path.Base(d.Base), &st), nil
	}
	fd, err := d.walk(elems[:len(elems)-1])
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	last := elems[len(elems)-1]
	var st unix.Stat_t
	if err := unix.Fstatat(fd, last, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	fi := statInfo(last, &st)
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &Error{Path: p, Why: Link}
	}
	return fi, nil
}

func (d Dir) readDir(name string) ([]fs.DirEntry, error) {
	elems, err := d.elems(name)
	if err != nil {
		return nil, err
	}
	fd, err := d.walk(elems)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), d.full(name))
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: d.full(name), Err: err}
	}
	sort.Strings(names)
	out := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // gone since the listing
			}
			return nil, &fs.PathError{Op: "lstat", Path: d.full(path.Join(name, n)), Err: err}
		}
		out = append(out, fs.FileInfoToDirEntry(statInfo(n, &st)))
	}
	return out, nil
}

// statInfo is a Stat_t as an fs.FileInfo.
type statInfoT struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
	sys  unix.Stat_t
}

func statInfo(name string, st *unix.Stat_t) fs.FileInfo {
	return &statInfoT{name: strings.TrimSuffix(name, "/"), size: st.Size, mode: mode(uint32(st.Mode)),
		mod: time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)), sys: *st}
}

func (s *statInfoT) Name() string       { return s.name }
func (s *statInfoT) Size() int64        { return s.size }
func (s *statInfoT) Mode() fs.FileMode  { return s.mode }
func (s *statInfoT) ModTime() time.Time { return s.mod }
func (s *statInfoT) IsDir() bool        { return s.mode.IsDir() }
func (s *statInfoT) Sys() any           { return &s.sys }

// mode is the fs.FileMode of a stat mode, as os.Lstat computes it.
func mode(m uint32) fs.FileMode {
	fm := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		fm |= fs.ModeDevice
	case unix.S_IFCHR:
		fm |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		fm |= fs.ModeDir
	case unix.S_IFIFO:
		fm |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		fm |= fs.ModeSymlink
	case unix.S_IFSOCK:
		fm |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		fm |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		fm |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		fm |= fs.ModeSticky
	}
	return fm
}
