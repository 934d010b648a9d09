//go:build linux

package e2e

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

// The krew build's targets.
const (
	maxReleaseBinary = 80e6     // bytes of the release archive's binary
	maxTriageRSS     = 50 << 20 // peak resident memory of a one-pod triage
)

// BenchmarkFootprint: what the plugin costs on a user's machine. For the
// krew build (the release archive, hack/dist.sh) and the container image's
// (every store driver, store_all): the binary's size, and the peak
// resident memory (ru_maxrss from wait4) of `kubectl triage version` and of
// a one-pod triage with the builtin agent against the test control plane;
// kubectl describe of the same pod is the yardstick. The krew build must
// stay within maxReleaseBinary and maxTriageRSS.
//
// The binaries run as an archive leaves them, written by write(2): a
// binary fresh from the linker (written through mmap) can sit in the page
// cache as huge folios that every process maps whole, which would measure
// the page cache rather than the plugin.
//
//	make bench, or: go test ./test/e2e -run '^$' -bench Footprint -benchtime 5x
func BenchmarkFootprint(b *testing.B) {
	c := testcluster.Get(b)
	ns := c.Namespace(b)
	scenarioSetup(b, c, ns)
	helper := peakRSSHelper(b)
	env := append(c.Env(), "KUBECONFIG="+c.UserKubeconfig, "WORKSPACE_ROOT="+b.TempDir(),
		"XDG_CONFIG_HOME="+b.TempDir(), "XDG_STATE_HOME="+b.TempDir(), "KUBECTL_TRIAGE_CONFIG=")
	for _, build := range []struct {
		name, tags string
		krew       bool
	}{{"krew", "", true}, {"image", "store_all", false}} {
		b.Run("build="+build.name, func(b *testing.B) {
			bin := releaseBinary(b, build.tags)
			fi, err := os.Stat(bin)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("binary", func(b *testing.B) {
				for b.Loop() {
				}
				b.ReportMetric(0, "ns/op") // nothing is timed
				b.ReportMetric(float64(fi.Size())/1e6, "MB")
				if build.krew && fi.Size() > maxReleaseBinary {
					b.Errorf("release binary %.1f MB: above the %.0f MB target", float64(fi.Size())/1e6, maxReleaseBinary/1e6)
				}
			})
			b.Run("version", func(b *testing.B) {
				peakRSSOf(b, helper, env, bin, "version")
			})
			b.Run("triage-pod", func(b *testing.B) {
				peak := peakRSSOf(b, helper, env, bin, "-q", "-n", ns, "pod/api")
				if build.krew && peak > maxTriageRSS {
					b.Errorf("one-pod triage peaks at %.1f MiB: above the %d MiB target", float64(peak)/(1<<20), maxTriageRSS>>20)
				}
			})
		})
	}
	b.Run("kubectl-describe", func(b *testing.B) {
		kubectl := filepath.Join(b.TempDir(), "kubectl")
		copyFile(b, c.KubectlPath, kubectl)
		peakRSSOf(b, helper, env, kubectl, "describe", "pod", "api", "-n", ns)
	})
}

// peakRSSOf runs the command once to warm the discovery cache, then b.N
// times, and reports the highest and the median peak RSS of those runs:
// wait4's ru_maxrss, taken by test/proc/cmd/peakrss (see there why not by
// this process).
func peakRSSOf(b *testing.B, helper string, env []string, bin string, args ...string) int64 {
	b.Helper()
	file := filepath.Join(b.TempDir(), "maxrss")
	run := func() int64 {
		cmd := exec.Command(helper, append([]string{"-o", file, "--", bin}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		kib, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		return kib << 10
	}
	run()
	var peaks []int64
	for b.Loop() {
		peaks = append(peaks, run())
	}
	slices.Sort(peaks)
	b.ReportMetric(float64(peaks[len(peaks)-1])/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(peaks[len(peaks)/2])/(1<<20), "median-peak-RSS-MiB")
	return peaks[len(peaks)-1]
}

// peakRSSHelper builds test/proc/cmd/peakrss.
func peakRSSHelper(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "peakrss")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/kubectl-triage/kubectl-triage/test/proc/cmd/peakrss").CombinedOutput(); err != nil {
		b.Fatalf("build peakrss: %v\n%s", err, out)
	}
	return bin
}

// releaseBinary is the host's release archive made by hack/dist.sh with
// these build tags, unpacked as krew unpacks it.
func releaseBinary(b *testing.B, tags string) string {
	b.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	dist := b.TempDir()
	cmd := exec.Command(filepath.Join(root, "hack", "dist.sh"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "VERSION=v0.0.0-bench", "PLATFORMS=host", "DIST_DIR="+dist, "TAGS="+tags)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("hack/dist.sh: %v\n%s", err, out)
	}
	archive := filepath.Join(dist, fmt.Sprintf("kubectl-triage_v0.0.0-bench_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH))
	f, err := os.Open(archive)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			b.Fatalf("%s: no kubectl-triage in it (%v)", archive, err)
		}
		if filepath.Base(h.Name) != "kubectl-triage" {
			continue
		}
		bin := filepath.Join(b.TempDir(), "kubectl-triage")
		out, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
		if err == nil {
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			b.Fatal(err)
		}
		return bin
	}
}
