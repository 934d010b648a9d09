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
		// github.com/pkg/errors' %+v in a logfmt value: the chain as %v
		// prints it, outermost first, without the frames.
		{"pkg-errors-stack-in-logfmt", "https://github.com/thanos-io/thanos/issues/7923",
			`ts=2024-11-18T12:02:06.440176004Z caller=main.go:174 level=error err="not uploading as no external labels are configured yet - is Prometheus healthy/reachable?\nmain.runSidecar.func12.1\n\t/app/cmd/thanos/sidecar.go:397\nruntime.goexit\n\t/usr/local/go/src/runtime/asm_amd64.s:1650\naborting as no external labels found after waiting 10m0s\nmain.runSidecar.func12\n\t/app/cmd/thanos/sidecar.go:401\nsidecar command failed\nmain.main\n\t/app/cmd/thanos/main.go:171"` + "\n",
			1, []string{"sidecar command failed: aborting as no external labels found after waiting 10m0s: not uploading as no external labels are configured yet - is Prometheus healthy/reachable?"}},
		// A value quoting the document it could not read keeps its last
		// line, the parser's verdict, however long the document.
		{"document-in-logfmt-value", "https://github.com/prometheus-operator/prometheus-operator/issues/7078",
			`ts=2024-11-18T11:52:06.444Z caller=sidecar.go:239 level=warn msg="failed to fetch initial external labels. Is Prometheus running? Retrying" err="parse Prometheus config: global:\n  scrape_interval: 30s\n  scrape_timeout: 10s\n  scrape_protocols:\n  - OpenMetricsText1.0.0\n  - PrometheusText1.0.0\n  evaluation_interval: 30s\nrule_files:\n- /etc/prometheus/rules/*.yaml\n: scrape_protocols: unknown scrape protocol PrometheusText1.0.0, supported: [OpenMetricsText0.0.1 OpenMetricsText1.0.0 PrometheusProto PrometheusText0.0.4] for global config"` + "\n",
			1, []string{"Retrying: parse Prometheus config: global:", "… : scrape_protocols: unknown scrape protocol PrometheusText1.0.0, supported: ["}},
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
