package objectstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
)

func init() {
	register("file", driver{kind: "directory", open: openFile})
}

// fileBucket is a directory, laid out as gocloud.dev's fileblob lays it
// out (keys are paths, escaped the same way), so a store written by either
// reads with the other.
type fileBucket struct {
	dir     string
	dirMode fs.FileMode
}

// tmpPrefix names a file being written; List never shows one.
const tmpPrefix = ".kubectl-triage-tmp-"

// attrsExt is fileblob's metadata sidecar, written when a store URL asked
// for metadata; never an object.
const attrsExt = ".attrs"

func openFile(_ context.Context, u *url.URL, create bool) (bucket, error) {
	q := u.Query()
	// fileblob's parameters: metadata (sidecars are neither written nor
	// read), create_dir (implied by create) and no_tmp_dir (the temporary
	// file is always beside its target) change nothing here.
	if err := onlyParams(q, "metadata", "create_dir", "dir_file_mode", "no_tmp_dir"); err != nil {
		return nil, err
	}
	b := &fileBucket{dir: filepath.Clean(filepath.FromSlash(u.Path)), dirMode: 0o777}
	if m := q.Get("dir_file_mode"); m != "" {
		v, err := strconv.ParseUint(m, 8, 32)
		if err != nil {
			return nil, fmt.Errorf("dir_file_mode %q is not an octal file mode", m)
		}
		b.dirMode = fs.FileMode(v)
	}
	if create {
		if err := os.MkdirAll(b.dir, b.dirMode); err != nil {
			return nil, err
		}
	}
	fi, err := os.Stat(b.dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", b.dir)
	}
	return b, nil
}

func (b *fileBucket) Exists(context.Context) (bool, error) {
	fi, err := os.Stat(b.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil && fi.IsDir(), err
}

// Create is content with a directory another replica made in between:
// MkdirAll is.
func (b *fileBucket) Create(context.Context) error { return os.MkdirAll(b.dir, b.dirMode) }

func escapeFileKey(key string) string {
	return hexEscape(key, func(r []rune, i int) bool {
		c := r[i]
		return c < 32 || dotDotSlash(r, i) ||
			c == '/' && (i > 0 && r[i-1] == '/' || i == len(r)-1) ||
			os.PathSeparator != '/' && c == os.PathSeparator
	})
}

// path is key's file, never outside the directory.
func (b *fileBucket) path(key string) (string, error) {
	p := filepath.Join(b.dir, filepath.FromSlash(escapeFileKey(key)))
	if p == b.dir || !strings.HasPrefix(p, b.dir+string(os.PathSeparator)) || strings.HasSuffix(p, attrsExt) {
		return "", fmt.Errorf("key %q is not a file of %s", key, b.dir)
	}
	return p, nil
}

func (b *fileBucket) List(ctx context.Context, prefix string, dirs bool, fn func(string, bool) error) error {
	// Only the directory holding the prefix's last complete segment can
	// hold keys that start with it.
	root := b.dir
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		p, err := b.path(prefix[:i] + "/x")
		if err != nil {
			return err
		}
		root = filepath.Dir(p)
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(b.dir, p)
		key := hexUnescape(filepath.ToSlash(rel))
		name := d.Name()
		if d.IsDir() {
			key += "/"
			if !strings.HasPrefix(key, prefix) && !strings.HasPrefix(prefix, key) {
				return filepath.SkipDir
			}
			if dirs && strings.HasPrefix(key, prefix) {
				if err := fn(key, true); err != nil {
					return err
				}
				return filepath.SkipDir
			}
			return nil
		}
		// A link or a pipe is listed like a file: whoever reads it is
		// refused with the reason, rather than its record vanishing.
		if strings.HasPrefix(name, tmpPrefix) || strings.HasSuffix(name, attrsExt) || !strings.HasPrefix(key, prefix) {
			return nil
		}
		return fn(key, false)
	})
}

// Read reads the file as a workspace is read (safefile): an uploaded
// directory holds what an agent left there, so a link is not followed and
// a pipe is not opened, whatever the key.
func (b *fileBucket) Read(ctx context.Context, key string, limit int64) ([]byte, error) {
	if _, err := b.path(key); err != nil {
		return nil, err
	}
	// limit+1 bytes are read, as every driver does, for the caller to tell
	// a file that ends at its limit from one that goes past it.
	most := int64(math.MaxInt64)
	if limit >= 0 && limit < math.MaxInt64 {
		most = limit + 1
	}
	var data []byte
	err := safefile.Dir{Base: b.dir, Limit: func(string) int64 { return most }}.Read(ctx, escapeFileKey(key), func(f *safefile.File) error {
		var err error
		data, err = io.ReadAll(f)
		return err
	})
	if err != nil {
		return nil, err // a missing file is fs.ErrNotExist already
	}
	return data, nil
}

// Write writes a temporary file beside the target and renames it into
// place: a reader sees the old object or the new one, never half of it.
func (b *fileBucket) Write(_ context.Context, key string, data []byte, _ string) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), b.dirMode); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(p), tmpPrefix+filepath.Base(p)+"."+strconv.FormatInt(time.Now().UnixNano(), 36))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, bytes.NewReader(data))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func (b *fileBucket) Delete(_ context.Context, key string) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	return os.Remove(p)
}

func (b *fileBucket) Close() error { return nil }
