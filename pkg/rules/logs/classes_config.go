package logs

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// The application's configuration is missing or wrong: a variable, a
// file, an argument, a setting.
const (
	MissingEnv    Class = "MissingEnv"
	MissingFile   Class = "MissingFile"
	InvalidConfig Class = "InvalidConfig"
	DataSourceURL Class = "DataSourceURL"
)

var _ = register(Def{
	Class: MissingEnv,
	Patterns: []Pattern{
		// Go configuration libraries word it their own way: envconfig's
		// "required key X missing value", go-envconfig's "X: missing
		// required value"; the same words arrive inside a JSON log line.
		// Case-sensitive for the name: "password is required" names no
		// variable.
		{re: regexp.MustCompile(`required key "?[A-Z_][A-Z0-9_]*"? missing value|"?[A-Z_][A-Z0-9_]*"?:? missing required value|missing required value:? "?[A-Z_][A-Z0-9_]*"?|(?i:env(?:ironment)?(?: var(?:iable)?)?)\s+"?[A-Z_][A-Z0-9_]*"?\s+(?i:(?:is\s+)?(?:not set|unset|missing|empty|required))|(?i:(?:required|missing|mandatory)\s+env(?:ironment)?(?: var(?:iable)?)?)\s+"?[A-Z_][A-Z0-9_]*"?|"?[A-Z][A-Z0-9_]{2,}"?\s+(?i:(?:env(?:ironment)? var(?:iable)?\s+)?(?:is\s+)?(?:not set|must be set|is required|is empty))`),
			Explains: "the application requires an environment variable that is unset or empty",
			Fix:      "Set the variable in the pod template (env or envFrom), or fix the ConfigMap/Secret it is read from.", Priority: 90},
		// A program that found no value and names the variable to set:
		// OpenSearch 2.12's demo installer, "No custom admin password
		// found. Please provide a password via the environment variable
		// OPENSEARCH_INITIAL_ADMIN_PASSWORD."
		{re: regexp.MustCompile(`(?i:\b(?:no|missing)\b[^.\n]{0,60}\b(?:found|provided|given|set|specified)\b)[^\n]{0,40}?(?i:provide|set|define|specify)[^\n]{0,60}?(?i:environment variable|env var(?:iable)?)\s+['"]?[A-Z][A-Z0-9_]{2,}`),
			Explains: "the application found no value for a setting and names the environment variable that must provide it",
			Fix:      "Set the variable in the pod template (env or envFrom), from a Secret key for a password.", Priority: 90},
		// The applications' own wordings rank as the generic row and come
		// after it: a line the generic row takes keeps its generic
		// explanation, and only the application's own wording lands here.
		// The official postgres and mysql/mariadb images'
		// docker-entrypoint.sh (docker-library/postgres,
		// docker-library/mysql): an empty data directory cannot be
		// initialised without a superuser password.
		{re: regexp.MustCompile(`Database is uninitialized and superuser password is not specified`),
			Explains: "the postgres image initialises an empty data directory only with a superuser password, which POSTGRES_PASSWORD sets, and it is unset or empty",
			Fix:      "Set POSTGRES_PASSWORD in the pod template's env from a Secret key (or POSTGRES_HOST_AUTH_METHOD, not recommended).", Priority: 90},
		{re: regexp.MustCompile(`Database is uninitialized and password option is not specified`),
			Explains: "the mysql/mariadb image initialises an empty data directory only with a root password option, and none of MYSQL_ROOT_PASSWORD (MARIADB_ROOT_PASSWORD), MYSQL_ALLOW_EMPTY_PASSWORD or MYSQL_RANDOM_ROOT_PASSWORD is set",
			Fix:      "Set MYSQL_ROOT_PASSWORD (MariaDB: MARIADB_ROOT_PASSWORD) in the pod template's env from a Secret key.", Priority: 90},
		// activesupport EncryptedFile#handle_missing_key: "Missing
		// encryption key to decrypt file with. Ask your team for your
		// master key and write it to config/master.key or put it in the
		// ENV['RAILS_MASTER_KEY']."
		{re: regexp.MustCompile(`Missing encryption key to decrypt file with`),
			Explains: "Rails cannot decrypt its credentials: RAILS_MASTER_KEY is not set and config/master.key is not in the image",
			Fix:      "Set RAILS_MASTER_KEY in the pod template's env from a Secret key holding config/master.key's content.", Priority: 90},
		// Rails (railties Application#validate_secret_key_base): "Missing
		// `secret_key_base` for 'production' environment, set this string
		// with `bin/rails credentials:edit`" (5.2+), "… set this value in
		// `config/secrets.yml`" (4.1–5.1). Outside development Rails reads
		// it from ENV["SECRET_KEY_BASE"] or the encrypted credentials.
		{re: regexp.MustCompile("Missing `secret_key_base` for '[^']*' environment"),
			Explains: "Rails requires secret_key_base, which it reads from the SECRET_KEY_BASE environment variable (or the encrypted credentials, whose RAILS_MASTER_KEY is then needed), and neither is set",
			Fix:      "Set SECRET_KEY_BASE in the pod template's env (valueFrom a Secret key; `bin/rails secret` generates one), or give the pod RAILS_MASTER_KEY so Rails can read it from config/credentials.yml.enc.", Priority: 90},
		// pydantic-settings' BaseSettings reads each field from the
		// environment variable of its name (any case): a required field
		// found nowhere is "Field required [type=missing, …]" (v2; "field
		// required (type=value_error.missing)" in v1) under "N validation
		// errors for Settings", one field per line (applog joins them).
		{re: pydanticMissingRe,
			Explains: "the application's settings model (pydantic BaseSettings) lacks required fields, which it reads from environment variables of the same names",
			Fix:      "Set each missing field as an environment variable (its name in any case, after the model's env_prefix if it has one) in the pod template's env, or envFrom the ConfigMap/Secret that should hold it.", Priority: 90},
	},
	Signals: []applog.Signal{applog.SigMissingEnv},
	// The kubelet leaves "$(VAR)" in command and args as is when VAR is not
	// in the container's env: a program printing the literal was handed an
	// undefined variable.
	Also: varRefRe.MatchString,
	Subject: func(line string) string {
		// The applications' own rows name the variable by what they lack.
		switch {
		case strings.Contains(line, "`secret_key_base`"):
			return "environment variable SECRET_KEY_BASE"
		case strings.Contains(line, "superuser password is not specified"):
			return "environment variable POSTGRES_PASSWORD"
		case strings.Contains(line, "Database is uninitialized and password option is not specified"):
			return "environment variable MYSQL_ROOT_PASSWORD"
		case strings.Contains(line, "Missing encryption key to decrypt file with"):
			return "environment variable RAILS_MASTER_KEY"
		case pydanticMissingRe.MatchString(line):
			return pydanticFields(line)
		}
		if m, ok := submatch.Find(varRefRe, line); ok {
			return "environment variable " + m.Get("name")
		}
		if v := applog.Extract(line).EnvVars; len(v) > 0 {
			return "environment variable " + v[0]
		}
		for _, m := range envNameRe.FindAllString(line, -1) {
			switch m {
			case "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "ENV", "PANIC", "CRITICAL":
				continue
			}
			return "environment variable " + m
		}
		return ""
	},
})

var (
	varRefRe  = regexp.MustCompile(`\$\((?P<name>[A-Za-z_][A-Za-z0-9_]*)\)`)
	envNameRe = regexp.MustCompile(`\b([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{3,})\b`)
)

var _ = register(Def{
	Class: MissingFile,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)((no such file or directory|cannot find|could not find|not found|failed to (open|read|load)|unable to (open|read|load))[^\n]*(\.ya?ml|\.json|\.conf|\.toml|\.ini|\.properties|\.cfg|\.env|config)|(open|stat|read) [^\s:]+: no such file or directory)`),
		Explains: "the application cannot find a file it needs (usually a config file expected from a mounted ConfigMap/Secret)",
		Fix:      "Mount the file (ConfigMap/Secret volume with the right key and mountPath) or correct the path the application reads.", Priority: 85}},
	Signals:    []applog.Signal{applog.SigMissingFile},
	BroadWords: true,
	// The last path is the one the error is about: in "/bin/sh:
	// /app/run.sh: Permission denied" the shell only reports it.
	Subject: lastPath,
})

// Exit code 2's usual reason: an unknown flag, an unparsable value.
var _ = register(Def{
	Class: InvalidConfig,
	Patterns: []Pattern{{
		Explains: "the application rejects its command-line arguments or configuration",
		Fix:      "Correct the container's command/args (or the config file it parses) to what this version of the program accepts; a literal $(VAR) in an argument means VAR is not defined in the container's env.", Priority: 72}},
	Signals:    []applog.Signal{applog.SigConfig},
	NamesImage: true, // the image decides: the flags and settings its release accepts
	Subject: func(line string) string {
		// Redis's FATAL CONFIG FILE ERROR, as applog words its headline.
		if m, ok := submatch.Find(directiveRe, line); ok {
			return m.Get("directive")
		}
		// Spring Boot's failure analysis says where a bad value came from:
		// "Origin: System Environment Property "SERVER_PORT"".
		if m, ok := submatch.Find(envOriginRe, line); ok {
			return "environment variable " + m.Get("name") + serviceLink(m.Get("name"), line)
		}
		if m, ok := submatch.Find(settingRe, line); ok {
			return "setting " + m.Get("name")
		}
		// A decoder's first item, as applog joins the list under its
		// header (decoder_item.go).
		if item := decoderItem(line); item != "" {
			return item
		}
		if m, ok := submatch.Find(nullParamRe, line); ok {
			return "configuration value " + m.Get("param") + " (null)"
		}
		if m, ok := submatch.Find(clusterIDRe, line); ok {
			return "cluster.id of " + m.Get("file")
		}
		return ""
	},
})

var (
	directiveRe = regexp.MustCompile(`\((?P<directive>config directive '[^']*'(?: at line \d+)?)\)`)
	linkValueRe = regexp.MustCompile(`tcp://\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}`)
	envOriginRe = regexp.MustCompile(`Origin: System Environment Property "(?P<name>[A-Za-z_][A-Za-z0-9_]*)"`)
	// Django's checks: "The SECRET_KEY setting must not be empty.",
	// "settings.DATABASES is improperly configured".
	settingRe   = regexp.MustCompile(`The (?P<name>[A-Z][A-Z0-9_]+) setting must|settings\.(?P<name>[A-Z][A-Z0-9_]+) is improperly configured`)
	nullParamRe = regexp.MustCompile(`Value cannot be null\. \(Parameter '(?P<param>[\w]+)'\)`)
	clusterIDRe = regexp.MustCompile(`Invalid cluster\.id in:? (?P<file>\S+?)\.?(?:\s|$)`)
)

// serviceLink says where a bad <NAME>_PORT value came from when it is a
// Service link: the kubelet sets <SVC>_PORT=tcp://<clusterIP>:<port> for
// every Service of the namespace (pkg/kubelet/envvars), so a Service named
// "server" hands Spring Boot's server.port (relaxed binding of SERVER_PORT)
// a URL instead of a number.
func serviceLink(name, line string) string {
	svc, ok := strings.CutSuffix(name, "_PORT")
	if !ok || svc == "" {
		return ""
	}
	v := linkValueRe.FindString(line)
	if v == "" {
		return ""
	}
	return "=" + v + ", the Service link Kubernetes sets for a Service named " + strings.ToLower(strings.ReplaceAll(svc, "_", "-")) +
		"; enableServiceLinks: false in the pod spec, or another Service name, avoids it"
}

// Spring Boot's DataSourceBeanCreationFailureAnalyzer: "Failed to
// configure a DataSource: 'url' attribute is not specified and no embedded
// datasource could be configured."
var _ = register(Def{
	Class: DataSourceURL,
	Patterns: []Pattern{{re: regexp.MustCompile(`Failed to configure a DataSource: '?url'? attribute is not specified`),
		Explains: "Spring Boot finds no spring.datasource.url: the application's configuration for this environment does not give the database URL (an unset SPRING_DATASOURCE_URL, or a profile that is not active)",
		Fix:      "Give the application the database URL: set SPRING_DATASOURCE_URL (and SPRING_DATASOURCE_USERNAME/PASSWORD from a Secret) in the pod template's env, or activate the profile that defines spring.datasource.url with SPRING_PROFILES_ACTIVE.", Priority: 92}},
	Subject: func(string) string { return "spring.datasource.url ('url' attribute is not specified)" },
})
