// Package workload holds the rules about the controllers that own pods
// (layer workload): pods a controller cannot create, a Deployment rollout
// that does not complete, a StatefulSet ordinal that blocks, DaemonSet
// coverage and a ReplicaSet's unready pods. They require the pod-level
// rules (PodLevel) and defer to a pod's own cause as context. One file per
// rule.
package workload
