//go:build tools

// Package tools pins the control-plane commands built by `make testbin`:
// the API server and kubectl for every e2e test, and the node components
// (kubelet, scheduler, controller-manager) for the real-node tier.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
