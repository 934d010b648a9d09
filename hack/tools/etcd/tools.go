//go:build tools

// Package tools pins the etcd server built by `make testbin`.
package tools

import _ "go.etcd.io/etcd/server/v3"
