package logs

import (
	"strings"
	"testing"
)

// A dependency's own log read for why it refused a login: the latest
// refusal, with the detail the server writes after it, and the row that
// words the server's reason.
func TestLastOfClassServerRefusal(t *testing.T) {
	tests := []struct {
		source, log string
		row         int // AuthFailed's row
		line, user  string
	}{
		{"kobotoolbox/kobo-docker#31 (rabbit@rabbit.log)",
			"=INFO REPORT==== 1-Mar-2020::10:00:00 ===\nServer startup complete; 0 plugins started.\n\n=ERROR REPORT==== 1-Mar-2020::10:01:00 ===\nError on AMQP connection <0.815.0> (10.244.2.31:43740 -> 10.244.2.14:5672, state: starting):\nPLAIN login refused: user 'guest' can only connect via localhost\n",
			1, "can only connect via localhost", "guest"},
		{"deepset-ai/haystack#6649 (postgres 12)",
			"2024-01-05 00:29:35.620 UTC [1] LOG:  listening on IPv4 address \"0.0.0.0\", port 5432\n2024-01-05 00:29:39.722 UTC [38] FATAL:  password authentication failed for user \"somesafeuser\"\n2024-01-05 00:29:39.722 UTC [38] DETAIL:  Role \"somesafeuser\" does not exist.\n\tConnection matched pg_hba.conf line 99: \"host all all all md5\"\n",
			2, `Role "somesafeuser" does not exist`, "somesafeuser"},
		{"sentry-kubernetes/charts#465 (postgres)",
			"2021-08-31 09:31:34.573 GMT [346] FATAL:  password authentication failed for user \"postgres\"\n2021-08-31 09:31:34.573 GMT [346] DETAIL:  Password does not match for user \"postgres\".\n\tConnection matched pg_hba.conf line 1: \"host     all             all             0.0.0.0/0               md5\"\n",
			2, "Password does not match", "postgres"},
		{"mysql-server sql_authentication.cc",
			"2024-02-01T10:00:00.000000Z 8 [Note] [MY-010926] [Server] Access denied for user 'app'@'10.244.1.7' (using password: YES)\n",
			4, "Access denied for user 'app'", "app"},
	}
	for _, tt := range tests {
		d := LastOfClass(tt.log, AuthFailed)
		if d == nil {
			t.Errorf("%s: no AuthFailed line", tt.source)
			continue
		}
		if want := &defOf(AuthFailed).Patterns[tt.row]; d.Pattern != want {
			t.Errorf("%s: row %q, want %q", tt.source, d.Pattern.Explains, want.Explains)
		}
		if !strings.Contains(d.Line, tt.line) || d.Subject != "user "+tt.user {
			t.Errorf("%s: line %q subject %q, want %q and user %s", tt.source, d.Line, d.Subject, tt.line, tt.user)
		}
	}
	if d := LastOfClass("2024-01-05 00:29:35.620 UTC [1] LOG:  database system is ready to accept connections\n", AuthFailed); d != nil {
		t.Errorf("a server that refused nothing: %q", d.Line)
	}
}

// TestHTTP403IsAnAPIRefusal: an HTTP API's 403, quoted with its status, is
// the API refusing the client's identity even when the server's message
// says "permission denied"; the same words about a file stay a file's.
func TestHTTP403IsAnAPIRefusal(t *testing.T) {
	tests := []struct {
		source, line string
		want         Class
	}{
		{"hashicorp/vault agent auth.handler",
			`2022-11-03T09:12:51.651Z [ERROR] auth.handler: error authenticating: Error making API request. URL: PUT https://vault.example.com/v1/auth/kubernetes/login Code: 403. Errors: * permission denied`, AuthFailed},
		{"a REST client's status code",
			`level=error msg="upload failed" err="unexpected status code 403 from https://storage.example.com/bucket: permission denied"`, AuthFailed},
		{"a file",
			`level=error msg="open /data/wal/00000001: permission denied"`, PermissionDenied},
		{"a 403 without its status word is no HTTP status",
			`open /srv/403.html: permission denied`, PermissionDenied},
	}
	for _, tt := range tests {
		d := FindDecisive(tt.line + "\n")
		if d == nil || d.Pattern.def.Class != tt.want {
			t.Errorf("%s: got %+v, want %s", tt.source, d, tt.want)
			continue
		}
		if tt.want == AuthFailed && d.Pattern != &defOf(AuthFailed).Patterns[6] {
			t.Errorf("%s: row %q, want the HTTP 403 row", tt.source, d.Pattern.Explains)
		}
	}
}
