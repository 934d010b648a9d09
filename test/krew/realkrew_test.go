package krew

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"text/template"
)

// renderStub renders the manifest template the way krew-release-bot and
// hack/krewmanifest do (text/template, .TagName, addURIAndSha), with a
// fixed checksum: what the template says, apart from the archives.
func renderStub(t *testing.T, text []byte, tag string) []byte {
	t.Helper()
	const sum = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	funcs := template.FuncMap{"addURIAndSha": func(url, tag string) (string, error) {
		u, err := template.New("url").Parse(url)
		if err != nil {
			return "", err
		}
		var b bytes.Buffer
		if err := u.Execute(&b, struct{ TagName string }{tag}); err != nil {
			return "", err
		}
		return fmt.Sprintf("uri: %s\n    sha256: %s", b.String(), sum), nil
	}}
	tmpl, err := template.New("krew-manifest.yaml").Funcs(funcs).Parse(string(text))
	if err != nil {
		t.Fatalf("template: %v", err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, struct{ TagName string }{tag}); err != nil {
		t.Fatalf("template: %v", err)
	}
	return out.Bytes()
}

// haveRealKrew reports whether the real krew can run here.
func haveRealKrew() bool {
	return os.Getenv("KUBECTL_TRIAGE_KREW") != "" && os.Getenv("KUBECTL_TRIAGE_TESTBIN") != ""
}

// realKrew is the directory of krew (kubectl-krew) and krew-index's
// validate-krew-manifest (hack/krew.sh, KUBECTL_TRIAGE_KREW), with kubectl
// (KUBECTL_TRIAGE_TESTBIN) for the validator's `kubectl krew install`; the
// test skips without them.
func realKrew(t *testing.T) (krewDir, kubectlDir string) {
	t.Helper()
	krewDir, kubectlDir = os.Getenv("KUBECTL_TRIAGE_KREW"), os.Getenv("KUBECTL_TRIAGE_TESTBIN")
	if krewDir == "" || kubectlDir == "" {
		t.Skip("real krew: set KUBECTL_TRIAGE_KREW=$(./hack/krew.sh) and KUBECTL_TRIAGE_TESTBIN=$(./hack/testbin.sh) (make test does)")
	}
	for _, f := range []string{filepath.Join(krewDir, "kubectl-krew"), filepath.Join(krewDir, "validate-krew-manifest"), filepath.Join(kubectlDir, "kubectl")} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("real krew: %v", err)
		}
	}
	return krewDir, kubectlDir
}

// archiveServer serves dir on loopback, the release download location for
// the real krew. Plain HTTP: krew-index's validator runs krew with an
// environment of its own (no SSL_CERT_FILE for a test CA), and krew takes
// http URLs; the https rule is this package's validate's, on the manifests
// with the real download location.
func archiveServer(t *testing.T, dir string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// krewEnv is the environment of a real krew run: its own KREW_ROOT (and
// HOME), the tools on PATH after first (if any), no upgrade check.
func krewEnv(krewDir, kubectlDir, root string, first ...string) []string {
	dirs := append(append([]string{}, first...), krewDir, kubectlDir, os.Getenv("PATH"))
	return []string{"KREW_ROOT=" + root, "KREW_NO_UPGRADE_CHECK=1", "HOME=" + root, "PATH=" + strings.Join(dirs, string(os.PathListSeparator))}
}

// validateReal runs krew-index's validator on a manifest: structure,
// selectors, and the installation of every platform (it downloads each
// archive and installs it with `kubectl krew install`).
func validateReal(t *testing.T, manifest string, env []string) {
	t.Helper()
	krewDir := os.Getenv("KUBECTL_TRIAGE_KREW")
	cmd := exec.Command(filepath.Join(krewDir, "validate-krew-manifest"), "-manifest", manifest)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("validate-krew-manifest %s: %v\n%s", manifest, err, out)
	}
	if !strings.Contains(string(out), "installed fine") {
		t.Errorf("validate-krew-manifest did not install the platforms:\n%s", out)
	}
	t.Logf("validate-krew-manifest:\n%s", out)
}

// realInstall installs the release the way its users do, with krew itself:
// the manifest `make krew-manifest` wrote, rendered again with a loopback
// download location, passes krew-index's validator (which downloads the
// archive and installs it); `kubectl krew install --manifest --archive`
// installs it, `kubectl triage version` runs it through kubectl's plugin
// dispatch, and `kubectl krew uninstall triage` removes it.
func realInstall(t *testing.T, dist, manifest, archive string) {
	t.Helper()
	krewDir, kubectlDir := realKrew(t)
	helper := buildHelper(t)
	served := filepath.Join(t.TempDir(), "triage.yaml")
	run(t, repoRoot(t), nil, helper, "manifest", "-version", testVersion, "-dist", dist, "-uri-base", archiveServer(t, dist), "-in", templatePath(t), "-out", served)
	validateReal(t, served, krewEnv(krewDir, kubectlDir, t.TempDir()))

	root := t.TempDir()
	env := krewEnv(krewDir, kubectlDir, root, filepath.Join(root, "bin")) // where krew links plugins
	kubectl := filepath.Join(kubectlDir, "kubectl")
	out := run(t, root, env, kubectl, "krew", "install", "--manifest="+manifest, "--archive="+filepath.Join(dist, archive))
	if !strings.Contains(out, "Installed plugin: triage") {
		t.Errorf("kubectl krew install: %s", out)
	}
	link := filepath.Join(root, "bin", binName)
	if target, err := os.Readlink(link); err != nil || target != filepath.Join(root, "store", pluginName, testVersion, binName) {
		t.Errorf("krew linked %s -> %q (%v)", link, target, err)
	}
	if out := run(t, root, env, kubectl, "triage", "version"); !strings.Contains(out, testVersion) {
		t.Errorf("kubectl triage version: %q lacks %s", out, testVersion)
	}
	// krew's list and uninstall want the default index cloned (krew
	// update: a git clone of krew-index, not reachable here); an empty
	// clone stands in for it. A --manifest install is the "detached" index's.
	if err := os.MkdirAll(filepath.Join(root, "index", "default", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out := run(t, root, env, kubectl, "krew", "list"); !strings.Contains(out, "detached/"+pluginName) {
		t.Errorf("kubectl krew list: %q", out)
	}
	run(t, root, env, kubectl, "krew", "uninstall", pluginName)
	for _, gone := range []string{link, filepath.Join(root, "store", pluginName), filepath.Join(root, "receipts", pluginName+".yaml")} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("after uninstall %s is still there (%v)", gone, err)
		}
	}
}
