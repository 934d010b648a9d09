// Package kube holds what the rules share about Kubernetes objects: finding
// the target in the bundle, the owner walk (a pod's top controller, a
// workload's pods), pod and container status readings, the kubectl commands
// a report quotes, the risks of changing a pod template, and the best
// required-rule cause per pod (PodCauses). Nothing here decides a verdict.
package kube
