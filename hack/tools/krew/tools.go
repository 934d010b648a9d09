//go:build tools

// Package tools pins krew and its manifest validator, built by hack/krew.sh
// for test/krew.
package tools

import (
	_ "sigs.k8s.io/krew/cmd/krew"
	_ "sigs.k8s.io/krew/cmd/validate-krew-manifest"
)
