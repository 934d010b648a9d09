package objectstore

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

// bucket is what the store needs of a container, bucket or directory. The
// file and Azure drivers implement it over os and the Azure SDK directly:
// gocloud.dev/blob's own core links gRPC, gax and the OpenTelemetry SDK
// into every build, some 8 MB of binary and 3 MiB of resident memory at
// each start of the plugin. The tag-built drivers (S3, GCS) go through
// gocloud.dev/blob (gocloudBucket).
type bucket interface {
	// Exists reports whether the container, bucket or directory is there
	// (and reachable with these credentials).
	Exists(ctx context.Context) (bool, error)
	// Create makes it. When it is there already (another replica made it
	// first) the error matches fs.ErrExist.
	Create(ctx context.Context) error
	// List calls fn with every key starting with prefix; with dirs, with
	// the keys directly under prefix and, once each, the "directories"
	// there (their key ending in "/", dir true).
	List(ctx context.Context, prefix string, dirs bool, fn func(key string, dir bool) error) error
	// Read returns the object at key, at most limit+1 bytes of it (all of
	// it for a negative limit); a missing one is an error matching
	// fs.ErrNotExist, and one whose size is known to exceed limit a
	// *tooLarge, before its body is read.
	Read(ctx context.Context, key string, limit int64) ([]byte, error)
	// Write stores data at key whole, replacing what was there.
	Write(ctx context.Context, key string, data []byte, contentType string) error
	Delete(ctx context.Context, key string) error
	Close() error
}

// tooLarge is an object bigger than the limit it was read with, refused
// from its size alone.
type tooLarge struct{ size int64 }

func (e *tooLarge) Error() string { return fmt.Sprintf("the object is %d bytes", e.size) }

// readLimited reads r to its end, or limit+1 bytes of it; size is the
// object's size when the store said it (-1 when not).
func readLimited(r io.Reader, size, limit int64) ([]byte, error) {
	if limit >= 0 && size > limit {
		return nil, &tooLarge{size: size}
	}
	if limit >= 0 {
		r = io.LimitReader(r, limit+1)
	}
	return io.ReadAll(r)
}

// notFound marks a driver's "no such object" error as fs.ErrNotExist while
// keeping the SDK's own error for Describe.
type notFound struct{ err error }

func (e notFound) Error() string        { return e.err.Error() }
func (e notFound) Unwrap() error        { return e.err }
func (e notFound) Is(target error) bool { return target == fs.ErrNotExist }

// alreadyThere marks a driver's "already exists" answer to Create.
type alreadyThere struct{ err error }

func (e alreadyThere) Error() string        { return e.err.Error() }
func (e alreadyThere) Unwrap() error        { return e.err }
func (e alreadyThere) Is(target error) bool { return target == fs.ErrExist }

// prefixed is a bucket seen through ?prefix=: every key is under it.
type prefixed struct {
	bucket
	prefix string
}

func (p prefixed) List(ctx context.Context, prefix string, dirs bool, fn func(string, bool) error) error {
	return p.bucket.List(ctx, p.prefix+prefix, dirs, func(key string, dir bool) error {
		return fn(strings.TrimPrefix(key, p.prefix), dir)
	})
}

func (p prefixed) Read(ctx context.Context, key string, limit int64) ([]byte, error) {
	return p.bucket.Read(ctx, p.prefix+key, limit)
}

func (p prefixed) Write(ctx context.Context, key string, data []byte, contentType string) error {
	return p.bucket.Write(ctx, p.prefix+key, data, contentType)
}

func (p prefixed) Delete(ctx context.Context, key string) error {
	return p.bucket.Delete(ctx, p.prefix+key)
}

// hexEscape writes the runes of s that escape says to as "__0x<hex>__",
// and any text that would read as such an escape, as gocloud.dev/blob's
// drivers name objects: a store written through gocloud reads the same
// through these drivers, and the other way round.
func hexEscape(s string, escape func(r []rune, i int) bool) string {
	r := []rune(s)
	var b strings.Builder
	changed := false
	for i, c := range r {
		if escape(r, i) || isEscape(r, i) {
			fmt.Fprintf(&b, "__%#x__", c)
			changed = true
			continue
		}
		b.WriteRune(c)
	}
	if !changed {
		return s
	}
	return b.String()
}

// hexUnescape undoes hexEscape.
func hexUnescape(s string) string {
	if !strings.Contains(s, "__0x") {
		return s
	}
	r := []rune(s)
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		if c, end, ok := unescapeAt(r, i); ok {
			b.WriteRune(c)
			i = end
			continue
		}
		b.WriteRune(r[i])
	}
	return b.String()
}

func isEscape(r []rune, i int) bool {
	_, _, ok := unescapeAt(r, i)
	return ok
}

// unescapeAt reads "__0x<hex>__" at r[i:]: the rune and the index of its
// last '_'.
func unescapeAt(r []rune, i int) (rune, int, bool) {
	if !strings.HasPrefix(string(r[i:min(i+4, len(r))]), "__0x") {
		return 0, 0, false
	}
	j := i + 4
	for j < len(r) && r[j] != '_' {
		j++
	}
	if j+1 >= len(r) || r[j+1] != '_' {
		return 0, 0, false
	}
	v, err := strconv.ParseInt(string(r[i+4:j]), 16, 32)
	if err != nil {
		return 0, 0, false
	}
	return rune(v), j + 1, true
}

// dotDotSlash reports whether r[i] is the '/' of "../".
func dotDotSlash(r []rune, i int) bool {
	return i > 1 && r[i] == '/' && r[i-1] == '.' && r[i-2] == '.'
}
