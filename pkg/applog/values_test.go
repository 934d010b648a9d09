package applog

import (
	"strings"
	"testing"
)

// TestStructuredRecords: the severity and error fields of formats that
// name or nest them their own way are read like any logger's level and
// error, so a fatal record's message and error are its line.
func TestStructuredRecords(t *testing.T) {
	tests := []struct {
		name, source, log string
		level             Level
		want              []string // substrings of the decisive line
	}{
		{"mongodb-fatal-fcv", "https://github.com/mongodb/mongodb-kubernetes-operator/issues/1478",
			`{"t":{"$date":"2024-03-26T09:14:02.118+00:00"},"s":"I",  "c":"CONTROL",  "id":23403,   "ctx":"initandlisten","msg":"Build Info","attr":{"buildInfo":{"version":"6.0.14"}}}` + "\n" +
				`{"t":{"$date":"2024-03-26T09:14:03.912+00:00"},"s":"F",  "c":"CONTROL",  "id":20573,   "ctx":"initandlisten","msg":"Wrong mongod version","attr":{"error":"UPGRADE PROBLEM: Found an invalid featureCompatibilityVersion document (ERROR: Location4926900: Invalid featureCompatibilityVersion document in admin.system.version: { _id: \"featureCompatibilityVersion\", version: \"4.4\" }."}}` + "\n" +
				`{"t":{"$date":"2024-03-26T09:14:03.950+00:00"},"s":"I",  "c":"CONTROL",  "id":23138,   "ctx":"initandlisten","msg":"Shutting down","attr":{"exitCode":62}}` + "\n",
			LevelFatal, []string{"Wrong mongod version", "featureCompatibilityVersion", `version: "4.4"`}},
		{"mongodb-error-status-object", "https://github.com/barrowclift/hacker-news-cleanser/issues/2",
			`{"t":{"$date":"2021-02-03T13:17:50.652-05:00"},"s":"E",  "c":"STORAGE",  "id":20568,   "ctx":"initandlisten","msg":"Error setting up listener","attr":{"error":{"code":9001,"codeName":"SocketException","errmsg":"Address already in use"}}}` + "\n" +
				`{"t":{"$date":"2021-02-03T13:17:50.653-05:00"},"s":"I",  "c":"CONTROL",  "id":20565,   "ctx":"initandlisten","msg":"Now exiting"}` + "\n",
			LevelError, []string{"Error setting up listener", "SocketException: Address already in use"}},
		{"mongodb-dbpath-in-use", "https://github.com/microservices-demo/microservices-demo/issues/891",
			`{"t":{"$date":"2026-12-01T15:40:02.125+00:00"},"s":"E",  "c":"STORAGE",  "id":20557,   "ctx":"initandlisten","msg":"DBException in initAndListen, terminating","attr":{"error":"DBPathInUse: Unable to create/open the lock file: /data/db/mongod.lock (Read-only file system)."}}` + "\n",
			LevelError, []string{"DBException in initAndListen", "Read-only file system"}},
		{"vault-hclog-multiline-error", "https://github.com/hashicorp/vault-k8s/issues/308",
			"2022-11-03T10:15:01.123Z [INFO]  auth.handler: authenticating\n" +
				"2022-11-03T10:15:31.125Z [ERROR] auth.handler: error authenticating:\n  error=\n  | Error making API request.\n  | \n" +
				"  | URL: PUT https://vault.example.com/v1/auth/kubernetes/login\n  | Code: 403. Errors:\n  | \n  | * permission denied\n   backoff=4.65s\n",
			LevelError, []string{"error authenticating", "Code: 403", "* permission denied"}},
		{"consul-hclog-multierror", "https://github.com/hashicorp/consul/issues/16475",
			"2023-03-01T09:43:22.942+0800 [WARN]  agent: (LAN) couldn't join: number_of_nodes=0\n  error=\n  | 2 errors occurred:\n" +
				"  |     * Failed to join 192.168.100.40:8301: dial tcp 192.168.100.40:8301: connect: connection refused\n" +
				"  |     * Failed to join 192.168.100.42:8301: dial tcp 192.168.100.42:8301: connect: connection refused\n  |\n\n" +
				"2023-03-01T09:43:22.942+0800 [WARN]  agent: Join cluster failed, will retry: cluster=LAN retry_interval=30s\n  error=\n  | 2 errors occurred:\n" +
				"  |     * Failed to join 192.168.100.40:8301: dial tcp 192.168.100.40:8301: connect: connection refused\n" +
				"  |     * Failed to join 192.168.100.42:8301: dial tcp 192.168.100.42:8301: connect: connection refused\n  |\n",
			LevelWarn, []string{"Join cluster failed", "2 errors occurred: * Failed to join 192.168.100.40:8301", "connection refused"}},
		// hclog's JSON format (intlogger.go jsonMapEntry: @level, @message,
		// @module) with the same Vault error as a multi-line value.
		{"vault-hclog-json", "https://github.com/hashicorp/go-hclog/blob/main/intlogger.go; error text of https://github.com/hashicorp/vault-k8s/issues/308",
			`{"@level":"error","@message":"error authenticating","@module":"auth.handler","@timestamp":"2022-11-03T10:15:31.125000Z","backoff":4650000000,"error":"Error making API request.\n\nURL: PUT https://vault.example.com/v1/auth/kubernetes/login\nCode: 403. Errors:\n\n* permission denied"}` + "\n",
			LevelError, []string{"error authenticating", "Code: 403. Errors: * permission denied"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Parse(tt.log)
			ds := l.Decisive(Options{})
			if len(ds) == 0 {
				t.Fatalf("%s: no decisive line; events:\n%s", tt.source, dump(l))
			}
			if ds[0].Event.Level != tt.level {
				t.Errorf("level = %s, want %s", ds[0].Event.Level, tt.level)
			}
			for _, w := range tt.want {
				if !strings.Contains(ds[0].Text, w) {
					t.Errorf("%s: decisive line %q does not name %q", tt.source, ds[0].Text, w)
				}
			}
			if strings.Contains(ds[0].Text, "backoff=") {
				t.Errorf("the record's other field taken for its line: %q", ds[0].Text)
			}
		})
	}
}

// TestOneLetterSeverityOnlyInMongoShape: another program's "s" field is
// not a level.
func TestOneLetterSeverityOnlyInMongoShape(t *testing.T) {
	l := Parse(`{"s":"F","msg":"request served","path":"/healthz"}` + "\n")
	if len(l.Events) != 1 || l.Events[0].Level == LevelFatal {
		t.Errorf("a record without MongoDB's c and ctx read as fatal: %s", dump(l))
	}
}
