package logs

import "testing"

// A secret file readable by others is refused by its program: the class
// and the file it names, in each program's own words.
func TestFileMode(t *testing.T) {
	tests := []struct {
		line, subject string
	}{
		// Erlang's auth.erl (RabbitMQ), as rabbitmq-server#3346 records it.
		{`Error during startup: {error,{{shutdown,{failed_to_start_child,auth,{"Cookie file /var/lib/rabbitmq/.erlang.cookie must be accessible by owner only",[{auth,init_cookie,0,[{file,"auth.erl"},{line,290}]}]}}}}}`,
			"/var/lib/rabbitmq/.erlang.cookie"},
		// PostgreSQL's be-secure-openssl.c, as smallstep/autocert#53 records it.
		{`2022-06-01 18:24:51.139 GMT [37] FATAL:  private key file "/var/run/autocert.step.sm/site.key" has group or world access`,
			"/var/run/autocert.step.sm/site.key"},
		// OpenSSH's authfile.c.
		{`Permissions 0644 for '/root/.ssh/id_rsa' are too open.`, "/root/.ssh/id_rsa"},
	}
	for _, tt := range tests {
		p := classify(tt.line, false)
		if p == nil || p.Class != FileMode {
			t.Errorf("%q: got %v, want FileMode", tt.line, p)
			continue
		}
		if got := SubjectOf(FileMode, tt.line); got != tt.subject {
			t.Errorf("%q: subject %q, want %q", tt.line, got, tt.subject)
		}
	}
	// A denied file is PermissionDenied, not a too-open one.
	if p := classify(`open /var/lib/rabbitmq/.erlang.cookie: permission denied`, false); p == nil || p.Class != PermissionDenied {
		t.Errorf("a denied open: got %v, want PermissionDenied", p)
	}
}
