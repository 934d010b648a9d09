package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Bounds on the look at the user's PATH: a directory of thousands of
// binaries is read only this far, a tree only walked this far for
// credential files.
const (
	maxEntriesPerDir = 512
	maxWalk          = 200000
)

// shimRoot is a version manager whose shims dir, on PATH, needs the whole
// manager tree behind it (the shims exec ~/.pyenv/versions/X/bin/python3).
type shimRoot struct {
	shims, root string // relative to home
	env         string // the manager's own setting for its root
	envShims    string // shims dir relative to $env
}

var shimRoots = []shimRoot{
	{".pyenv/shims", ".pyenv", "PYENV_ROOT", "shims"},
	{".rbenv/shims", ".rbenv", "RBENV_ROOT", "shims"},
	{".asdf/shims", ".asdf", "ASDF_DATA_DIR", "shims"},
	{".local/share/mise/shims", ".local/share/mise", "MISE_DATA_DIR", "shims"},
	{".volta/bin", ".volta", "VOLTA_HOME", "bin"},
}

// Exposure is what of the user's home the agent needs to run, and why a
// PATH entry would not work inside.
type Exposure struct {
	// Expose are the directories shown read-only, parents before children.
	Expose []string
	// Mask are credential files inside Expose, hidden there too.
	Mask []string
	// Problems are PATH entries that would fail inside, each with its fix.
	Problems []string
}

// ExposeFor lists what of the user's home must stay visible for the agent
// to run (see ComputeExposure).
func ExposeFor(home string, pathList []string, binaries ...string) []string {
	return ComputeExposure(home, pathList, os.Getenv, binaries...).Expose
}

// ComputeExposure: each PATH entry inside home (so the agent's shell finds
// the user's kubectl); a version manager's whole root when the entry is its
// shims dir; the directory each executable there (and each binary given)
// links into, an npm package's whole node_modules tree. Nothing else of the
// home; credential files inside are masked.
func ComputeExposure(home string, pathList []string, getenv func(string) string, binaries ...string) Exposure {
	var x Exposure
	if home == "" || home == "/" || !filepath.IsAbs(home) {
		return x
	}
	home = filepath.Clean(home)
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var out []string
	inHome := func(p string) bool { return p != "" && within(home, p) && filepath.Clean(p) != home }
	add := func(p string) {
		if inHome(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	// links are resolved targets under home that must lie in some exposed tree.
	type link struct{ from, to string }
	var links []link
	target := func(real string) string {
		if i := strings.Index(real, "/node_modules/"); i >= 0 {
			return real[:i+len("/node_modules")]
		}
		return filepath.Dir(real)
	}
	for _, d := range pathList {
		if !filepath.IsAbs(d) || !inHome(d) {
			continue
		}
		d = filepath.Clean(d)
		add(d)
		if root, ok := shimRootOf(home, d, getenv); ok {
			if fi, err := os.Stat(root); err == nil && fi.IsDir() {
				add(root)
			} else {
				x.Problems = append(x.Problems, fmt.Sprintf("PATH entry %s is a version manager's shims, but its root %s is not there: set the manager's root variable (PYENV_ROOT, ASDF_DATA_DIR, VOLTA_HOME, ...) or remove the entry from PATH", d, root))
			}
		}
		if on, err := linksOnTheWay(d); err == nil && (len(on) > 1 || on[0] != d) {
			for i, q := range on {
				if i < len(on)-1 {
					q = filepath.Dir(q) // a hop: the link's own directory
				}
				add(q)
				links = append(links, link{d, q})
			}
		}
		entries, err := readDirN(d, maxEntriesPerDir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			if e.Type().IsRegular() {
				for _, ref := range scriptRefs(p, home) {
					links = append(links, link{p, ref})
				}
				continue
			}
			if e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			on, err := linksOnTheWay(p)
			if err != nil {
				if inHome(p) {
					if t, lerr := os.Readlink(p); lerr == nil {
						x.Problems = append(x.Problems, fmt.Sprintf("%s links to %s, which does not exist: reinstall it or remove the link", p, t))
					}
				}
				continue
			}
			for _, q := range on {
				if inHome(q) {
					add(target(q))
					links = append(links, link{p, q})
				}
			}
		}
	}
	for _, b := range binaries {
		if b == "" {
			continue
		}
		if on, err := linksOnTheWay(b); err == nil {
			for _, q := range on {
				add(target(q))
			}
		}
	}
	x.Expose = topmost(out)
	for _, l := range links {
		if !coveredBy(x.Expose, l.to) {
			x.Problems = append(x.Problems, fmt.Sprintf("%s needs %s, which the agent sandbox does not expose: install it outside your home, link it into a PATH directory, or run with --no-sandbox", l.from, l.to))
		}
	}
	x.Mask = credentialsIn(x.Expose)
	return x
}

// linksOnTheWay resolves p as the kernel does, a component at a time, and
// returns every link met on the way after the first (each must be visible
// for the next hop to resolve) and, last, the real path. A CLI's own
// installer links ~/.local/bin/claude to a versions directory that may
// itself be a link elsewhere: exposing only the end, or only the start,
// leaves a hop missing inside the sandbox.
func linksOnTheWay(p string) ([]string, error) {
	const maxLinks = 40 // as the kernel's ELOOP
	var met []string
	pending := strings.Split(filepath.Clean(p), "/")
	cur, n := "/", 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur) // cur holds no link: its parent is lexical
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			return nil, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if n++; n > maxLinks {
			return nil, &fs.PathError{Op: "resolve", Path: p, Err: fmt.Errorf("more than %d links", maxLinks)}
		}
		to, err := os.Readlink(next)
		if err != nil {
			return nil, err
		}
		if next != filepath.Clean(p) {
			met = append(met, next)
		}
		if filepath.IsAbs(to) {
			cur = "/"
		}
		pending = append(strings.Split(to, "/"), pending...)
	}
	return append(met, cur), nil
}

// shimRootOf: the version manager root behind a shims dir on PATH.
func shimRootOf(home, dir string, getenv func(string) string) (string, bool) {
	for _, s := range shimRoots {
		if v := getenv(s.env); v != "" && filepath.IsAbs(v) && filepath.Join(v, s.envShims) == dir {
			return filepath.Clean(v), true
		}
		if filepath.Join(home, s.shims) == dir {
			return filepath.Join(home, s.root), true
		}
	}
	return "", false
}

// scriptRefs: the existing paths under home a wrapper script names (the
// first few KB of a "#!" file), which it may exec.
func scriptRefs(p, home string) []string {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.Read(buf)
	text := string(buf[:n])
	if !strings.HasPrefix(text, "#!") {
		return nil
	}
	var out []string
	for rest := text; ; {
		i := strings.Index(rest, home+"/")
		if i < 0 {
			break
		}
		rest = rest[i:]
		end := strings.IndexAny(rest, " \t\n\"'`;:|&)$")
		if end < 0 {
			end = len(rest)
		}
		ref := filepath.Clean(rest[:end])
		rest = rest[end:]
		if _, err := os.Stat(ref); err == nil && ref != home {
			out = append(out, ref)
		}
	}
	return out
}

func readDirN(dir string, n int) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(n)
	if len(entries) > 0 {
		err = nil
	}
	return entries, err
}

// topmost drops paths inside another listed one and sorts the rest.
func topmost(list []string) []string {
	sort.Strings(list)
	var out []string
	for _, p := range list {
		if !coveredBy(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func coveredBy(roots []string, p string) bool {
	for _, r := range roots {
		if within(r, p) {
			return true
		}
	}
	return false
}

// credentialsIn finds the credential files inside the exposed trees: the
// names every agent loses in the home (DefaultMasks), and files named like
// tokens or registry logins. Source files (token.py) are not credentials.
func credentialsIn(roots []string) []string {
	var suffixes []string
	for _, m := range DefaultMasks("/") {
		suffixes = append(suffixes, m) // "/.aws", "/.config/gcloud", ...
	}
	files := map[string]bool{".npmrc": true, ".pypirc": true, "credentials": true, "credentials.json": true, ".vault-token": true}
	var out []string
	n := 0
	for _, r := range roots {
		filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if n++; n > maxWalk {
				return filepath.SkipAll
			}
			if p == r {
				return nil
			}
			for _, s := range suffixes {
				if strings.HasSuffix(p, s) {
					out = append(out, p)
					if d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
			}
			lower := strings.ToLower(d.Name())
			if d.Type().IsRegular() && (files[lower] || strings.Contains(lower, "token") && dataExt(lower) && !packaged(p)) {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// packaged: inside an installed package, where a "tokens.json" is data the
// package reads (design tokens, a tokenizer's vocabulary), not a login.
func packaged(p string) bool {
	return strings.Contains(p, "/node_modules/") || strings.Contains(p, "/site-packages/") || strings.Contains(p, "/gems/")
}

func dataExt(name string) bool {
	switch filepath.Ext(name) {
	case "", ".json", ".txt", ".yaml", ".yml", ".toml", ".conf", ".cfg":
		return true
	}
	return false
}
