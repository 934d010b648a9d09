package logs

import (
	"strings"
	"testing"
)

// TestVersionMismatchOtherMaterial: version and compatibility messages
// naming both sides, from other programs and reports than the e2e
// scenarios, get VersionMismatch and a subject naming both sides; lines
// about versions that are no mismatch do not.
func TestVersionMismatchOtherMaterial(t *testing.T) {
	tests := []struct {
		name, source, log string
		class             Class
		names             []string // the subject (or, with no subject, the line) names each
	}{
		{"docker-client-too-old", "https://github.com/bitwarden/server/issues/6732 (Docker 29 raised the minimum API version)",
			"Error response from daemon: client version 1.42 is too old. Minimum supported API version is 1.44, please upgrade your client to a newer version\n",
			VersionMismatch, []string{"1.42", "too old", "1.44"}},
		{"docker-py-client-too-old", "https://github.com/dvddarias/docker-hoster/issues/23",
			"Traceback (most recent call last):\n  File \"/hoster.py\", line 180, in <module>\n    main()\n" +
				"docker.errors.APIError: 400 Client Error: Bad Request (\"client version 1.35 is too old. Minimum supported API version is 1.44, please upgrade your client to a newer version\")\n",
			VersionMismatch, []string{"1.35", "1.44"}},
		{"pymongo-wire-version", "https://github.com/ivre/ivre/pull/1248",
			"pymongo.errors.ConfigurationError: Server at localhost:27017 reports wire version 4, but this version of PyMongo requires at least 6 (MongoDB 3.6).\n",
			VersionMismatch, []string{"wire version 4", "PyMongo", "6", "MongoDB 3.6"}},
		{"php-mysqlnd-caching-sha2", "https://github.com/phpmyadmin/phpmyadmin/issues/16016 and https://github.com/cesurapp/pd-user/issues/2",
			"  PDO::__construct(): The server requested authentication method unknown to the client [caching_sha2_password]  \n",
			VersionMismatch, []string{"caching_sha2_password"}},
		{"jasync-unknown-auth-method", "https://github.com/halo-dev/halo/issues/3122",
			"2023-01-10T10:12:01.118+08:00 ERROR 7 --- [actor-tcp-nio-1] reactor.core.publisher.Operators : Operator called default onErrorDropped\n" +
				"com.github.jasync.sql.db.exceptions.DatabaseException: Unknown authentication method -> 'caching_sha2_password'\n" +
				"\tat com.github.jasync.sql.db.mysql.MySQLConnection.connect(MySQLConnection.kt:120) ~[jasync-mysql-2.1.7.jar:na]\n" +
				"Caused by: com.github.jasync.sql.db.exceptions.UnsupportedAuthenticationMethodException: Unknown authentication method -> 'caching_sha2_password'\n" +
				"\tat com.github.jasync.sql.db.mysql.encoder.HandshakeResponseEncoder.encode(HandshakeResponseEncoder.kt:33) ~[jasync-mysql-2.1.7.jar:na]\n",
			VersionMismatch, []string{"caching_sha2_password"}},
		{"postgres-fatal-detail-16-vs-18", "https://github.com/sourcebot-dev/sourcebot/issues/768 (a generic line follows the FATAL/DETAIL pair)",
			"2026-01-21 15:22:52.902 UTC [79] FATAL:  database files are incompatible with server\n" +
				"2026-01-21 15:22:52.902 UTC [79] DETAIL:  The data directory was initialized by PostgreSQL version 16, which is not compatible with this version 18.1.\n" +
				"postgres failed to run\n",
			VersionMismatch, []string{"PostgreSQL 16", "18.1"}},
		{"java-class-file-version", "https://github.com/Erikvl87/docker-languagetool/issues/109 (image tag 6.6 built for Java 17 on a Java 11 runtime)",
			"+ exec java -Xms512m -Xmx3g -cp languagetool-server.jar org.languagetool.server.HTTPServer --port 8010 --public --allow-origin '*' --config config.properties\n" +
				"Error: LinkageError occurred while loading main class org.languagetool.server.HTTPServer\n" +
				"\tjava.lang.UnsupportedClassVersionError: org/languagetool/server/HTTPServer has been compiled by a more recent version of the Java Runtime (class file version 61.0), this version of the Java Runtime only recognizes class file versions up to 55.0\n",
			VersionMismatch, []string{"61.0", "55.0"}},
		// Negative: versions named, nothing incompatible.
		{"redis-version-banner-then-fork-enomem", "redis src/server.c version banner and src/rdb.c rdbSaveBackground 'Can't save in background: fork: %s'",
			"1:C 09 May 2025 12:44:40.227 * Redis version=7.2.8, bits=64, commit=00000000, modified=0, pid=1, just started\n" +
				"1:M 09 May 2025 12:44:41.001 # Can't save in background: fork: Cannot allocate memory\n",
			OutOfMemory, nil},
		{"dockerd-version-then-pidfile", "moby daemon: the 'Docker daemon' record with its version, then cmd/dockerd 'pid file found, ensure docker is not running or delete'",
			"time=\"2024-02-01T10:00:00Z\" level=info msg=\"Docker daemon\" commit=311b9ff graphdriver=overlay2 version=24.0.7\n" +
				"time=\"2024-02-01T10:00:01Z\" level=fatal msg=\"failed to start daemon: pid file found, ensure docker is not running or delete /var/run/docker.pid\"\n",
			FatalError, nil},
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
			what := d.Subject
			if what == "" {
				what = d.Line
			}
			for _, n := range tt.names {
				if !strings.Contains(what, n) {
					t.Errorf("%q does not name %q", what, n)
				}
			}
		})
	}
}
