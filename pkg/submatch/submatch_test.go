package submatch

import (
	"regexp"
	"testing"
)

func TestGet(t *testing.T) {
	re := regexp.MustCompile(`exec "(?P<cmd>[^"]+)"|sh: (?P<cmd>\S+): not found|(?P<port>\d+)?x`)
	tests := []struct {
		in, group, want string
		ok              bool
	}{
		{`exec "curl": not found`, "cmd", "curl", true},
		{`sh: wget: not found`, "cmd", "wget", true}, // the second alternative's group of the same name
		{`x`, "port", "", true},                      // took no part
		{`8080x`, "port", "8080", true},
		{`nothing`, "cmd", "", false},
	}
	for _, tt := range tests {
		m, ok := Find(re, tt.in)
		if ok != tt.ok {
			t.Errorf("%q: ok %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if ok {
			if got := m.Get(tt.group); got != tt.want {
				t.Errorf("%q: %s = %q, want %q", tt.in, tt.group, got, tt.want)
			}
		}
	}
}

func TestFindAll(t *testing.T) {
	re := regexp.MustCompile(`(?P<host>[a-z]+):(?P<port>\d+)`)
	all := FindAll(re, "db:5432 and cache:6379", -1)
	if len(all) != 2 || all[0].Get("host") != "db" || all[1].Get("port") != "6379" || all[1].Whole() != "cache:6379" {
		t.Fatalf("got %+v", all)
	}
	if FindAll(re, "none", -1) != nil {
		t.Fatal("no match must be nil")
	}
}

func TestUnknownGroupPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("reading a group the expression does not define must panic")
		}
	}()
	m, _ := Find(regexp.MustCompile(`(?P<a>x)`), "x")
	m.Get("b")
}
