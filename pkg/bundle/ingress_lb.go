package bundle

// The GKE ingress controller records on each Ingress the health its load
// balancer sees for every backend: {"k8s-be-31469--<hash>":"UNHEALTHY"}
// (https://cloud.google.com/kubernetes-engine/docs/concepts/ingress#health_checks).
// A backend the kubelet calls ready may still be unhealthy to it.

// LBBackendsAnnotation is where the controller writes the backends' health.
const LBBackendsAnnotation = "ingress.kubernetes.io/backends"

// LBUnhealthy is the health it records for a backend failing its check.
const LBUnhealthy = "UNHEALTHY"
