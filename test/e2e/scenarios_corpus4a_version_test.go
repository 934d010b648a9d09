package e2e

// Version and compatibility messages that name both sides. Every scenario
// of this group is captured in test/scenarios (real-postgres-data-dir-
// initialized-by-version-12, real-redis-rdb-format-12-after-downgrade,
// real-node-mongodb-driver-wire-version-npm-noise, real-mysqljs-auth-
// protocol-mysql-8, real-docker-api-client-version-too-new); the list stays
// for the misses registry.
var corpus4aVersion = []scenario{}
