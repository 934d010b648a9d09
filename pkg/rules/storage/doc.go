// Package storage holds the rules about volumes: a claim that does not
// bind (layer placement: the pod cannot be placed until it is) and a volume
// that cannot be attached or mounted (layer infrastructure). One file per
// rule.
package storage
