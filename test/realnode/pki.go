package realnode

import (
	"net"
	"time"

	"github.com/kubectl-triage/kubectl-triage/test/pki"
)

// identities are the static-token users of the cluster. Every component is a
// cluster admin: the node lives in a namespace of its own for minutes, and
// what is under test is the triage of its faults, not Kubernetes' RBAC.
var identities = []string{"admin", "triage-user", "kubelet", "kube-scheduler", "kube-controller-manager"}

// genPKI writes the node's control-plane credentials (test/pki); the
// serving certificate also names the node's address.
func genPKI(dir string, nodeIP net.IP) (*pki.Files, error) {
	return pki.Write(dir, pki.Options{CAName: "realnode-ca", ServingIPs: []net.IP{nodeIP}, Users: identities, Validity: 24 * time.Hour})
}
