package applog

import (
	"strings"
	"testing"
)

// TestWholeEvents: the lines that finish a multi-line error's fact are one
// event with it, and its one-line text carries them; the record after it
// stays its own event.
func TestWholeEvents(t *testing.T) {
	tests := []struct {
		name, source, log string
		events            int      // events the log parses into
		first             []string // the first event's text holds each
	}{
		{"go-yaml-list", "https://github.com/jaksi/sshesame/issues/71",
			"ERROR 2021/08/16 15:45:43 Failed to get config: yaml: unmarshal errors:\n  line 9: field debug not found in type main.loggingConfig\n",
			1, []string{"unmarshal errors: line 9: field debug"}},
		{"multierror-after-blank", "https://github.com/open-telemetry/opentelemetry-collector/issues/10034 (the item line) under the header and closing line of https://github.com/open-telemetry/opentelemetry-collector/issues/5605",
			"Error: failed to get config: cannot unmarshal the configuration: 1 error(s) decoding:\n\n" +
				"* error decoding 'receivers': unknown type: \"mongodbatlas\" for id: \"mongodbatlas\" (valid values: [zipkin nop otlp hostmetrics jaeger kafka opencensus prometheus])\n" +
				"2024/04/25 11:54:01 collector server run finished with error: failed to get config\n",
			2, []string{"decoding: * error decoding 'receivers': unknown type: \"mongodbatlas\""}},
		{"postgres-fatal-detail-hint", "https://github.com/PostgresApp/PostgresApp/issues/528",
			"2019-10-10 16:14:42.538 MSK [9590] FATAL:  database files are incompatible with server\n" +
				"2019-10-10 16:14:42.538 MSK [9590] DETAIL:  The database cluster was initialized with CATALOG_VERSION_NO 201907221, but the server was compiled with CATALOG_VERSION_NO 201909212.\n" +
				"2019-10-10 16:14:42.538 MSK [9590] HINT:  It looks like you need to initdb.\n" +
				"2019-10-10 16:14:42.538 MSK [9590] LOG:  database system is shut down\n",
			2, []string{"incompatible with server DETAIL:  The database cluster", "HINT:  It looks like you need to initdb."}},
		{"pydantic-field-list", "https://github.com/jag-k/pydantic-settings-export/issues/3",
			"Traceback (most recent call last):\n  File \"/app/main.py\", line 3, in <module>\n    settings = Settings()\n" +
				"pydantic_core._pydantic_core.ValidationError: 2 validation errors for Settings\n" +
				"client_id\n  Field required [type=missing, input_value={}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.7/v/missing\n" +
				"client_secret\n  Field required [type=missing, input_value={}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.7/v/missing\n",
			1, []string{"for Settings: client_id: Field required; client_secret: Field required"}},
		// Negative: undated plain lines after an error that is no list
		// header or exception stay their own events.
		{"plain-lines-stay-apart", "nginx docker-entrypoint.sh output",
			"/docker-entrypoint.sh: Configuration complete; ready for start up\n" +
				"nginx: [emerg] host not found in upstream \"backend\" in /etc/nginx/conf.d/default.conf:3\n" +
				"10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6\n",
			3, []string{"Configuration complete"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := Parse(tt.log)
			if len(l.Events) != tt.events {
				var got []string
				for i := range l.Events {
					got = append(got, l.Events[i].Text())
				}
				t.Fatalf("%d events, want %d (%s): %q", len(l.Events), tt.events, tt.source, got)
			}
			text := l.Events[0].Text()
			for _, s := range tt.first {
				if !strings.Contains(text, s) {
					t.Errorf("first event %q does not hold %q", text, s)
				}
			}
		})
	}
}
