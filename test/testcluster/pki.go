package testcluster

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/pki"
)

// creds are the throw-away credentials of one cluster.
type creds struct {
	*pki.Files
	adminToken  string
	userToken   string
	auditPolicy string
	kubeletTLS  tls.Certificate
}

// genPKI writes the control plane's credentials (test/pki) for the two
// users, the audit policy, and builds a self-signed certificate for the fake
// kubelet.
func genPKI(dir string) (*creds, error) {
	files, err := pki.Write(dir, pki.Options{CAName: "testcluster-ca", Users: []string{AdminName, UserName}, Validity: 10 * 365 * 24 * time.Hour})
	if err != nil {
		return nil, err
	}
	c := &creds{Files: files, adminToken: files.Tokens[AdminName], userToken: files.Tokens[UserName],
		auditPolicy: filepath.Join(dir, "audit-policy.yaml")}

	// Metadata for everything: who did what to which object, no bodies.
	// RequestReceived is omitted so every request yields exactly one
	// ResponseComplete event (plus ResponseStarted for long-running ones).
	policy := "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [\"RequestReceived\"]\nrules:\n- level: Metadata\n"
	if err := os.WriteFile(c.auditPolicy, []byte(policy), 0o644); err != nil {
		return nil, err
	}
	// The fake kubelet's certificate: self-signed is enough because the
	// apiserver runs without --kubelet-certificate-authority and therefore
	// does not verify it.
	if c.kubeletTLS, err = pki.SelfSigned("fake-kubelet", "127.0.0.1"); err != nil {
		return nil, fmt.Errorf("kubelet cert: %w", err)
	}
	return c, nil
}
