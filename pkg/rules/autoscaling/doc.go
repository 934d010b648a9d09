// Package autoscaling holds the HPA rule (layer workload): an autoscaler
// that cannot compute a replica count or scale its target, or that is only
// at a limit it was given.
package autoscaling
