// Package safefile is how kubectl-triage reads a directory someone else may
// have filled: an incident workspace an agent wrote into, one a colleague
// shared, a store's directory. A link is never followed (no element of the
// path may be a symbolic link, and a file with more than one hard link is
// refused too), only regular files are read (a named pipe or a device is
// opened without blocking, to find out, and never read), every file is
// read up to a size limit, and no read outlives its deadline. A file that
// fails is refused with one line naming it and why; nothing is changed.
package safefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// DefaultLimit is what is read of a file its Dir gives no limit for.
const DefaultLimit = 16 << 20

// DefaultTimeout bounds a read whose context has no deadline.
const DefaultTimeout = 30 * time.Second

// Dir is a directory to read from.
type Dir struct {
	// Base is the directory as the user named it (a flag, the workspace
	// root): links on the way to it are the user's choice and followed.
	Base string
	// Path leads from Base to the directory read, slash-separated ("" for
	// Base itself). Like every name read, no element of it may be a link.
	Path string
	// Limit is the most bytes read of a file, by its name relative to
	// Path; nil, or 0 for a name, means DefaultLimit.
	Limit func(name string) int64
}

// Sub is the directory name below d, with the same limits for the names
// below it (Limit still sees them relative to d).
func (d Dir) Sub(name string) Dir {
	limit := d.Limit
	d.Path = path.Join(d.Path, name)
	d.Limit = func(n string) int64 {
		if limit == nil {
			return 0
		}
		return limit(path.Join(name, n))
	}
	return d
}

// Where is the directory's path on disk.
func (d Dir) Where() string { return d.full("") }

func (d Dir) full(name string) string {
	return filepath.Join(d.Base, filepath.FromSlash(d.Path), filepath.FromSlash(name))
}

func (d Dir) limit(name string) int64 {
	if d.Limit != nil {
		if n := d.Limit(name); n > 0 {
			return n
		}
	}
	return DefaultLimit
}

// elems splits Path and name into the elements walked below Base.
func (d Dir) elems(name string) ([]string, error) {
	var out []string
	for _, p := range []string{d.Path, name} {
		if p == "" || p == "." {
			continue
		}
		if !fs.ValidPath(p) {
			return nil, &fs.PathError{Op: "open", Path: d.full(name), Err: fs.ErrInvalid}
		}
		out = append(out, strings.Split(p, "/")...)
	}
	return out, nil
}

// ReadFile reads name whole.
func (d Dir) ReadFile(ctx context.Context, name string) ([]byte, error) {
	var data []byte
	err := d.Read(ctx, name, func(f *File) error {
		var err error
		data, err = io.ReadAll(f)
		return err
	})
	if err != nil {
		return nil, err // data may still be being read: not touched
	}
	return data, nil
}

// Read opens name, checks it and hands it to use, which must be done with
// it by the deadline (the context's, else DefaultTimeout): the caller
// then gets a timeout, and the file is closed once use returns. After a
// timeout use may still be running: the caller must not look at what it
// writes.
func (d Dir) Read(ctx context.Context, name string, use func(f *File) error) error {
	return within(ctx, d.full(name), func() error {
		f, err := d.open(name)
		if err != nil {
			return err
		}
		defer f.f.Close()
		return use(f)
	})
}

// Stat describes name without following it: a link anywhere on its way,
// name itself included, is refused.
func (d Dir) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := within(ctx, d.full(name), func() error {
		var err error
		fi, err = d.stat(name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return fi, nil
}

// ReadDir lists the directory name, sorted by name. The entries describe
// themselves (a link is listed as a link); reading one goes through the
// same checks as any other name.
func (d Dir) ReadDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	var entries []fs.DirEntry
	err := within(ctx, d.full(name), func() error {
		var err error
		entries, err = d.readDir(name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// File is a checked regular file, open for reading: Read stops at its
// limit with an error rather than at a file that grew past it.
type File struct {
	f     *os.File
	path  string
	info  fs.FileInfo
	limit int64
	left  int64 // bytes Read may still return before the limit
}

// Stat is the file's description as it was opened.
func (f *File) Stat() fs.FileInfo { return f.info }

// Read reads at most up to the limit; reading beyond it is an error.
func (f *File) Read(p []byte) (int, error) {
	if f.left <= 0 {
		// One byte past the limit tells a file that grew from one that
		// ends exactly there.
		var one [1]byte
		if n, _ := f.f.Read(one[:]); n > 0 {
			return 0, &Error{Path: f.path, Why: TooLarge, Limit: f.limit}
		}
		return 0, io.EOF
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.f.Read(p)
	f.left -= int64(n)
	return n, err
}

// Seek moves where the next Read starts (io.SeekStart only), for a reader
// that pages through a file.
func (f *File) Seek(offset int64, whence int) (int64, error) {
	if whence != io.SeekStart || offset < 0 {
		return 0, fmt.Errorf("seek %s: only to a position from the start", f.path)
	}
	n, err := f.f.Seek(offset, io.SeekStart)
	f.left = max(f.limit-n, 0)
	return n, err
}

// Why says why a file was refused.
type Why int

const (
	// Link: the file, or a directory on its way, is a symbolic link.
	Link Why = iota + 1
	// NotRegular: a named pipe, socket, device or directory.
	NotRegular
	// HardLinked: a regular file with more than one name, one of which
	// may lie anywhere on the same filesystem.
	HardLinked
	// TooLarge: bigger than the limit for its name.
	TooLarge
	// TimedOut: not read by the deadline.
	TimedOut
)

// ErrRefused is what every refusal is (errors.Is).
var ErrRefused = errors.New("file refused")

// Error is a refused file: one line, the file's path and why.
type Error struct {
	Path string
	Why  Why
	// What the file is (NotRegular): "named pipe", "socket", …
	What string
	// Size (0 when not known) and Limit (TooLarge); Links (HardLinked);
	// After (TimedOut).
	Size, Limit int64
	Links       uint64
	After       time.Duration
}

func (e *Error) Error() string { return e.Path + " " + e.Reason() }

// Reason is the message without the path: "is a symbolic link (not
// followed)", for a caller that names the file its own way.
func (e *Error) Reason() string {
	switch e.Why {
	case Link:
		return "is a symbolic link (not followed)"
	case NotRegular:
		return "is not a regular file (it is a " + e.What + "); not read"
	case HardLinked:
		return fmt.Sprintf("has %d hard links (one may lie outside); not read", e.Links)
	case TooLarge:
		if e.Size <= e.Limit { // it grew while read, or a stream: its size is not known
			return fmt.Sprintf("exceeds %s; not read", Size(e.Limit))
		}
		return fmt.Sprintf("exceeds %s (it is %s); not read", Size(e.Limit), Size(e.Size))
	case TimedOut:
		return fmt.Sprintf("could not be read within %s", e.After)
	}
	return "was refused"
}

// Is makes every refusal ErrRefused, and a timeout also
// context.DeadlineExceeded.
func (e *Error) Is(target error) bool {
	return target == ErrRefused || (e.Why == TimedOut && target == context.DeadlineExceeded)
}

// Size writes a byte count as a limit reads best: whole MiB or KiB when it
// is one, else with a decimal.
func Size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// what names a non-regular file's type.
func what(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file"
}

// check refuses what is not a regular file of at most limit bytes with a
// single name.
func check(p string, fi fs.FileInfo, links uint64, limit int64) error {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return &Error{Path: p, Why: Link}
	case !m.IsRegular():
		return &Error{Path: p, Why: NotRegular, What: what(m)}
	case links > 1:
		return &Error{Path: p, Why: HardLinked, Links: links}
	case fi.Size() > limit:
		return &Error{Path: p, Why: TooLarge, Size: fi.Size(), Limit: limit}
	}
	return nil
}

// within runs fn and waits for it until ctx's deadline (DefaultTimeout
// when it has none). A read the kernel never returns from (a hung network
// filesystem) then holds fn's goroutine, not the caller.
func within(ctx context.Context, p string, fn func() error) error {
	timeout := DefaultTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl)
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		return timedOut(ctx, p, timeout)
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return timedOut(ctx, p, timeout)
	}
}

func timedOut(ctx context.Context, p string, after time.Duration) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("read %s: %w", p, ctx.Err())
	}
	return &Error{Path: p, Why: TimedOut, After: after.Round(time.Millisecond)}
}
