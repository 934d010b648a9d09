// Package namespace holds the rules about a Namespace target's own state
// (layer infrastructure): a namespace that cannot finish deleting. One file
// per rule.
package namespace
