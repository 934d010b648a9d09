package redact

import (
	"fmt"
	"strings"
	"testing"
)

// Fake vendor credentials, assembled from pieces so secret scanners do not
// flag this file. Each is what Families plants in the hostile-input suite.
var (
	googleKey  = "AI" + "za" + "SyD4x9Qm2Lk7Vb3Nc8Rt1Wz6Hj0Pf5Gs2Ae"
	gitlabPAT  = "gl" + "pat-" + "xK9fQ2vL7mN3pR8sT1wY"
	npmToken   = "np" + "m_" + "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"
	vaultToken = "hv" + "s." + "CAESIJ3kd8Fh2QmZxYw9Lp4TnVbRcS7e"
	sendgrid   = "S" + "G." + "aB3dE5gH7jK9mN1pQ3sT5v" + "." + "xY9wV7uT5sR3qP1oN9mL7kJ5hG3fE1dC9bA7zX5wV3u"
	dockerPAT  = "dc" + "kr_pat_" + "Xk9fQ2vL7mN3pR8sT1wY6zBcDe"
	hfToken    = "h" + "f_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"
	curlPW     = "Sw0rdf1sh-Q7"
	redisPW    = "r3d1sPa55-Z9"
	credsPW    = "pl4nt3d-Cr3ds"
)

// Families are one planted credential per detector family, in the text it
// typically appears in, and the secret that must not survive.
func Families() []planted {
	return []planted{
		{"curl -sf -u admin:" + curlPW + " https://api.internal/health", curlPW},
		{"exec: curl --user ops:" + curlPW + " http://x", curlPW},
		{"redis-cli -h redis-master -a " + redisPW + " ping", redisPW},
		{"mysql -h db -uroot -p" + dbPassword + " shop", dbPassword},
		{"Google key " + googleKey + " rejected", googleKey},
		{"GITLAB_CI_TOKEN " + gitlabPAT, gitlabPAT},
		{"//registry.npmjs.org/:_authToken " + npmToken, npmToken},
		{"vault login " + vaultToken, vaultToken},
		{"sendgrid " + sendgrid, sendgrid},
		{"docker login -u bot -p " + dockerPAT, dockerPAT},
		{"hf hub " + hfToken, hfToken},
		{"aws s3 cp failed with key " + awsKeyID + " " + awsSecret, awsSecret},
		{"AWS secret " + awsSecret, awsSecret},
		{"Failed to authenticate: credentials deploy:" + credsPW + " rejected", credsPW},
		{"Authorization: Bearer " + jwt, jwt},
		{"password=" + dbPassword, dbPassword},
		{"token " + githubPAT, githubPAT},
	}
}

func TestTextFamilies(t *testing.T) {
	for _, p := range Families() {
		for _, in := range []string{
			p.line,
			"2024-05-01T12:00:00.123456789Z " + p.line,
			`{"msg":"` + p.line + `"}`,
			"first line\n" + p.line + "\nlast line",
		} {
			out, n := Text(in)
			if strings.Contains(out, p.secret) || n == 0 {
				t.Errorf("Text(%q) = %q (%d): secret survived", in, out, n)
			}
			if again, n2 := Text(out); again != out || n2 != 0 {
				t.Errorf("not idempotent on %q: %q", out, again)
			}
		}
	}
}

// TestTimestampedPEM: logs are fetched with timestamps, so every line of a
// key an application printed starts with one. The body is masked and the
// lines keep their timestamps.
func TestTimestampedPEM(t *testing.T) {
	for name, key := range map[string]string{"rsa": rsaKeyPEM, "ec": ecKeyPEM, "pkcs8": pkcs8KeyPEM} {
		for _, stamp := range []string{"2026-11-26T06:55:01.123456789Z ", "2026-11-26 06:55:01,123 ", "2026-11-26T06:55:01+01:00 "} {
			var b strings.Builder
			b.WriteString(stamp + "starting\n")
			for _, l := range strings.Split(strings.TrimSuffix(key, "\n"), "\n") {
				b.WriteString(stamp + l + "\n")
			}
			b.WriteString(stamp + "listening on :8443\n")
			out, n := Text(b.String())
			for _, body := range pemBody(key) {
				if strings.Contains(out, body) {
					t.Fatalf("%s %q: key body survived:\n%s", name, stamp, out)
				}
			}
			if n != 1 {
				t.Errorf("%s: masked %d values, want 1", name, n)
			}
			for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if !strings.HasPrefix(l, stamp) {
					t.Errorf("%s %q: line lost its timestamp: %q", name, stamp, l)
				}
			}
			if !strings.Contains(out, stamp+Mask+"\n") || !strings.Contains(out, "-----END") || !strings.Contains(out, "listening on :8443") {
				t.Errorf("%s %q: unexpected shape:\n%s", name, stamp, out)
			}
		}
	}
}

// TestFalsePositiveBudget: ordinary log text, identifiers and hashes stay
// readable. The budget is zero masks over the whole corpus.
func TestFalsePositiveBudget(t *testing.T) {
	corpus := []string{
		"2026-11-26T06:55:01.123456789Z I1126 06:55:01.123456       1 main.go:42] Starting server on :8080",
		"image: registry.k8s.io/ingress-nginx/controller@sha256:42b3f0e5d0846876b1791cd3afeb5f1cbbe4259d6f35651dcc1b5c980925379c",
		"Successfully pulled image \"nginx:1.27\" in 1.2s. Image size: 72099410 bytes.",
		"pod uid 7c0f8a4e-2b9d-4f61-a3c5-9e8d7b6a5f41 deleted",
		"commit 1f3e5d7c9b2a4f6e8d0c1b3a5f7e9d2c4b6a8f0e by ci",
		"checksum/config: 3f2a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f",
		"GET /api/v1/namespaces/shop/pods?limit=500 200 OK in 12ms",
		"docker run -u 1000:1000 --rm busybox",
		"curl -u $USER:$PASS https://example.com",
		"Back-off restarting failed container checkout in pod checkout-7d9f8c6b5-x2k4p_shop(1234)",
		"the AWS region is eu-west-1; bucket my-bucket-2026 not found",
		"aws sts get-caller-identity: ExpiredToken: The security token included in the request is expired",
		"login succeeded for user alice",
		"credentials provider chain: no valid providers in chain",
		"mysql: [Warning] Using a password on the command line interface can be insecure.",
		"redis-cli ping returned PONG",
		"Readiness probe failed: Get \"http://10.244.0.5:8080/healthz\": dial tcp 10.244.0.5:8080: connect: connection refused",
		"level=info ts=2026-11-26T06:55:01Z caller=main.go:1 msg=\"listening\" addr=0.0.0.0:9090",
		`{"ts":"2026-11-26T06:55:01Z","level":"error","msg":"upstream timeout","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"}`,
		"java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"s\" is null",
		"Skipping key- rotation: next at 2026-12-01",
		"job SKIPPED by scheduler",
		"node ip-10-0-1-23.eu-west-1.compute.internal NotReady",
		"kube-system/coredns-76f75df574-9qk2m Running",
	}
	masked := 0
	for _, in := range corpus {
		if out, n := Text(in); n != 0 {
			masked += n
			t.Errorf("false positive: Text(%q) = %q", in, out)
		}
	}
	t.Logf("false-positive budget: %d masks over %d ordinary lines (budget 0)", masked, len(corpus))
}

func ExampleText_timestampedKey() {
	out, n := Text("2026-11-26T06:55:01Z -----BEGIN EC PRIVATE KEY-----\n2026-11-26T06:55:01Z MHcCAQEEI\n2026-11-26T06:55:01Z -----END EC PRIVATE KEY-----\n")
	fmt.Print(out, n)
	// Output:
	// 2026-11-26T06:55:01Z -----BEGIN EC PRIVATE KEY-----
	// 2026-11-26T06:55:01Z [REDACTED]
	// 2026-11-26T06:55:01Z -----END EC PRIVATE KEY-----
	// 1
}
