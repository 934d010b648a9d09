package logs

import "testing"

func TestFindDecisive(t *testing.T) {
	tests := []struct {
		log   string
		class Class
		line  string
	}{
		{"ok\nError: EADDRINUSE: address already in use :::8080\n", "AddressInUse", "Error: EADDRINUSE: address already in use :::8080"},
		{"open /data/db: permission denied\n", "PermissionDenied", "open /data/db: permission denied"},
		{"Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'DB_HOST'\n", "MissingEnv", "KeyError: 'DB_HOST'"}, // os.environ's KeyError on an upper-case name
		{"INFO starting\nERROR could not do the thing\nINFO shutting down\n", "ErrorLine", "ERROR could not do the thing"},
		{"2026-11-21T14:59:00.123456789Z dial tcp: lookup db.shop.svc on 10.0.0.10:53: no such host\n", "DNS", "dial tcp: lookup db.shop.svc on 10.0.0.10:53: no such host"},
		{"all good\n", "", ""},
		// nginx names the config file after the host: DNS, not a missing file (nginx src/core/ngx_inet.c "host not found in upstream").
		{"2018/02/26 20:08:22 [emerg] 1#1: host not found in upstream \"netbox\" in /etc/netbox-nginx/nginx.conf:21\n", "DNS", "2018/02/26 20:08:22 [emerg] 1#1: host not found in upstream \"netbox\" in /etc/netbox-nginx/nginx.conf:21"},
		{"nginx: [emerg] host not found in resolver \"kube-dns.kube-system.svc.cluster.local\" in /etc/nginx/nginx.conf:25\n", "DNS", "nginx: [emerg] host not found in resolver \"kube-dns.kube-system.svc.cluster.local\" in /etc/nginx/nginx.conf:25"},
		// EACCES on port 8000 is not a privileged port (bunyan, level 60).
		{`{"level":60,"syscall":"listen","msg":"listen EACCES: permission denied tcp://172.20.11.4:8000","v":0}` + "\n", "PermissionDenied", "listen EACCES: permission denied tcp://172.20.11.4:8000"},
		{`{"level":60,"syscall":"listen","msg":"listen EACCES: permission denied 0.0.0.0:80","v":0}` + "\n", "PrivilegedPort", "listen EACCES: permission denied 0.0.0.0:80"},
		// A warning the application handled loses to the fatal record (zap).
		{`{"level":"warn","msg":"SESSION_TTL not set, using default"}` + "\n" + `{"level":"fatal","msg":"failed to connect to redis","error":"dial tcp 10.96.112.4:6379: i/o timeout"}` + "\n", "ConnectionRefused", "failed to connect to redis: dial tcp 10.96.112.4:6379: i/o timeout"},
		// A repeated warning explains a generic error after it (Kafka NetworkClient, then a TimeoutException).
		{"WARN NetworkClient : Connection to node -1 (kafka.messaging.svc.cluster.local/10.96.18.40:9092) could not be established. Broker may not be available.\n" +
			"ERROR o.s.boot.SpringApplication : Application run failed\norg.apache.kafka.common.errors.TimeoutException: Topic orders not present in metadata after 60000 ms.\n",
			"ConnectionRefused", "WARN NetworkClient : Connection to node -1 (kafka.messaging.svc.cluster.local/10.96.18.40:9092) could not be established. Broker may not be available."},
		// logrus JSON: the fatal record is the cause even without error words.
		{`{"level":"fatal","msg":"invalid log level set: \u003cnil\u003e","time":"2019-11-13T03:45:45Z"}` + "\n", "FatalError", "invalid log level set: <nil>"},
		// redis-py's connect error (connection.py: "Error %s connecting to %s:%s. %s.") with ETIMEDOUT.
		{"redis.exceptions.ConnectionError: Error 110 connecting to redis:6379. Connection timed out.\n", "Timeout", "redis.exceptions.ConnectionError: Error 110 connecting to redis:6379. Connection timed out."},
		{"failed to render config file template: environment variable `AWS_ACCESS_KEY_ID` is not set and no default value is provided\n", "MissingEnv", "failed to render config file template: environment variable `AWS_ACCESS_KEY_ID` is not set and no default value is provided"},
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

func TestSubjects(t *testing.T) {
	tests := []struct{ log, subject string }{
		{"nginx: [emerg] host not found in upstream \"netbox\" in /etc/netbox-nginx/nginx.conf:21\n", "host netbox"},
		// pgjdbc's outer exception names the endpoint; its innermost cause does not.
		{"org.postgresql.util.PSQLException: Connection to billing-db:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.\n" +
			"\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:342)\nCaused by: java.net.ConnectException: Connection refused\n\tat java.base/sun.nio.ch.Net.connect0(Native Method)\n", "billing-db:5432"},
		{"Connection to node -1 (kafka.messaging.svc.cluster.local/10.96.18.40:9092) could not be established. Broker may not be available.\n", "kafka.messaging.svc.cluster.local/10.96.18.40:9092"},
	}
	for _, tt := range tests {
		if d := FindDecisive(tt.log); d == nil || d.Subject != tt.subject {
			t.Errorf("%q: got %+v, want subject %q", tt.log, d, tt.subject)
		}
	}
	// Exit 127: a start script's "No such file or directory" is about the command (bash).
	d := ForExit(FindDecisive("/myapp/start: line 15: bin/rails: No such file or directory\n"), 127)
	if d == nil || d.Pattern.Class != "CommandNotFound" || d.Subject != "command bin/rails" {
		t.Errorf("exit 127: got %+v", d)
	}
	if d := ForExit(FindDecisive("/myapp/start: line 15: /var/log/app/out.log: No such file or directory\n"), 1); d == nil || d.Pattern.Class == "CommandNotFound" {
		t.Errorf("exit 1: a missing redirect target is no command: got %+v", d)
	}
}
