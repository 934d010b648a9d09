package egress

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv("EGRESS_TEST_ROLE") == "hub" {
		// A plugin's hub, to be killed with kill -9 before it can Close.
		h, err := Start(Config{Allow: []string{"api.example.com"}})
		if err != nil {
			fmt.Println("start:", err)
			os.Exit(1)
		}
		fmt.Println(h.Dir)
		time.Sleep(time.Hour)
	}
	os.Exit(m.Run())
}

// TestSweepRemovesKilledRunsDirectories: a plugin killed with kill -9
// leaves its socket directory; the next Start (or gc) removes it, and
// never the directory of a run that is alive, nor a fresh one it cannot
// attribute.
func TestSweepRemovesKilledRunsDirectories(t *testing.T) {
	tmp, err := os.MkdirTemp("", "egs-") // short: a socket path has a length limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "EGRESS_TEST_ROLE=hub")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("the killed run's hub: %v", err)
	}
	killed := strings.TrimSpace(line)
	cmd.Process.Kill() // SIGKILL: no Close
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(killed, "proxy.sock")); err != nil {
		t.Fatalf("the killed run's directory should still be there before the sweep: %v", err)
	}

	live, err := Start(Config{Allow: []string{"api.example.com"}}) // sweeps too
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()

	// An older version's directories, named without their owner: one
	// unanswered and old, one unanswered but fresh, one still served.
	legacy := func(name string, age time.Duration, serve bool) string {
		d := filepath.Join(tmp, dirPrefix+name)
		os.Mkdir(d, 0o700)
		if serve {
			ln, err := net.Listen("unix", filepath.Join(d, "proxy.sock"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
		} else {
			os.WriteFile(filepath.Join(d, "proxy.sock"), nil, 0o600)
		}
		old := time.Now().Add(-age)
		os.Chtimes(d, old, old)
		return d
	}
	oldDead := legacy("111", time.Hour, false)
	fresh := legacy("222", 0, false)
	served := legacy("333", time.Hour, true)

	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("Start left the killed run's directory %s (%v)", killed, err)
	}
	if n := Sweep(); n != 1 {
		t.Errorf("Sweep removed %d directories, want 1 (the old unanswered one)", n)
	}
	for dir, want := range map[string]bool{live.Dir: true, oldDead: false, fresh: true, served: true} {
		_, err := os.Stat(dir)
		if got := err == nil; got != want {
			t.Errorf("%s: present=%v, want %v", filepath.Base(dir), got, want)
		}
	}
}
