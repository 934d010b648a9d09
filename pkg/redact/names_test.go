package redact

import (
	"strings"
	"testing"
)

func TestIsSensitiveName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		// Strong words, in every spelling a name takes.
		{"DB_PASSWORD", true},
		{"password", true},
		{"PASSWORD2", true},
		{"MYSQL_ROOT_PASSWORD", true},
		{"spring.datasource.password", true},
		{"dbPassword", true},
		{"dbpassword", true},
		{"DB_PASSWD", true},
		{"GITHUB_TOKEN", true},
		{"oauth2Token", true},
		{"AWS_SESSION_TOKEN", true},
		{"csrftoken", true},
		{"CLIENT_SECRET", true},
		{"clientSecret", true},
		{"OAUTH_CLIENT_SECRET", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"aws_secret_access_key", true},
		{"SECRET_KEY_BASE", true},
		{"DB_PASSWORD_PROD", true},
		{"SSH_PASSPHRASE", true},
		{"GOOGLE_CREDENTIALS", true},
		{"DB_CREDS", true},
		{"Authorization", true},
		{"Proxy-Authorization", true},
		{"AUTH_TOKEN", true},
		{"auth", true},
		{"Cookie", true},
		{"Set-Cookie", true},
		{"SESSION_SECRET", true},
		{"PASSWORD_HASH", true},
		{"--db-password", true},
		{"Djavax.net.ssl.keyStorePassword", true},
		{"X-Amz-Signature", true},
		{"X-Amz-Credential", true},
		{"sig", true},

		// Weak words need a qualifier before them.
		{"API_KEY", true},
		{"apiKey", true},
		{"APIKey", true},
		{"APIKEY", true},
		{"x-api-key", true},
		{"STRIPE_API_KEYS", true},
		{"ACCESS_KEY", true},
		{"PRIVATE_KEY", true},
		{"privateKey", true},
		{"tls.key", true},
		{"ssh-privatekey", true},
		{"ENCRYPTION_KEY", true},
		{"PRIMARY_KEY", true}, // Azure account keys
		{"DB_PWD", true},
		{"SMTP_PASS", true},
		{"REDIS_PW", true},
		{"key", false},
		{"KEY", false},
		{"keys", false},
		{"KEY_VAULT", false},
		{"PWD", false}, // the working directory
		{"OLDPWD", false},
		{"PASS", false}, // "--- PASS: TestFoo"
		{"PASS_THROUGH", false},
		{"PWDIR", false},
		{"KEYBOARD", false},
		{"MONKEY", false},
		{"keyring", false},
		{"BYPASS", false},

		// Kinds of key that are identifiers or public.
		{"CACHE_KEY", false},
		{"partitionKey", false},
		{"PUBLIC_KEY", false},
		{"SSH_PUBLIC_KEY", false},
		{"routing_key", false},
		{"Idempotency-Key", false},
		// Scheduling: a node label key (kubernetes.io/hostname,
		// topology.kubernetes.io/zone), and the keys of selectors.
		{"topologyKey", false},
		{"topologyKeys", false}, // Service.spec.topologyKeys (removed, still in old manifests)
		{"TOPOLOGY_KEY", false},
		{"matchLabelKeys", false},
		{"mismatchLabelKeys", false},
		{"labelKey", false},

		// The last word says the value describes a credential.
		{"SECRET_NAME", false},
		{"secretName", false},
		{"PASSWORD_FILE", false},
		{"TOKEN_PATH", false},
		{"KEY_FILE", false},
		{"TLS_KEY_PATH", false},
		{"secretKeyRef", false},
		{"secretRef", false},
		{"CERT_DIR", false},
		{"AWS_ACCESS_KEY_ID", false},
		{"TOKEN_TTL", false},
		{"TOKEN_EXPIRY_SECONDS", false},
		{"AUTH_ENABLED", false},
		{"AUTH_URL", false},
		{"AUTH_TYPE", false},
		{"PASSWORD_MIN_LENGTH", false},
		{"SSH_AUTH_SOCK", false},
		{"secretProviderClass", false},
		{"password-stdin", false},
		{"KEY_SIZE", false},
		{"COOKIE_DOMAIN", false},
		{"SIGNATURE_ALGORITHM", false},
		{"SIGTERM", false},

		// Deliberately not sensitive.
		{"SESSION_ID", false},
		{"session", false},
		{"max_tokens", false},
		{"prompt_tokens", false},
		{"TOKENIZERS_PARALLELISM", false},
		{"OAUTH_CLIENT_ID", false},
		{"AUTHENTICATION_MODE", false},
		{"author", false},
		{"LOG_LEVEL", false},
		{"DATABASE_URL", false},
		{"", false},
		{"___", false},
		{"42", false},
	}
	for _, tt := range tests {
		if got := IsSensitiveName(tt.name); got != tt.want {
			t.Errorf("IsSensitiveName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestNameSegments(t *testing.T) {
	tests := map[string][]string{
		"DB_PASSWORD":                {"db", "password"},
		"apiKey":                     {"api", "key"},
		"APIKey":                     {"api", "key"},
		"AWSSecretAccessKey":         {"aws", "secret", "access", "key"},
		"oauth2Token":                {"oauth", "token"},
		"spring.datasource.password": {"spring", "datasource", "password"},
		"x-api-key":                  {"x", "api", "key"},
		"PASSWORD2":                  {"password"},
		"":                           nil,
	}
	for in, want := range tests {
		got := nameSegments(in, nil)
		if len(got) != len(want) {
			t.Errorf("nameSegments(%q) = %q, want %q", in, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("nameSegments(%q) = %q, want %q", in, got, want)
				break
			}
		}
	}
}

// TestStemsCoverSensitiveWords guards the pair scanner in pairs.go, which
// only looks at names containing a stem: every word that can make a name
// sensitive must contain one.
func TestStemsCoverSensitiveWords(t *testing.T) {
	var words []string
	for w := range strongWords {
		words = append(words, w)
	}
	for w := range weakWords {
		words = append(words, w)
	}
	words = append(words, compoundSuffixes...)
	for _, w := range words {
		if nextStem(w, 0) < 0 {
			t.Errorf("sensitive word %q contains no stem of pairs.go", w)
		}
		if up := strings.ToUpper(w); nextStem(up, 0) < 0 {
			t.Errorf("sensitive word %q contains no stem of pairs.go", up)
		}
	}
}
