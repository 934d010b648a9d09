package logs

import "testing"

func TestFindDecisive(t *testing.T) {
	tests := []struct{ log, class, line string }{
		{"ok\nError: EADDRINUSE: address already in use :::8080\n", "AddressInUse", "Error: EADDRINUSE: address already in use :::8080"},
		{"open /data/db: permission denied\n", "PermissionDenied", "open /data/db: permission denied"},
		{"Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'DB_HOST'\n", "MissingEnv", "KeyError: 'DB_HOST'"}, // os.environ's KeyError on an upper-case name
		{"INFO starting\nERROR could not do the thing\nINFO shutting down\n", "ErrorLine", "ERROR could not do the thing"},
		{"2026-11-21T14:59:00.123456789Z dial tcp: lookup db.shop.svc on 10.0.0.10:53: no such host\n", "DNS", "dial tcp: lookup db.shop.svc on 10.0.0.10:53: no such host"},
		{"all good\n", "", ""},
	}
	for _, tt := range tests {
		d := FindDecisive(tt.log)
		if tt.class == "" {
			if d != nil {
				t.Errorf("%q: got %s, want nothing", tt.log, d.Pattern.Class)
			}
			continue
		}
		if d == nil || d.Pattern.Class != tt.class || d.Line != tt.line {
			t.Errorf("%q: got %+v, want %s %q", tt.log, d, tt.class, tt.line)
		}
	}
}
