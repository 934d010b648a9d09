package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeHome lays out files (content "x", or "-> target" for a symlink)
// under a temporary home.
func fakeHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(content, "-> ") {
			target := strings.TrimPrefix(content, "-> ")
			if !filepath.IsAbs(target) {
				target = filepath.Join(home, target)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(rel, "/") {
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func TestComputeExposure(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		path     []string // relative to home unless absolute
		env      map[string]string
		expose   []string
		mask     []string
		problems []string // substrings, one per problem
	}{
		{
			name: "pyenv shims expose the pyenv root, its credentials masked",
			files: map[string]string{
				".pyenv/shims/python3":                                                "#!/bin/sh",
				".pyenv/versions/3.12.1/bin/python3":                                  "x",
				".pyenv/versions/3.12.1/lib/token.py":                                 "x",
				".pyenv/versions/3.12.1/lib/python3.12/site-packages/tok/tokens.json": "x",
				".pyenv/.netrc":                            "secret",
				".pyenv/versions/3.12.1/github_token":      "secret",
				".pyenv/versions/3.12.1/etc/.npmrc":        "secret",
				".pyenv/plugins/x/.config/gcloud/creds.db": "secret",
				".ssh/id_ed25519":                          "secret",
			},
			path:   []string{".pyenv/shims", "/usr/bin"},
			expose: []string{".pyenv"},
			mask:   []string{".pyenv/.netrc", ".pyenv/plugins/x/.config/gcloud", ".pyenv/versions/3.12.1/etc/.npmrc", ".pyenv/versions/3.12.1/github_token"},
		},
		{
			name: "PYENV_ROOT elsewhere in the home",
			files: map[string]string{
				"tools/pyenv/shims/python3":                "x",
				"tools/pyenv/versions/3.11/bin/python3.11": "x",
			},
			path:   []string{"tools/pyenv/shims"},
			env:    map[string]string{"PYENV_ROOT": "tools/pyenv"},
			expose: []string{"tools/pyenv"},
		},
		{
			name: "volta bin exposes ~/.volta",
			files: map[string]string{
				".volta/bin/node":                         "-> .volta/bin/volta-shim",
				".volta/bin/volta-shim":                   "x",
				".volta/tools/image/node/20.1.0/bin/node": "x",
			},
			path:   []string{".volta/bin"},
			expose: []string{".volta"},
		},
		{
			name: "a CLI's own installer: ~/.local/bin link into a versions dir",
			files: map[string]string{
				".local/bin/claude":                  "-> .local/share/claude/versions/2.0.1",
				".local/share/claude/versions/2.0.1": "x",
				".local/share/claude/versions/1.9.0": "x",
				".local/share/other/secret.txt":      "x",
				".local/bin/plain":                   "x",
			},
			path:   []string{".local/bin"},
			expose: []string{".local/bin", ".local/share/claude/versions"},
		},
		{
			name: "a versions dir whose entry links out of the home: the hop in the home is exposed",
			files: map[string]string{
				".local/bin/claude":                    "-> .local/share/claude/versions/2.1.328",
				".local/share/claude/versions/2.1.328": "-> /usr/bin/sh",
			},
			path:   []string{".local/bin"},
			expose: []string{".local/bin", ".local/share/claude/versions"},
		},
		{
			name: "nvm: bin/codex through lib/node_modules, itself a link out of the home",
			files: map[string]string{
				".nvm/versions/node/v22.12.0/bin/codex":        "-> .nvm/versions/node/v22.12.0/lib/node_modules/sh",
				".nvm/versions/node/v22.12.0/lib/node_modules": "-> /usr/bin",
				".nvm/versions/node/v22.12.0/lib/other":        "x",
			},
			path:   []string{".nvm/versions/node/v22.12.0/bin"},
			expose: []string{".nvm/versions/node/v22.12.0/bin", ".nvm/versions/node/v22.12.0/lib"},
		},
		{
			name:     "shims whose root is gone",
			files:    map[string]string{"bin/": ""},
			path:     []string{".rbenv/shims"},
			expose:   []string{".rbenv/shims"},
			problems: []string{"its root"},
		},
		{
			name: "a dangling link",
			files: map[string]string{
				"bin/tool": "-> opt/tool/1.0/tool",
			},
			path:     []string{"bin"},
			expose:   []string{"bin"},
			problems: []string{"does not exist"},
		},
		{
			name:   "nothing under home",
			files:  map[string]string{".pyenv/shims/python3": "x"},
			path:   []string{"/usr/bin", "relative"},
			expose: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := fakeHome(t, tc.files)
			abs := func(list []string) []string {
				var out []string
				for _, p := range list {
					if !filepath.IsAbs(p) && p != "relative" {
						p = filepath.Join(home, p)
					}
					out = append(out, p)
				}
				return out
			}
			env := map[string]string{}
			for k, v := range tc.env {
				env[k] = filepath.Join(home, v)
			}
			x := ComputeExposure(home, abs(tc.path), func(k string) string { return env[k] })
			if !reflect.DeepEqual(x.Expose, abs(tc.expose)) {
				t.Errorf("expose: got %v, want %v", x.Expose, abs(tc.expose))
			}
			if !reflect.DeepEqual(x.Mask, abs(tc.mask)) {
				t.Errorf("mask: got %v, want %v", x.Mask, abs(tc.mask))
			}
			if len(x.Problems) != len(tc.problems) {
				t.Fatalf("problems: got %q, want %d", x.Problems, len(tc.problems))
			}
			for i, p := range tc.problems {
				if !strings.Contains(x.Problems[i], p) {
					t.Errorf("problem %q does not say %q", x.Problems[i], p)
				}
			}
		})
	}
}

// A wrapper script in a PATH directory that execs something elsewhere in
// the home is flagged: inside, the script is found but its target is not.
func TestComputeExposureFlagsWrapperScripts(t *testing.T) {
	home := fakeHome(t, map[string]string{
		"opt/tool/1.0/bin/tool": "x",
		"bin/covered":           "x",
	})
	tests := []struct {
		name, script string
		flagged      bool
	}{
		{"execs outside the exposed trees", "#!/bin/sh\nexec " + home + "/opt/tool/1.0/bin/tool \"$@\"\n", true},
		{"execs inside its own PATH dir", "#!/bin/sh\nexec " + home + "/bin/covered \"$@\"\n", false},
		{"names a path that does not exist", "#!/bin/sh\nexec " + home + "/nowhere/tool\n", false},
		{"not a script", "ELF " + home + "/opt/tool/1.0/bin/tool", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(home, "bin", "wrapper"), []byte(tc.script), 0o755); err != nil {
				t.Fatal(err)
			}
			x := ComputeExposure(home, []string{filepath.Join(home, "bin")}, nil)
			if got := len(x.Problems) == 1 && strings.Contains(x.Problems[0], home+"/opt/tool/1.0/bin/tool"); got != tc.flagged {
				t.Errorf("flagged=%v, want %v: %q", got, tc.flagged, x.Problems)
			}
			if !reflect.DeepEqual(x.Expose, []string{filepath.Join(home, "bin")}) {
				t.Errorf("expose: %v", x.Expose)
			}
		})
	}
}
