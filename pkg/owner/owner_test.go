package owner

import (
	"os"
	"os/exec"
	"testing"
)

func TestSelfIsNotGone(t *testing.T) {
	p := Self()
	if p.PID != os.Getpid() || p.Gone() {
		t.Fatalf("Self() = %+v, Gone() = %v", p, p.Gone())
	}
}

func TestExitedProcessIsGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	p := Process{PID: cmd.Process.Pid, StartTime: 1}
	if !p.Gone() {
		t.Errorf("exited process %d reads as running", p.PID)
	}
}

func TestReusedPIDIsGone(t *testing.T) {
	p := Self()
	if p.StartTime == 0 {
		t.Skip("no process start times on this system")
	}
	p.StartTime++
	if !p.Gone() {
		t.Error("a process with this PID but another start time reads as the owner")
	}
}

func TestUnknowableIsNotGone(t *testing.T) {
	for _, p := range []Process{{}, {PID: 1 << 22, Host: "some-other-host"}} {
		if p.Gone() {
			t.Errorf("%+v: reads as gone, but that cannot be known", p)
		}
	}
}

func TestToken(t *testing.T) {
	p := Process{PID: 4242, StartTime: 987654}
	got, ok := ParseToken(p.Token())
	if !ok || got != p {
		t.Fatalf("ParseToken(%q) = %+v, %v", p.Token(), got, ok)
	}
	for _, bad := range []string{"", "x.1", "1", "-1.2", "1.y"} {
		if _, ok := ParseToken(bad); ok {
			t.Errorf("ParseToken(%q) accepted", bad)
		}
	}
}
