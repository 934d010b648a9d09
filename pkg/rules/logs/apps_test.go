package logs

import (
	"strings"
	"testing"
)

// TestAppPatterns: the startup refusals of real programs, in their own
// words, are the decisive line and name what they refuse; a generic line
// of the same class keeps its generic explanation. Sources:
//   - Elasticsearch BootstrapChecks (server/src/main/java/org/elasticsearch/
//     bootstrap/BootstrapChecks.java) as printed by 8.x and 7.x images;
//   - PostgreSQL src/bin/initdb/initdb.c (pg 11+ "initdb: error:", older
//     "initdb: directory … exists but is not empty");
//   - MySQL sql/mysqld.cc "--initialize specified but the data directory has
//     files in it. Aborting.";
//   - railties lib/rails/application.rb validate_secret_key_base (5.2+ and
//     the 4.1–5.1 wording);
//   - Spring Boot DataSourceBeanCreationFailureAnalyzer's Description;
//   - the postgres/mysql images' docker-entrypoint.sh, activesupport's
//     EncryptedFile (RAILS_MASTER_KEY).
func TestAppPatterns(t *testing.T) {
	tests := []struct {
		log     string
		class   Class
		subject string
	}{
		{"ERROR: [1] bootstrap checks failed. You must address the points described in the following [1] lines before starting Elasticsearch.\n" +
			"bootstrap check failure [1] of [1]: max virtual memory areas vm.max_map_count [65530] is too low, increase to at least [262144]\n" +
			"ERROR: Elasticsearch did not exit normally - check the logs at /usr/share/elasticsearch/logs/docker-cluster.log\n",
			"BootstrapCheck", "vm.max_map_count 65530, at least 262144 required"},
		{"ERROR: [1] bootstrap checks failed\n[1]: max virtual memory areas vm.max_map_count [65530] is too low, increase to at least [262144]\n",
			"BootstrapCheck", "vm.max_map_count 65530"},
		{"[1]: max file descriptors [4096] for elasticsearch process is too low, increase to at least [65535]\n", "BootstrapCheck", "max file descriptors 4096, at least 65535"},
		{"initdb: error: directory \"/var/lib/postgresql/data\" exists but is not empty\nIt contains a lost+found directory, perhaps due to it being a mount point.\n",
			"DataDirNotEmpty", "/var/lib/postgresql/data"},
		{"initdb: directory \"/var/lib/postgresql/data/pgdata\" exists but is not empty\nIf you want to create a new database system, either remove or empty\n",
			"DataDirNotEmpty", "/var/lib/postgresql/data/pgdata"},
		{"2024-01-01T00:00:00.000000Z 0 [ERROR] [MY-010457] [Server] --initialize specified but the data directory has files in it. Aborting.\n", "DataDirNotEmpty", ""},
		{"/usr/local/bundle/gems/railties-7.1.3/lib/rails/application.rb:665:in `validate_secret_key_base': Missing `secret_key_base` for 'prod_k8s' environment, set this string with `bin/rails credentials:edit` (ArgumentError)\n\tfrom /app/app/models/app_token.rb:2:in `<class:AppToken>'\n",
			"MissingEnv", "environment variable SECRET_KEY_BASE"},
		{"/usr/local/bundle/gems/railties-5.0.7/lib/rails/application.rb:569:in `validate_secret_key_config!': Missing `secret_key_base` for 'production' environment, set this value in `config/secrets.yml` (RuntimeError)\n",
			"MissingEnv", "environment variable SECRET_KEY_BASE"},
		{"APPLICATION FAILED TO START\n\nDescription:\n\nFailed to configure a DataSource: 'url' attribute is not specified and no embedded datasource could be configured.\n\nReason: Failed to determine a suitable driver class\n",
			"DataSourceURL", "spring.datasource.url"},
		// docker-library/postgres and docker-library/mysql entrypoints;
		// activesupport EncryptedFile#handle_missing_key.
		{"Error: Database is uninitialized and superuser password is not specified.\n       You must specify POSTGRES_PASSWORD to a non-empty value for the\n       superuser. For example, \"-e POSTGRES_PASSWORD=password\" on \"docker run\".\n",
			"MissingEnv", "environment variable POSTGRES_PASSWORD"},
		{"2024-01-10 09:00:01+00:00 [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified\n    You need to specify one of the following as an environment variable:\n    - MYSQL_ROOT_PASSWORD\n",
			"MissingEnv", "environment variable MYSQL_ROOT_PASSWORD"},
		{"/usr/local/bundle/gems/activesupport-7.0.4/lib/active_support/encrypted_file.rb:78:in `handle_missing_key': Missing encryption key to decrypt file with. Ask your team for your master key and write it to /app/config/master.key or put it in the ENV['RAILS_MASTER_KEY']. (ActiveSupport::EncryptedFile::MissingKeyError)\n",
			"MissingEnv", "environment variable RAILS_MASTER_KEY"},
		// A generic missing variable keeps the generic row.
		{"FATAL: KAFKA_BROKERS is not set\n", "MissingEnv", "environment variable KAFKA_BROKERS"},
	}
	for _, tt := range tests {
		d := FindDecisive(tt.log)
		if d == nil || d.Pattern.Class != tt.class {
			t.Errorf("%q: got %+v, want class %s", tt.log, d, tt.class)
			continue
		}
		if got := SubjectOf(d.Pattern.Class, d.Line); !strings.Contains(got, tt.subject) {
			t.Errorf("%q: subject %q, want %q", tt.log, got, tt.subject)
		}
		if tt.class == "MissingEnv" && strings.Contains(tt.subject, "KAFKA") && strings.Contains(d.Pattern.Explains, "Rails") {
			t.Errorf("a generic missing variable got the Rails explanation")
		}
	}
}
