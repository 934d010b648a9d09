// Package gone holds the rule for a target that no longer exists: what its
// deletion and the events that outlived it say.
package gone
