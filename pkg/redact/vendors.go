package redact

import (
	"regexp"
	"strings"
)

// Credentials recognised by their shape alone, wherever they appear: vendor
// tokens with a fixed prefix, and the command lines that carry a password
// as an argument. The families follow the usual secret-scanner checklists
// (cloud keys, source forges, package registries, chat and payment APIs);
// each expression is written for this package, and each requires the
// vendor's literal prefix so that ordinary text never pays for it.
//
// The prefix is kept and the rest masked (`glpat-[REDACTED]`), so the
// evidence still says which kind of credential leaked.
var vendorRules = []rule{
	// Google API key (Maps, Firebase, Gemini…).
	shape(`AIza([0-9A-Za-z_-]{35})`, 1, anchors("AIza"), nil),
	// Google OAuth access token and client secret.
	shape(`ya29\.([0-9A-Za-z_-]{20,})`, 1, anchors("ya29."), nil),
	shape(`GOCSPX-([0-9A-Za-z_-]{20,})`, 1, anchors("GOCSPX-"), nil),
	// GitLab personal, deploy, runner, trigger, feed, OAuth… tokens.
	shape(`gl(?:pat|dt|rt|ptt|ft|imt|oas|cbt|soat|agent)-([0-9A-Za-z_-]{20,})`, 1,
		anchors("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glimt-", "gloas-", "glcbt-", "glsoat-", "glagent-"), nil),
	// npm, PyPI, Docker Hub, RubyGems access tokens.
	shape(`npm_([A-Za-z0-9]{36})`, 1, anchors("npm_"), nil),
	shape(`pypi-(AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})`, 1, anchors("pypi-"), nil),
	shape(`dckr_pat_([A-Za-z0-9_-]{20,})`, 1, anchors("dckr_pat_"), nil),
	shape(`rubygems_([a-f0-9]{48})`, 1, anchors("rubygems_"), nil),
	// HashiCorp Vault service, batch and recovery tokens.
	shape(`hv[sbr]\.([A-Za-z0-9_-]{24,})`, 1, anchors("hvs.", "hvb.", "hvr."), nil),
	// Hugging Face, SendGrid, Twilio, Mailgun, Shopify, DigitalOcean.
	shape(`hf_([A-Za-z]{34})\b`, 1, anchors("hf_"), nil),
	shape(`SG\.([A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})`, 1, anchors("SG."), nil),
	shape(`SK([0-9a-fA-F]{32})\b`, 1, anchors("SK"), nil),
	shape(`key-([0-9a-z]{32})\b`, 1, anchors("key-"), nil),
	shape(`shp(?:at|ca|pa|ss)_([a-fA-F0-9]{32})`, 1, anchors("shpat_", "shpca_", "shppa_", "shpss_"), nil),
	shape(`do[opr]_v1_([a-f0-9]{64})`, 1, anchors("_v1_"), nil),
	// Grafana Cloud and service account tokens, Sentry, New Relic, Linear, Postman.
	shape(`glc_([A-Za-z0-9+/]{32,}={0,2})`, 1, anchors("glc_"), nil),
	shape(`glsa_([A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`, 1, anchors("glsa_"), nil),
	shape(`sntr[ysu]_([A-Za-z0-9+/=_-]{20,})`, 1, anchors("sntrys_", "sntryu_"), nil),
	shape(`NRAK-([A-Z0-9]{27})`, 1, anchors("NRAK-"), nil),
	shape(`lin_api_([A-Za-z0-9]{40})`, 1, anchors("lin_api_"), nil),
	shape(`PMAK-([a-f0-9]{24}-[a-f0-9]{34})`, 1, anchors("PMAK-"), nil),
	// Stripe webhook secret, Square, Databricks, Alibaba Cloud, Heroku.
	shape(`whsec_([A-Za-z0-9]{24,})`, 1, anchors("whsec_"), nil),
	shape(`sq0(?:atp|csp)-([A-Za-z0-9_-]{22,})`, 1, anchors("sq0atp-", "sq0csp-"), nil),
	shape(`dapi([a-f0-9]{32})\b`, 1, anchors("dapi"), nil),
	shape(`LTAI([A-Za-z0-9]{20})\b`, 1, anchors("LTAI"), nil),
	shape(`HRKU-([A-Za-z0-9_-]{40,})`, 1, anchors("HRKU-"), nil),
	// Azure AD application (client) secret.
	shape(`[A-Za-z0-9_~.]{3}\dQ~([A-Za-z0-9_~.-]{31,34})`, 1, anchors("Q~"), nil),
	// Telegram bot token and Discord webhook URL.
	shape(`\b\d{8,10}:(AA[A-Za-z0-9_-]{33})`, 1, anchors(":AA"), nil),
	shape(`discord(?:app)?\.com/api/webhooks/\d+/([A-Za-z0-9_-]{40,})`, 1, anchors("/api/webhooks/"), nil),
	// age secret key.
	shape(`AGE-SECRET-KEY-1([0-9A-Z]{58})`, 1, anchors("AGE-SECRET-KEY-"), nil),

	// Command lines that carry a password as an argument.
	// curl -u user:pw, --user user:pw, -uuser:pw (also wget --user… and
	// anything else written so); a uid:gid pair (docker run -u 1000:1000)
	// is not a credential.
	shape(`(?:-u\s*|--user[=\s]\s*|--proxy-user[=\s]\s*)['"]?[^\s:'"]*:([^\s'"]+)`, 1,
		anchors("-u", "--user", "--proxy-user"), notDigits),
	// redis-cli -a pw (and --pass pw, which the flag rule also covers).
	shape(`redis-cli\b[^\n]*?\s(?:-a\s*|--pass\s+)['"]?([^\s'"]+)`, 1, anchors("redis-cli"), nil),
	// mysql -ppw: the password joined to -p (apart, -p names the database).
	shape(`mysql(?:admin|dump|sh)?\b[^\n]*?\s-p([^\s'"]+)`, 1, anchors("mysql"), nil),
	// sshpass -p pw, docker/podman/helm login -p pw, htpasswd -b file user pw.
	shape(`sshpass\s+-p\s*['"]?([^\s'"]+)`, 1, anchors("sshpass"), nil),
	shape(`\blogin\b[^\n]*?\s-p\s+['"]?([^\s'"-][^\s'"]*)`, 1, anchors("login"), nil),
	shape(`htpasswd\s+-\w*b\w*\s+\S+\s+\S+\s+['"]?([^\s'"]+)`, 1, anchors("htpasswd"), nil),
	// "credentials user:pw", "creds user:pw", "login user:pw" in prose.
	shape(`(?i)\b(?:credentials?|creds|login)\s+['"]?[^\s:'"@/=]+:([^\s'"]+)`, 1,
		anchorsFold("cred", "login"), notDigits),
	{hint: awsHint, find: findAWSSecret},
}

func notDigits(v string) bool {
	return strings.Trim(v, "0123456789") != ""
}

// awsHint: a bare AWS secret access key is only recognisable beside what
// says it is one (the access key ID, the word aws, a secret or credential).
func awsHint(s string) bool {
	return strings.Contains(s, "AKIA") || strings.Contains(s, "ASIA") ||
		indexFold(s, "aws") >= 0 || indexFold(s, "secret") >= 0 || indexFold(s, "cred") >= 0
}

var awsContext = anchorsFold("akia", "asia", "aws", "secret", "cred")

// findAWSSecret masks bare AWS secret access keys: a 40-character token of
// the base64 alphabet with upper, lower and digits on a line that mentions
// AWS, an access key ID, a secret or credential, or on the line after one
// (the ID and the key printed on two lines). Git SHAs are lower-case hex,
// image digests are 64 hex digits, UUIDs have dashes: none is taken.
func findAWSSecret(s string, dst []edit) []edit {
	for _, ln := range awsContext.lines(s) {
		end := ln.end
		if end < len(s) { // and the line after
			if k := strings.IndexByte(s[end+1:], '\n'); k >= 0 {
				end = end + 1 + k
			} else {
				end = len(s)
			}
		}
		// Each search resumes after the token, not after the boundary the
		// match consumed: that boundary may begin the next token (a key on
		// the line after the one that mentions it), which a pass over the
		// masked text would then find, and Text would not be idempotent.
		for pos := ln.start; pos < end; {
			m := awsSecretRe.FindStringSubmatchIndex(s[pos:end])
			if m == nil {
				break
			}
			a, b := pos+m[2], pos+m[3]
			if isMixedToken(s[a:b]) {
				dst = append(dst, edit{a, b, Mask})
			}
			pos = b
		}
	}
	return dst
}

var awsSecretRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:$|[^A-Za-z0-9/+=])`)
