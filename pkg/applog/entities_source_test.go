package applog

import (
	"slices"
	"testing"
)

// TestExtractSourceLocation: a logger header's file:line is no endpoint.
// Python's logging "%(filename)s:%(lineno)d" as Dify's worker prints it
// (https://github.com/langgenius/dify/issues/14810) and Airflow's task log
// ("[2021-01-04 09:50:05,123] {taskinstance.py:1150} ERROR"), against a
// real host:port on the same line.
func TestExtractSourceLocation(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"ERROR [MainThread] [consumer.py:493] - consumer: Cannot connect to amqp://guest:**@127.0.0.1:5672//: [Errno 111] Connection refused.", []string{"127.0.0.1:5672"}},
		{"{taskinstance.py:1150} ERROR - could not connect to server: Connection refused to postgres:5432", []string{"postgres:5432"}},
		{"main.go:51: dial tcp db:5432: connect: connection refused", []string{"db:5432"}},
		// CPython's ssl module cites its C source ("(_ssl.c:1000)"), as
		// bunkerity/bunkerweb#1301 records it: no peer, the URL's host is.
		{"Max retries exceeded with url: /api/v1/pods (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get issuer certificate (_ssl.c:1000)')))", nil},
		{"HTTPSConnectionPool(host='10.96.0.1', port=443): Max retries exceeded (Caused by SSLError(SSLCertVerificationError(1, 'certificate verify failed (_ssl.c:1000)')))", nil},
		// A host whose last label is a TLD, not a source extension, stays.
		{"dial tcp api.example.io:443: i/o timeout", []string{"api.example.io:443"}},
	} {
		if got := Extract(tt.line).Endpoints; !slices.Equal(got, tt.want) {
			t.Errorf("Extract(%q).Endpoints = %v, want %v", tt.line, got, tt.want)
		}
	}
}
