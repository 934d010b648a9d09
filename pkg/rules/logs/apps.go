package logs

import (
	"fmt"
	"regexp"
	"strings"
)

// appPatterns are the startup failures of widely deployed programs whose
// own wording names the cause and whose fix is known: Elasticsearch's
// bootstrap checks, PostgreSQL's and MySQL's refusal of a non-empty data
// directory, Rails's secret_key_base, Spring Boot's DataSource failure
// analysis. They rank above the generic classes: the program says exactly
// what it refuses.
var appPatterns = []Pattern{
	// A script saved with Windows line endings: the kernel reads the
	// shebang's interpreter as "/bin/bash\r" (bash: "/bin/bash^M: bad
	// interpreter: No such file or directory"; env: "/usr/bin/env:
	// 'bash\r': No such file or directory").
	{"ScriptLineEndings", regexp.MustCompile(`(\^M|\r): bad interpreter|/usr/bin/env: '[\w.-]+\r'`),
		"a script in the image has Windows line endings (CRLF): its shebang names an interpreter ending in a carriage return, which does not exist",
		"Convert the script to Unix line endings (dos2unix, or `* text=auto eol=lf` in .gitattributes so the checkout the image is built from has LF) and rebuild the image.", 96},
	// org.elasticsearch.bootstrap.BootstrapChecks: "bootstrap check failure
	// [1] of [1]: max virtual memory areas vm.max_map_count [65530] is too
	// low, increase to at least [262144]" (7.x: "[1]: max virtual …"); the
	// process then exits 78 (ExitCodes.CONFIG, sysexits' EX_CONFIG).
	{"BootstrapCheck", regexp.MustCompile(`max virtual memory areas vm\.max_map_count \[\d+\] is too low`),
		"Elasticsearch (or OpenSearch) refuses to start: its bootstrap check finds the node's vm.max_map_count kernel setting too low (it memory-maps its index files)",
		"Raise vm.max_map_count to at least 262144 on the nodes that run Elasticsearch: `sysctl -w vm.max_map_count=262144` (persisted in /etc/sysctl.d/), a DaemonSet that sets it, or a privileged init container in the pod running `sysctl -w vm.max_map_count=262144`. With ECK, node.store.allow_mmap: false avoids the check at some performance cost. vm.max_map_count is not a namespaced sysctl, so the pod's securityContext.sysctls cannot set it.", 97},
	{"BootstrapCheck", regexp.MustCompile(`max file descriptors \[\d+\] for (elasticsearch|opensearch) process is too low`),
		"Elasticsearch refuses to start: its bootstrap check finds the open-file limit (ulimit -n) of the process too low",
		"Raise the container runtime's nofile limit for the process to at least 65535 (containerd/docker default ulimits on the node, or LimitNOFILE of the runtime's systemd unit).", 97},
	{"BootstrapCheck", regexp.MustCompile(`memory locking requested for (elasticsearch|opensearch) process but memory is not locked`),
		"Elasticsearch refuses to start: bootstrap.memory_lock is true but the process may not lock its memory (memlock limit)",
		"Set bootstrap.memory_lock: false, or raise the memlock ulimit of the container runtime on the node to unlimited.", 97},
	{"BootstrapCheck", regexp.MustCompile(`the default discovery settings are unsuitable for production use`),
		"Elasticsearch refuses to start: none of discovery.seed_hosts, discovery.seed_providers and cluster.initial_master_nodes is set",
		"Set discovery.type=single-node for a one-node cluster, or discovery.seed_hosts and cluster.initial_master_nodes (the StatefulSet's pod names) for a multi-node one.", 97},
	{"BootstrapCheck", regexp.MustCompile(`max number of threads \[\d+\] for user \[\S+\] is too low`),
		"Elasticsearch refuses to start: its bootstrap check finds the process's thread limit (ulimit -u) too low",
		"Raise the nproc limit of the container runtime on the node to at least 4096.", 97},
	// PostgreSQL initdb (src/bin/initdb/initdb.c): `directory "%s" exists
	// but is not empty`, with the hint "It contains a lost+found directory,
	// perhaps due to it being a mount point." The root of a fresh ext4
	// volume holds lost+found.
	{"DataDirNotEmpty", regexp.MustCompile(`initdb: (?:error: )?directory "[^"]+" exists but is not empty`),
		"PostgreSQL's initdb refuses a data directory that is not empty: a volume mounted directly as PGDATA holds lost+found (or an earlier partial initialisation)",
		"Give initdb an empty directory: set PGDATA to a subdirectory of the mount (e.g. PGDATA=/var/lib/postgresql/data/pgdata), or mount the volume with subPath: pgdata. Do not delete lost+found or the volume's data.", 96},
	// MySQL's and MariaDB's refusals ("--initialize specified but the data
	// directory has files in it", MY-013236 "The designated data directory
	// %s is unusable") are the generic DataDirNotEmpty row's: both lines
	// rank alike there, so the one naming the directory is chosen.
	// Spring Boot's DataSourceBeanCreationFailureAnalyzer: "Failed to
	// configure a DataSource: 'url' attribute is not specified and no
	// embedded datasource could be configured."
	{"DataSourceURL", regexp.MustCompile(`Failed to configure a DataSource: '?url'? attribute is not specified`),
		"Spring Boot finds no spring.datasource.url: the application's configuration for this environment does not give the database URL (an unset SPRING_DATASOURCE_URL, or a profile that is not active)",
		"Give the application the database URL: set SPRING_DATASOURCE_URL (and SPRING_DATASOURCE_USERNAME/PASSWORD from a Secret) in the pod template's env, or activate the profile that defines spring.datasource.url with SPRING_PROFILES_ACTIVE.", 92},
}

// appLastPatterns rank as their generic class (MissingEnv) and come after
// it: a line the generic row takes keeps its generic explanation, and only
// the application's own wording lands here.
var appLastPatterns = []Pattern{
	// The official postgres and mysql/mariadb images' docker-entrypoint.sh
	// (docker-library/postgres, docker-library/mysql): an empty data
	// directory cannot be initialised without a superuser password.
	{"MissingEnv", regexp.MustCompile(`Database is uninitialized and superuser password is not specified`),
		"the postgres image initialises an empty data directory only with a superuser password, which POSTGRES_PASSWORD sets, and it is unset or empty",
		"Set POSTGRES_PASSWORD in the pod template's env from a Secret key (or POSTGRES_HOST_AUTH_METHOD, not recommended).", 90},
	{"MissingEnv", regexp.MustCompile(`Database is uninitialized and password option is not specified`),
		"the mysql/mariadb image initialises an empty data directory only with a root password option, and none of MYSQL_ROOT_PASSWORD (MARIADB_ROOT_PASSWORD), MYSQL_ALLOW_EMPTY_PASSWORD or MYSQL_RANDOM_ROOT_PASSWORD is set",
		"Set MYSQL_ROOT_PASSWORD (MariaDB: MARIADB_ROOT_PASSWORD) in the pod template's env from a Secret key.", 90},
	// activesupport EncryptedFile#handle_missing_key: "Missing encryption
	// key to decrypt file with. Ask your team for your master key and write
	// it to config/master.key or put it in the ENV['RAILS_MASTER_KEY']."
	{"MissingEnv", regexp.MustCompile(`Missing encryption key to decrypt file with`),
		"Rails cannot decrypt its credentials: RAILS_MASTER_KEY is not set and config/master.key is not in the image",
		"Set RAILS_MASTER_KEY in the pod template's env from a Secret key holding config/master.key's content.", 90},
	// Rails (railties Application#validate_secret_key_base): "Missing
	// `secret_key_base` for 'production' environment, set this string with
	// `bin/rails credentials:edit`" (5.2+), "… set this value in
	// `config/secrets.yml`" (4.1–5.1). Outside development Rails reads it
	// from ENV["SECRET_KEY_BASE"] or the encrypted credentials.
	{"MissingEnv", regexp.MustCompile("Missing `secret_key_base` for '[^']*' environment"),
		"Rails requires secret_key_base, which it reads from the SECRET_KEY_BASE environment variable (or the encrypted credentials, whose RAILS_MASTER_KEY is then needed), and neither is set",
		"Set SECRET_KEY_BASE in the pod template's env (valueFrom a Secret key; `bin/rails secret` generates one), or give the pod RAILS_MASTER_KEY so Rails can read it from config/credentials.yml.enc.", 90},
}

func init() { Patterns = append(append(appPatterns, Patterns...), appLastPatterns...) }

var (
	esMapCountRe = regexp.MustCompile(`vm\.max_map_count \[(\d+)\] is too low, increase to at least \[(\d+)\]`)
	esLimitRe    = regexp.MustCompile(`(max file descriptors|max number of threads) \[(\d+)\].*increase to at least \[(\d+)\]`)
	dataDirRe    = regexp.MustCompile(`directory "([^"]+)" exists but is not empty`)
	crlfScriptRe = regexp.MustCompile(`(?:bash|sh): (\S+): \S+(?:\^M|\r): bad interpreter`)
)

// appSubject names what an application pattern's line is about; "" when
// the line is not one of theirs.
func appSubject(class, line string) string {
	switch class {
	case "BootstrapCheck":
		if m := esMapCountRe.FindStringSubmatch(line); m != nil {
			return fmt.Sprintf("vm.max_map_count %s, at least %s required", m[1], m[2])
		}
		if m := esLimitRe.FindStringSubmatch(line); m != nil {
			return fmt.Sprintf("%s %s, at least %s required", m[1], m[2], m[3])
		}
	case "DataDirNotEmpty":
		if m := dataDirRe.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	case "MissingEnv":
		switch {
		case strings.Contains(line, "`secret_key_base`"):
			return "environment variable SECRET_KEY_BASE"
		case strings.Contains(line, "superuser password is not specified"):
			return "environment variable POSTGRES_PASSWORD"
		case strings.Contains(line, "Database is uninitialized and password option is not specified"):
			return "environment variable MYSQL_ROOT_PASSWORD"
		case strings.Contains(line, "Missing encryption key to decrypt file with"):
			return "environment variable RAILS_MASTER_KEY"
		}
	case "ScriptLineEndings":
		if m := crlfScriptRe.FindStringSubmatch(line); m != nil {
			return "script " + m[1]
		}
	case "DataSourceURL":
		return "spring.datasource.url ('url' attribute is not specified)"
	}
	return ""
}
