package e2e

// Permission errors on a mounted directory: a correct diagnosis names the
// mount (path, volume) and what decides who may write it (runAsUser and
// fsGroup, or a volume type fsGroup does not apply to). All six are fixed
// by pod/volume-permission and captured under test/scenarios
// (real-jenkins-home-pvc-wrong-volume-permissions,
// real-postgres-pgdata-chmod-not-permitted-uid-999,
// real-elasticsearch-data-nodes-access-denied,
// real-grafana-data-hostpath-not-writable-uid-472,
// real-percona-mysql-is-writable-errcode-13,
// real-parseable-anyhow-permission-denied-os-error-13).
var corpus4aPermission = []scenario{}
