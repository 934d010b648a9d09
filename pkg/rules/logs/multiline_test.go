package logs

import (
	"strings"
	"testing"
)

// TestMultiLineKeptWhole: errors whose fact is on the lines after their
// first (a decoder's error list, a wrapped multi-error's "* " items, in
// plain text or inside a JSON error field, pydantic's per-field list, a
// Java message continued before its frames) are read whole, from other
// programs than the e2e scenarios; lines that only look like a list header
// do not swallow what follows.
func TestMultiLineKeptWhole(t *testing.T) {
	tests := []struct {
		name, source, log string
		class             Class
		names             []string // the decisive line names each
		subject           string   // and its subject contains this
	}{
		{"go-yaml-field-not-found", "https://github.com/jaksi/sshesame/issues/71",
			"ERROR 2021/08/16 15:45:43 Failed to get config: yaml: unmarshal errors:\n  line 9: field debug not found in type main.loggingConfig\n",
			InvalidConfig, []string{"line 9", "main.loggingConfig"}, "line 9: field debug not found in type main.loggingConfig"},
		{"go-yaml-cannot-unmarshal-seq", "https://github.com/cosmos/relayer/issues/794",
			"Error unmarshalling config: yaml: unmarshal errors:\n  line 6: cannot unmarshal !!seq into map[string]*cmd.ProviderConfigYAMLWrapper\n" +
				"Error: yaml: unmarshal errors:\n  line 6: cannot unmarshal !!seq into map[string]*cmd.ProviderConfigYAMLWrapper\n",
			InvalidConfig, []string{"line 6", "ProviderConfigYAMLWrapper"}, "line 6: cannot unmarshal !!seq into map[string]*cmd.ProviderConfigYAMLWrapper"},
		{"mapstructure-list-in-json-error-field", "https://github.com/SigNoz/signoz/issues/4012",
			`{"level":"error","timestamp":"2023-11-23T18:49:32.178Z","caller":"opamp/server_client.go:261","msg":"Collector failed for restart during rollback","component":"opamp-server-client","error":"failed to get config: cannot unmarshal the configuration: 1 error(s) decoding:\n\n* error decoding 'receivers': error reading configuration for \"httpcheck\": 1 error(s) decoding:\n\n* '' has invalid keys: endpoint, method"}` + "\n",
			InvalidConfig, []string{"httpcheck", "invalid keys: endpoint, method"}, "'' has invalid keys: endpoint, method"},
		{"pydantic-settings-two-missing", "https://github.com/shamhi/YesCoinBot/issues/16 and https://github.com/shamhi/MemeFiBot/issues/142",
			"Traceback (most recent call last):\n" +
				"  File \"/app/main.py\", line 4, in <module>\n    from bot.utils.launcher import process\n" +
				"  File \"/app/bot/config/config.py\", line 34, in <module>\n    settings = Settings()\n" +
				"  File \"/usr/local/lib/python3.10/site-packages/pydantic_settings/main.py\", line 84, in __init__\n    super().__init__(\n" +
				"  File \"/usr/local/lib/python3.10/site-packages/pydantic/main.py\", line 171, in __init__\n    self.__pydantic_validator__.validate_python(data, self_instance=self)\n" +
				"pydantic_core._pydantic_core.ValidationError: 2 validation errors for Settings\n" +
				"API_ID\n  Field required [type=missing, input_value={}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.7/v/missing\n" +
				"API_HASH\n  Field required [type=missing, input_value={}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.7/v/missing\n",
			MissingEnv, []string{"API_ID: Field required", "API_HASH"}, "environment variables API_ID, API_HASH"},
		// A wrong value is no missing variable.
		{"pydantic-settings-bad-bool", "https://github.com/langflow-ai/langflow/issues/1470",
			"  File \"/usr/local/lib/python3.10/site-packages/pydantic/main.py\", line 171, in __init__\n" +
				"Traceback (most recent call last):\n" +
				"  File \"/usr/local/lib/python3.10/site-packages/pydantic_settings/main.py\", line 84, in __init__\n    super().__init__(\n" +
				"pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings\n" +
				"REMOVE_API_KEYS\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value='', input_type=str]\n" +
				"    For further information visit https://errors.pydantic.dev/2.6/v/bool_parsing\n",
			InvalidConfig, []string{"REMOVE_API_KEYS: Input should be a valid boolean"}, ""},
		{"flyway-caused-by-one-line", "https://github.com/flyway/flyway/issues/1024",
			"Caused by: org.flywaydb.core.api.FlywayException: Validate failed. Detected resolved migration not applied to database: -20150523.01.34.00.00\n" +
				"\tat org.flywaydb.core.Flyway.doValidate(Flyway.java:1108) ~[flyway-core-3.2.1.jar:?]\n" +
				"\tat org.flywaydb.core.Flyway.access$300(Flyway.java:62) ~[flyway-core-3.2.1.jar:?]\n",
			Migration, []string{"not applied to database: -20150523.01.34.00.00"}, ""},
		// PostgreSQL's DETAIL and HINT are read with their FATAL line.
		{"postgres-catalog-version-detail-hint", "https://github.com/PostgresApp/PostgresApp/issues/528",
			"2019-10-10 16:14:42.538 MSK [9590] FATAL:  database files are incompatible with server\n" +
				"2019-10-10 16:14:42.538 MSK [9590] DETAIL:  The database cluster was initialized with CATALOG_VERSION_NO 201907221, but the server was compiled with CATALOG_VERSION_NO 201909212.\n" +
				"2019-10-10 16:14:42.538 MSK [9590] HINT:  It looks like you need to initdb.\n" +
				"2019-10-10 16:14:42.538 MSK [9590] LOG:  database system is shut down\n",
			VersionMismatch, []string{"CATALOG_VERSION_NO 201907221", "It looks like you need to initdb"}, ""},
		// Negative: a header ending in a colon that is no error does not
		// take the lines under it; the fatal line after it is decisive.
		{"info-header-then-fatal", "nginx docker-entrypoint.sh's 'info:' lines and an [emerg] (nginx src/core/ngx_conf_file.c)",
			"/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/\n" +
				"  10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf\n" +
				"2023/06/12 10:16:53 [emerg] 1#1: unknown directive \"proxy_pas\" in /etc/nginx/conf.d/default.conf:12\n" +
				"nginx: [emerg] unknown directive \"proxy_pas\" in /etc/nginx/conf.d/default.conf:12\n",
			InvalidConfig, []string{"unknown directive \"proxy_pas\""}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := FindDecisive(tt.log)
			if d == nil {
				t.Fatalf("no decisive line (%s)", tt.source)
			}
			if d.Pattern.Class != tt.class {
				t.Fatalf("class %s for %q, want %s (%s)", d.Pattern.Class, d.Line, tt.class, tt.source)
			}
			for _, n := range tt.names {
				if !strings.Contains(d.Line, n) {
					t.Errorf("%q does not name %q", d.Line, n)
				}
			}
			if !strings.Contains(d.Subject, tt.subject) {
				t.Errorf("subject %q, want it to name %q", d.Subject, tt.subject)
			}
		})
	}
}
