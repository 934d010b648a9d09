package e2e

// A dependency that cannot be reached because its own pod is failing: a
// correct diagnosis follows the Service to its pod and says why that pod is
// not ready. The three here are fixed (the host from a SQL Server
// connection string, from env when the line names only an IP, and from a
// bare *_HOST variable) and captured under test/scenarios
// (real-spring-amqp-refused-rabbitmq-0-pending,
// real-efcore-sqlclient-mssql-0-eula-not-accepted,
// real-pgx-refused-postgres-0-crashloop).
var corpus4aDeps = []scenario{}
