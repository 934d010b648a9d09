// Package pki writes the throw-away credentials of a test control plane (the
// API-server harness in test/testcluster and the real node in test/realnode):
// a CA, the API server's serving certificate, the service-account signing key
// pair and a static token file. Keys are ECDSA P-256: RSA-2048 generation
// alone took seconds on the 2-core CI box.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Files are the paths written, the CA in PEM (for kubeconfigs) and the
// token of each user.
type Files struct {
	CACert      []byte
	CACertFile  string
	ServingCert string
	ServingKey  string
	SAPub       string
	SAKey       string
	TokenFile   string
	Tokens      map[string]string // user -> token
}

// Options say what to write.
type Options struct {
	CAName string
	// ServingIPs are added to loopback and the first Service address
	// (10.0.0.1) in the serving certificate.
	ServingIPs []net.IP
	// Users get static tokens, all in system:masters: what the harnesses
	// test is triage, not Kubernetes' RBAC; the names tell apart in the
	// audit log the harness's requests from those of the code under test.
	Users    []string
	Validity time.Duration
}

// Write writes the credentials into dir (created 0700).
func Write(dir string, o Options) (*Files, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f := &Files{
		CACertFile:  filepath.Join(dir, "ca.crt"),
		ServingCert: filepath.Join(dir, "apiserver.crt"),
		ServingKey:  filepath.Join(dir, "apiserver.key"),
		SAPub:       filepath.Join(dir, "sa.pub"),
		SAKey:       filepath.Join(dir, "sa.key"),
		TokenFile:   filepath.Join(dir, "tokens.csv"),
		Tokens:      map[string]string{},
	}
	now := time.Now()

	// The CA is also --client-ca-file, so client certificates signed by it
	// would authenticate too (unused: the harnesses use static tokens).
	caKey, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("ca key: %w", err)
	}
	caDER, err := sign(&x509.Certificate{
		Subject: pkix.Name{CommonName: o.CAName}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(o.Validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true, IsCA: true,
	}, nil, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("ca cert: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	f.CACert = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	if err := os.WriteFile(f.CACertFile, f.CACert, 0o644); err != nil {
		return nil, err
	}

	// Serving certificate: loopback plus the in-cluster names, so a client
	// inside a pod can verify it too.
	srvKey, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("serving key: %w", err)
	}
	srvDER, err := sign(&x509.Certificate{
		Subject: pkix.Name{CommonName: "kube-apiserver"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(o.Validity),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: append([]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.0.0.1")}, o.ServingIPs...),
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local"},
	}, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("serving cert: %w", err)
	}
	if err := writePEM(f.ServingCert, "CERTIFICATE", srvDER, 0o644); err != nil {
		return nil, err
	}
	if err := writeKey(f.ServingKey, srvKey); err != nil {
		return nil, err
	}

	// Service-account token signing pair (ES256), needed by the apiserver
	// even where no test mints tokens.
	saKey, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("sa key: %w", err)
	}
	if err := writeKey(f.SAKey, saKey); err != nil {
		return nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := writePEM(f.SAPub, "PUBLIC KEY", pubDER, 0o644); err != nil {
		return nil, err
	}

	// Static tokens: token,user,uid,"groups".
	var csv strings.Builder
	for _, user := range o.Users {
		b := make([]byte, 24)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		tok := hex.EncodeToString(b)
		f.Tokens[user] = tok
		fmt.Fprintf(&csv, "%s,%s,%s-uid,\"system:masters\"\n", tok, user, user)
	}
	return f, os.WriteFile(f.TokenFile, []byte(csv.String()), 0o600)
}

// SelfSigned is a serving certificate for ip, signed by itself: enough for
// a server the API server does not verify (no --kubelet-certificate-authority).
func SelfSigned(cn, ip string) (tls.Certificate, error) {
	key, err := newKey()
	if err != nil {
		return tls.Certificate{}, err
	}
	der, err := sign(&x509.Certificate{
		Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IPAddresses:           []net.IP{net.ParseIP(ip)},
		DNSNames:              []string{"localhost"},
	}, nil, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// sign gives tmpl a random serial and signs it with key as parent (itself
// when parent is nil).
func sign(tmpl, parent *x509.Certificate, pub *ecdsa.PublicKey, key *ecdsa.PrivateKey) ([]byte, error) {
	sn, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = sn
	if parent == nil {
		parent = tmpl
	}
	return x509.CreateCertificate(rand.Reader, tmpl, parent, pub, key)
}

func newKey() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) }

func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return writePEM(path, "EC PRIVATE KEY", der, 0o600)
}
