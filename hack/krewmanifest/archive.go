package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

type entry struct {
	name string
	path string
	mode int64
}

func cmdArchive(args []string) error {
	fs := flag.NewFlagSet("archive", flag.ExitOnError)
	out := fs.String("o", "", "output archive (.tar.gz or .zip)")
	mtime := fs.Int64("mtime", -1, "timestamp of every entry, seconds since the Unix epoch")
	_ = fs.Parse(args)
	if *out == "" || *mtime < 0 || fs.NArg() == 0 {
		return errors.New("-o, -mtime and at least one file are required")
	}
	var entries []entry
	seen := map[string]bool{}
	for _, a := range fs.Args() {
		name, path := filepath.Base(a), a
		if i := strings.Index(a, "="); i > 0 {
			name, path = a[:i], a[i+1:]
		}
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		if seen[name] {
			return fmt.Errorf("duplicate entry %s", name)
		}
		seen[name] = true
		mode := int64(0o644)
		if fi.Mode().Perm()&0o111 != 0 {
			mode = 0o755
		}
		entries = append(entries, entry{name: name, path: path, mode: mode})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })

	var buf bytes.Buffer
	var err error
	switch {
	case strings.HasSuffix(*out, ".tar.gz"):
		err = writeTarGz(&buf, entries, *mtime)
	case strings.HasSuffix(*out, ".zip"):
		err = writeZip(&buf, entries, *mtime)
	default:
		err = fmt.Errorf("%s: want a .tar.gz or .zip name", *out)
	}
	if err != nil {
		return err
	}
	return writeFileAtomic(*out, buf.Bytes(), 0o644)
}

func writeTarGz(w io.Writer, entries []entry, mtime int64) error {
	// No name, no modification time, fixed OS byte: gzip -n.
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		data, err := os.ReadFile(e.path)
		if err != nil {
			return err
		}
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     e.name,
			Mode:     e.mode,
			Size:     int64(len(data)),
			ModTime:  time.Unix(mtime, 0),
			Format:   tar.FormatUSTAR, // no atime/ctime, no PAX records
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("%s: %w", e.name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, entries []entry, mtime int64) error {
	if mtime < dosEpoch {
		mtime = dosEpoch
	}
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	for _, e := range entries {
		data, err := os.ReadFile(e.path)
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{
			Name:     e.name,
			Method:   zip.Deflate,
			Modified: time.Unix(mtime, 0).UTC(),
		}
		hdr.SetMode(os.FileMode(e.mode))
		f, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ---- sums ----

func cmdSums(args []string) error {
	fs := flag.NewFlagSet("sums", flag.ExitOnError)
	out := fs.String("o", "", "output file")
	_ = fs.Parse(args)
	if *out == "" || fs.NArg() == 0 {
		return errors.New("-o and at least one file are required")
	}
	files := append([]string(nil), fs.Args()...)
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	var b strings.Builder
	for _, f := range files {
		sum, err := fileSHA256(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, filepath.Base(f))
	}
	return writeFileAtomic(*out, []byte(b.String()), 0o644)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ArchiveModes lists a .tar.gz or .zip archive's regular files and their
// permission bits.
func ArchiveModes(path string) (map[string]os.FileMode, error) {
	modes := map[string]os.FileMode{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		for _, f := range zr.File {
			if f.Mode().IsRegular() {
				modes[f.Name] = f.Mode().Perm()
			}
		}
		return modes, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return modes, nil
		}
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeReg {
			modes[hdr.Name] = os.FileMode(hdr.Mode).Perm()
		}
	}
}
