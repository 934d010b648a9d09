package testcluster

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
	"time"
)

// pki holds the paths of the throw-away credentials of one cluster. All keys
// are ECDSA P-256: RSA-2048 generation alone took seconds on the 2-core CI box.
type pki struct {
	caCert      []byte // PEM, also embedded in the kubeconfigs
	caCertFile  string
	servingCert string
	servingKey  string
	saPub       string
	saKey       string
	tokenFile   string
	adminToken  string
	userToken   string
	auditPolicy string
	kubeletTLS  tls.Certificate
}

func newKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

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

// genPKI writes a CA, an apiserver serving certificate signed by it, a
// service-account signing key pair, the static token file for the two users,
// the audit policy, and builds a self-signed certificate for the fake kubelet.
func genPKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &pki{
		caCertFile:  filepath.Join(dir, "ca.crt"),
		servingCert: filepath.Join(dir, "apiserver.crt"),
		servingKey:  filepath.Join(dir, "apiserver.key"),
		saPub:       filepath.Join(dir, "sa.pub"),
		saKey:       filepath.Join(dir, "sa.key"),
		tokenFile:   filepath.Join(dir, "tokens.csv"),
		auditPolicy: filepath.Join(dir, "audit-policy.yaml"),
	}
	now := time.Now()

	// CA. It is also --client-ca-file, so client certificates signed by it
	// would authenticate too (unused: the harness uses static tokens).
	caKey, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("ca key: %w", err)
	}
	sn, err := serial()
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: "testcluster-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("ca cert: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	p.caCert = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	if err := os.WriteFile(p.caCertFile, p.caCert, 0o644); err != nil {
		return nil, err
	}

	// apiserver serving certificate: loopback plus the in-cluster names, so
	// the same PKI would also work for a client inside a (hypothetical) pod.
	srvKey, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("serving key: %w", err)
	}
	if sn, err = serial(); err != nil {
		return nil, err
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: sn,
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.0.0.1")},
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
			"kubernetes.default.svc.cluster.local"},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("serving cert: %w", err)
	}
	if err := writePEM(p.servingCert, "CERTIFICATE", srvDER, 0o644); err != nil {
		return nil, err
	}
	if err := writeKey(p.servingKey, srvKey); err != nil {
		return nil, err
	}

	// Service-account token signing pair (ES256), needed by the apiserver
	// even if no test mints tokens.
	saKey, err := newKey()
	if err != nil {
		return nil, fmt.Errorf("sa key: %w", err)
	}
	if err := writeKey(p.saKey, saKey); err != nil {
		return nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := writePEM(p.saPub, "PUBLIC KEY", pubDER, 0o644); err != nil {
		return nil, err
	}

	// Static tokens: token,user,uid,"groups". Both are cluster admins; they
	// differ only in name so the audit log tells harness setup requests from
	// the requests of the code under test.
	if p.adminToken, err = randomToken(); err != nil {
		return nil, err
	}
	if p.userToken, err = randomToken(); err != nil {
		return nil, err
	}
	tokens := fmt.Sprintf("%s,%s,%s-uid,\"system:masters\"\n%s,%s,%s-uid,\"system:masters\"\n",
		p.adminToken, AdminName, AdminName, p.userToken, UserName, UserName)
	if err := os.WriteFile(p.tokenFile, []byte(tokens), 0o600); err != nil {
		return nil, err
	}

	// Metadata for everything: who did what to which object, no bodies.
	// RequestReceived is omitted so every request yields exactly one
	// ResponseComplete event (plus ResponseStarted for long-running ones).
	policy := "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [\"RequestReceived\"]\nrules:\n- level: Metadata\n"
	if err := os.WriteFile(p.auditPolicy, []byte(policy), 0o644); err != nil {
		return nil, err
	}

	// The fake kubelet's certificate: self-signed is enough because the
	// apiserver runs without --kubelet-certificate-authority and therefore
	// does not verify it.
	if p.kubeletTLS, err = selfSignedCert("127.0.0.1"); err != nil {
		return nil, fmt.Errorf("kubelet cert: %w", err)
	}
	return p, nil
}

func selfSignedCert(ip string) (tls.Certificate, error) {
	key, err := newKey()
	if err != nil {
		return tls.Certificate{}, err
	}
	sn, err := serial()
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: "fake-kubelet"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IPAddresses:           []net.IP{net.ParseIP(ip)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
