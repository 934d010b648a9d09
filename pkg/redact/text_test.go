package redact

import (
	"strings"
	"testing"
)

type textCase struct {
	name string
	in   string
	want string
	n    int
}

func runTextCases(t *testing.T, cases []textCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, n := Text(tc.in)
			if got != tc.want || n != tc.n {
				t.Errorf("Text(%q)\n got %q, %d\nwant %q, %d", tc.in, got, n, tc.want, tc.n)
			}
			again, n2 := Text(got)
			if again != got || n2 != 0 {
				t.Errorf("Text is not idempotent on %q: %q, %d", got, again, n2)
			}
			assertNoSecrets(t, got)
		})
	}
}

func TestTextPairs(t *testing.T) {
	runTextCases(t, []textCase{
		{"env dump", "DB_PASSWORD=" + dbPassword, "DB_PASSWORD=[REDACTED]", 1},
		{"env dump lines",
			"HOSTNAME=checkout-7d9f\nDB_PASSWORD=" + dbPassword + "\nLOG_LEVEL=debug\n",
			"HOSTNAME=checkout-7d9f\nDB_PASSWORD=[REDACTED]\nLOG_LEVEL=debug\n", 1},
		{"shell export quoted", `export MYSQL_ROOT_PASSWORD="s3cr3t pass"`, `export MYSQL_ROOT_PASSWORD="[REDACTED]"`, 1},
		{"single quoted", `REDIS_PASS='p@ss w0rd'`, `REDIS_PASS='[REDACTED]'`, 1},
		{"logfmt",
			`level=info msg="connecting to db" user=app password=hunter2 host=db-0.db:5432`,
			`level=info msg="connecting to db" user=app password=[REDACTED] host=db-0.db:5432`, 1},
		{"properties", "spring.datasource.password = hunter2", "spring.datasource.password = [REDACTED]", 1},
		{"java system property",
			"JAVA_OPTS=-Xmx512m -Djavax.net.ssl.keyStorePassword=changeit -Dfile.encoding=UTF-8",
			"JAVA_OPTS=-Xmx512m -Djavax.net.ssl.keyStorePassword=[REDACTED] -Dfile.encoding=UTF-8", 1},
		{"query string",
			`10.0.0.7 - - "GET /oauth/callback?code=4/0Adeu5BW&access_token=ya29.a0AfB_byC1x&state=xyz HTTP/1.1" 302`,
			`10.0.0.7 - - "GET /oauth/callback?code=4/0Adeu5BW&access_token=[REDACTED]&state=xyz HTTP/1.1" 302`, 1},
		{"query string inside a non-sensitive value",
			"redirecting url=https://app.example.com/cb?id_token=abc123def456&x=1",
			"redirecting url=https://app.example.com/cb?id_token=[REDACTED]&x=1", 1},
		{"connection string",
			"Server=sql-0;User Id=sa;Password=Hunter2!;Database=orders",
			"Server=sql-0;User Id=sa;Password=[REDACTED];Database=orders", 1},
		{"aws credentials file",
			"[default]\naws_access_key_id = " + awsKeyID + "\naws_secret_access_key = " + awsSecret + "\n",
			"[default]\naws_access_key_id = AKIA[REDACTED]\naws_secret_access_key = [REDACTED]\n", 2},
		{"json", `{"level":"debug","msg":"config loaded","apiKey":"AbC123xyz","region":"eu-west-1"}`,
			`{"level":"debug","msg":"config loaded","apiKey":"[REDACTED]","region":"eu-west-1"}`, 1},
		{"json spaced", `{"client_secret": "Zx81-lp0Q", "client_id": "checkout"}`,
			`{"client_secret": "[REDACTED]", "client_id": "checkout"}`, 1},
		{"json escaped quote in value", `{"password":"a\"b\\c","user":"x"}`, `{"password":"[REDACTED]","user":"x"}`, 1},
		{"json number", `{"pin_password": 123456, "retries": 3}`, `{"pin_password": [REDACTED], "retries": 3}`, 1},
		{"json nested in a log line", `{"log":"{\"token\":\"abc123def\",\"user\":\"bob\"}\n","stream":"stdout"}`,
			`{"log":"{\"token\":\"[REDACTED]\",\"user\":\"bob\"}\n","stream":"stdout"}`, 1},
		{"python dict", `{'db_password': 'hunter2', 'host': 'db'}`, `{'db_password': '[REDACTED]', 'host': 'db'}`, 1},
		{"yaml", "database:\n  host: db\n  password: hunter2\n", "database:\n  host: db\n  password: [REDACTED]\n", 1},
		{"yaml list item", "- token: 8f1c2e9a77\n", "- token: [REDACTED]\n", 1},
		{"yaml quoted", `  apiKey: "AbC 123"`, `  apiKey: "[REDACTED]"`, 1},
		{"yaml block scalar",
			"db:\n  password: |\n    hunter2\n    second-line\n\n  host: db\n",
			"db:\n  password: |\n    [REDACTED]\n\n  host: db\n", 1},
		{"yaml folded scalar at the end", "token: >-\n  8f1c2e9a\n  77b04d", "token: >-\n  [REDACTED]", 1},
		{"http header", "Authorization: Bearer " + jwt, "Authorization: Bearer [REDACTED]", 1},
		{"http header token scheme", "Authorization: token 8f1c2e9a77b04d", "Authorization: token [REDACTED]", 1},
		{"basic auth header", "Authorization: Basic " + basicHeader, "Authorization: Basic [REDACTED]", 1},
		{"curl cookie", "> Cookie: sessionid=q8v7c1; csrftoken=Zk29xLw0\n", "> Cookie: [REDACTED]\n", 1},
		{"mid-line colon",
			"2024-05-01T12:00:00Z WARN retrying with password: hunter2 after 3s",
			"2024-05-01T12:00:00Z WARN retrying with password: [REDACTED] after 3s", 1},
		{"flag apart in a command line", `sh -c "exec app --token 8f1c2e9a77 --verbose"`, `sh -c "exec app --token [REDACTED] --verbose"`, 1},
		{"flag joined", "starting: /app/server --db-password=" + dbPassword + " --port=8080",
			"starting: /app/server --db-password=[REDACTED] --port=8080", 1},
		{"go flag", "-api-key abc123def -v", "-api-key [REDACTED] -v", 1},
	})
}

func TestTextShapes(t *testing.T) {
	runTextCases(t, []textCase{
		{"bearer in prose", "calling upstream with Bearer abcdef123456 failed", "calling upstream with Bearer [REDACTED] failed", 1},
		{"bearer long", "bearer " + strings.Repeat("Ab", 12), "bearer [REDACTED]", 1},
		{"jwt alone", "token issued: " + jwt + " (expires in 3600s)", "token issued: [REDACTED] (expires in 3600s)", 1},
		{"jwt in a pair is masked once", "ID_TOKEN=" + jwt, "ID_TOKEN=[REDACTED]", 1},
		{"jwt after an escaped newline", `"line one\n` + jwt + `"`, `"line one\n[REDACTED]"`, 1},
		{"postgres url", "DATABASE_URL=postgres://app:" + dbPassword + "@db:5432/orders?sslmode=disable",
			"DATABASE_URL=postgres://app:[REDACTED]@db:5432/orders?sslmode=disable", 1},
		{"redis url without user", "connecting to redis://:p4ssw0rd@redis-master:6379/0", "connecting to redis://:[REDACTED]@redis-master:6379/0", 1},
		{"url password with @", "amqp://guest:p@ss@rabbitmq:5672/", "amqp://guest:[REDACTED]@rabbitmq:5672/", 1},
		{"jdbc url", "jdbc:mysql://app:hunter2@mysql:3306/shop", "jdbc:mysql://app:[REDACTED]@mysql:3306/shop", 1},
		{"mysql dsn", "dsn: root:hunter2@tcp(mysql:3306)/app?parseTime=true", "dsn: root:[REDACTED]@tcp(mysql:3306)/app?parseTime=true", 1},
		{"presigned url", "GET https://bucket.s3.amazonaws.com/a.tar?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=9f3c2a1b&X-Amz-Expires=300",
			"GET https://bucket.s3.amazonaws.com/a.tar?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=[REDACTED]&X-Amz-Expires=300", 1},
		{"azure sas", "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2024-05-01&sig=kM8%2Bx0Qz%3D",
			"https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2024-05-01&sig=[REDACTED]", 1},
		{"aws key id", "using access key " + awsKeyID + " for s3", "using access key AKIA[REDACTED] for s3", 1},
		{"github pat", "git clone https://" + githubPAT + "@github.com/org/repo.git",
			"git clone https://ghp_[REDACTED]@github.com/org/repo.git", 1},
		{"github fine-grained pat", "GH=" + githubFine, "GH=github_pat_[REDACTED]", 1},
		{"slack token", "posting to slack with " + slackToken, "posting to slack with xoxb-[REDACTED]", 1},
		{"openai key", "OPENAI=" + openAIKey, "OPENAI=sk-proj-[REDACTED]", 1},
		{"stripe key", "stripe.api_key=" + stripeKey, "stripe.api_key=[REDACTED]", 1},
		{"mid-line header", "upstream request headers: Authorization: token 8f1c2e9a77b04d, Accept: */*",
			"upstream request headers: Authorization: token [REDACTED] Accept: */*", 1},
		{"json header", `{"Authorization": "Bearer ` + jwt + `"}`, `{"Authorization": "Bearer [REDACTED]"}`, 1},
		{"partly masked value", "Cookie: sid=" + jwt + "; theme=dark", "Cookie: [REDACTED]", 1},
		{"stripe key by shape", "charging with " + stripeKey, "charging with sk_live_[REDACTED]", 1},
		{"rsa pem", "loaded key:\n" + rsaKeyPEM + "done\n", "loaded key:\n" + maskedPEM(rsaKeyPEM) + "done\n", 1},
		{"ec pem", ecKeyPEM, maskedPEM(ecKeyPEM), 1},
		{"pkcs8 pem", pkcs8KeyPEM, maskedPEM(pkcs8KeyPEM), 1},
		{"pem escaped in json",
			`{"tls.key":"` + strings.ReplaceAll(ecKeyPEM, "\n", `\n`) + `"}`,
			`{"tls.key":"` + strings.ReplaceAll(maskedPEM(ecKeyPEM), "\n", `\n`) + `"}`, 1},
		{"pem indented in yaml",
			"tls.key: |\n" + indent(rsaKeyPEM, "  "),
			"tls.key: |\n  " + strings.SplitN(rsaKeyPEM, "\n", 2)[0] + "\n[REDACTED]\n  -----END RSA PRIVATE KEY-----\n", 1},
		{"pem cut short",
			"E0501 dump: " + strings.Join(strings.Split(rsaKeyPEM, "\n")[:4], "\n") + "\nI0501 next line",
			"E0501 dump: -----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\nI0501 next line", 1},
	})
}

func TestTextLeavesDiagnosticsAlone(t *testing.T) {
	unchanged := []string{
		"",
		"connection refused to db:5432",
		"dial tcp 10.0.3.7:5432: connect: connection refused",
		"dial tcp: lookup token-service:8080: i/o timeout",
		"panic: runtime error: invalid memory address or nil pointer dereference",
		"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2b3c]",
		`Error: key "missing-key" not found in ConfigMap shop/checkout-config`,
		"Error: couldn't find key DB_PASSWORD in Secret shop/db-credentials",
		`MountVolume.SetUp failed for volume "secret-vol" : secret "db-creds" not found`,
		"failed to read token: open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory",
		"invalid token: x509: certificate signed by unknown authority",
		"refresh token: 401 Unauthorized",
		"Bearer token missing in request",
		"invalid bearer token",
		"Basic authentication failed for user admin",
		`Failed to pull image "registry.example.com/team/secret:v1.2": not found`,
		"SECRET_NAME=my-secret",
		"PASSWORD_FILE=/etc/secret/pw",
		"TOKEN_PATH=/var/run/secrets/tokens/vault-token",
		"KEY_FILE=/etc/tls/tls.key",
		"AWS_ACCESS_KEY_ID=kms-key-1234",
		"GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/google/key.json",
		"PWD=/app",
		"TOKENIZERS_PARALLELISM=false",
		"--- PASS: TestLogin (0.00s)",
		"--- FAIL: TestPasswordReset (0.01s)",
		"password=$(DB_PASSWORD)",
		"PASSWORD=${DB_PASSWORD}",
		`"password": "{{ .Values.db.password }}"`,
		"password=",
		`{"password": null, "auth": true, "credentials": {"user": "x"}}`,
		`{"model":"gpt-4o","max_tokens":1024,"usage":{"prompt_tokens":87,"total_tokens":311}}`,
		`I0501 12:00:02.123456       1 controller.go:123] "Reconciling" secret="shop/db-creds"`,
		"if token == nil {",
		"password: |",
		"password: |\nnext: line\n",
		"http://example.com:8080/path?q=1",
		"mail from alice@example.com",
		"sk-prod-eu-west-1-nodepool-7f9c4d6b8-xk2lp-abcdefghij",
		"task-runner-7d9f8c6b5-x2k4p",
		"DB_PASSWORD=" + Mask,
		certPEM,
		"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n",
		"-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----",
		"\tat com.example.shop.CheckoutService.charge(CheckoutService.java:88)",
	}
	for _, in := range unchanged {
		if got, n := Text(in); got != in || n != 0 {
			t.Errorf("Text(%q) = %q, %d; want it unchanged", in, got, n)
		}
	}
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// pathologicalInputs are ~400 KB of one repeated construct on a single line:
// linear code takes milliseconds on each, a rescan per match many seconds.
// BenchmarkTextPathological measures them (speed belongs in benchmarks, not
// in timed tests).
func pathologicalInputs() map[string]string {
	return map[string]string{

		"pem headers":        strings.Repeat("-----BEGIN RSA PRIVATE KEY-----", 13000),
		"pem header lines":   strings.Repeat("-----BEGIN RSA PRIVATE KEY-----\n", 13000),
		"colon pairs":        strings.Repeat("token: a ", 45000),
		"references":         strings.Repeat("password=$(x) ", 30000),
		"open quotes":        strings.Repeat(`"password":"`, 33000),
		"escaped quotes":     strings.Repeat(`password=\"`, 36000),
		"stems in one word":  strings.Repeat("tokensecretpassword", 21000),
		"bearer":             strings.Repeat("Bearer ", 57000),
		"url schemes":        strings.Repeat("a://b:c", 57000),
		"dsn":                strings.Repeat("a:b@tcp(", 50000),
		"flags":              strings.Repeat("--token ", 50000),
		"masked pairs":       strings.Repeat("password=[REDACTED] ", 20000),
		"long url password":  "x://u:" + strings.Repeat("p", 400000),
		"blanks after colon": "password:" + strings.Repeat(" ", 400000) + "x",
	}
}

func BenchmarkTextPathological(b *testing.B) {
	for name, in := range pathologicalInputs() {
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				Text(in)
			}
		})
	}
}
