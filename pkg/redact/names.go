package redact

import "strings"

// A name is split into lower-case word segments before it is judged:
// DB_PASSWORD → db password, apiKey → api key, APIKey → api key,
// spring.datasource.password → spring datasource password,
// x-api-key → x api key. Trailing digits are dropped (PASSWORD2 → password).
// Judging segments rather than substrings is what keeps PWDIR, KEYBOARD,
// MONKEY and TOKENIZERS_PARALLELISM out.

// strongWords make a name sensitive wherever they appear in it.
//
// Deliberate omissions:
//   - "tokens" (plural) is almost always a count (max_tokens, prompt_tokens in
//     LLM and rate-limiter logs), never the token itself.
//   - "session": SESSION_ID, session=… are routinely logged for correlation
//     and SESSION_TIMEOUT is configuration; the session credentials that
//     matter carry another word (SESSION_TOKEN, SESSION_SECRET, COOKIE).
//   - "authentication", "authn", "authz", "oauth": these name features
//     (OAUTH_CLIENT_ID, AUTHENTICATION_MODE); OAUTH_CLIENT_SECRET is caught by
//     "secret".
var strongWords = set(
	"token", "secret", "secrets", "password", "passwords", "passwd",
	"passphrase", "credential", "credentials", "creds",
	"auth", "authorization", "cookie", "cookies",
	// The signature of a presigned or SAS URL makes the URL a bearer
	// credential (X-Amz-Signature=…, sig=…).
	"signature", "sig",
)

// compoundSuffixes catch unseparated compounds: dbpassword, clientsecret,
// githubtoken, stripeapikey, AWSSECRETACCESSKEY (one segment when written
// without separators in upper case).
var compoundSuffixes = []string{
	"password", "passwd", "passphrase", "secret", "secrets", "token",
	"credential", "credentials", "apikey", "apikeys", "privatekey",
	"secretkey", "accesskey", "authkey", "masterkey", "signingkey",
	"encryptionkey",
}

// weakWords are sensitive only when a preceding segment qualifies them
// (DB_PWD, SMTP_PASS, DB_PW, API_KEY, tls.key, apiKey). Alone or leading a
// name they usually mean something else: PWD is the POSIX working directory,
// "key" is a map or selector key (secretKeyRef.key, tolerations[].key),
// "--- PASS:" is a test result, KEY_VAULT is a service.
var weakWords = set("pwd", "pw", "pass", "key", "keys")

// publicKeyQualifiers name kinds of key that are identifiers or public
// material rather than credentials (CACHE_KEY, PARTITION_KEY, PUBLIC_KEY,
// routing_key, idempotency_key, and Kubernetes' topologyKey, whose value is
// a node label key such as kubernetes.io/hostname). "primary" is
// deliberately absent: Azure's PRIMARY_KEY is an account key.
var publicKeyQualifiers = set(
	"public", "cache", "partition", "sort", "range", "hash", "foreign",
	"routing", "idempotency", "dedup", "dedupe", "object", "shard", "row",
	"lookup", "map", "index", "label", "group", "message", "record",
	"topology",
)

// metadataSuffixes: when a name's LAST segment is one of these, the value
// describes a credential (where it lives, what it is called, how long it
// lasts, whether it is on) instead of being one: SECRET_NAME, PASSWORD_FILE,
// TOKEN_PATH, KEY_FILE, secretKeyRef, AWS_ACCESS_KEY_ID (a key id is not
// secret; AWS_SECRET_ACCESS_KEY is), TOKEN_TTL, AUTH_ENABLED,
// PASSWORD_MIN_LENGTH, SSH_AUTH_SOCK, secretProviderClass. Such values are
// the evidence an investigator needs ("the Secret it names does not exist",
// "the file is not mounted"). Any other trailing word keeps the name
// sensitive, so DB_PASSWORD_PROD and SECRET_KEY_BASE stay masked.
var metadataSuffixes = set(
	// where it lives or what it is called
	"name", "names", "filename", "file", "files", "path", "paths", "dir",
	"dirs", "directory", "folder", "ref", "refs", "reference", "id", "ids",
	"arn", "url", "urls", "uri", "uris", "endpoint", "endpoints", "host",
	"hostname", "port", "addr", "address", "user", "username", "namespace",
	"mount", "location", "store", "backend", "source", "provider", "class",
	"sock", "socket", "stdin", "env", "var", "field", "header",
	// how long it lasts
	"ttl", "expiry", "expiration", "expires", "expire", "timeout",
	"lifetime", "duration", "interval", "period", "seconds", "secs", "sec",
	"ms", "minutes", "hours", "days",
	// its shape and policy
	"length", "len", "size", "bits", "count", "max", "min", "limit", "type",
	"kind", "mode", "format", "encoding", "algorithm", "alg", "version",
	"policy", "method", "scope", "scopes", "issuer", "audience", "domain",
	"prefix", "suffix", "secure",
	// whether it is on
	"enabled", "enable", "disabled", "disable", "required", "optional",
)

// IsSensitiveName reports whether a variable, key, flag or field name says
// its value is a credential. See the word lists above for what is and is not
// masked, and why.
func IsSensitiveName(name string) bool {
	var buf [16]string
	segs := nameSegments(name, buf[:0])
	if len(segs) == 0 || metadataSuffixes[segs[len(segs)-1]] {
		return false
	}
	for i, seg := range segs {
		if isStrongSegment(seg) {
			return true
		}
		if i > 0 && weakWords[seg] {
			if (seg == "key" || seg == "keys") && publicKeyQualifiers[segs[i-1]] {
				continue
			}
			return true
		}
	}
	return false
}

func isStrongSegment(seg string) bool {
	if strongWords[seg] {
		return true
	}
	for _, suf := range compoundSuffixes {
		if strings.HasSuffix(seg, suf) {
			return true
		}
	}
	return false
}

// nameSegments appends the lower-case segments of name to dst. Segments end
// at any non-alphanumeric byte and at camelCase boundaries (aB, 2B, and the
// last capital of an acronym followed by a lower-case letter: APIKey).
func nameSegments(name string, dst []string) []string {
	start := 0
	emit := func(end int) {
		if seg := trimDigits(name[start:end]); seg != "" {
			dst = append(dst, strings.ToLower(seg))
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) {
			emit(i)
			start = i + 1
			continue
		}
		if i > start && isUpper(c) {
			p := name[i-1]
			acronymEnd := isUpper(p) && i+1 < len(name) && isLower(name[i+1])
			if isLower(p) || isDigit(p) || acronymEnd {
				emit(i)
				start = i
			}
		}
	}
	emit(len(name))
	return dst
}

func trimDigits(s string) string {
	return strings.TrimRight(s, "0123456789")
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool { return isUpper(c) || isLower(c) || isDigit(c) }
