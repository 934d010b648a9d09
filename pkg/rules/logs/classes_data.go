package logs

import (
	"regexp"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// The application's data is not what it expects: a schema migration, a
// missing database, a data directory it will not initialise.
const (
	Migration       Class = "Migration"
	SQL             Class = "SQL"
	DataDirNotEmpty Class = "DataDirNotEmpty"
	LockHeld        Class = "LockHeld"
	// StoredState: the configuration names an identity (a data center, a
	// cluster ID) other than the one the data on the volume was written
	// with, and the application refuses to start on it.
	StoredState Class = "StoredState"
)

// A configured identity against the one stored with the data: Cassandra's
// SystemKeyspace.checkHealth ("Cannot start node if snitch's data center
// (dc2) differs from previous data center (dc1)", also for the rack),
// Kafka's InconsistentClusterIdException ("The Cluster ID X doesn't match
// stored clusterId Some(Y) in meta.properties"). Above MissingEnv: a stored
// "$(VAR)" is a reference an earlier spec left unexpanded, not a variable
// unset now.
var _ = register(Def{
	Class: StoredState,
	Patterns: []Pattern{{re: storedStateRe,
		Explains: "the configuration names another identity than the one the data on its volume was written with (a data center, a rack, a cluster ID), and the application refuses to start on that data",
		Fix:      "Configure the identity the stored data was written with, or, when that data is disposable, start from an empty volume (Cassandra: decommission and rebootstrap the node, or -Dcassandra.ignore_dc=true / ignore_rack; Kafka: the broker's meta.properties cluster.id).", Priority: 91}},
	Subject: func(line string) string {
		m, ok := submatch.Find(storedStateRe, line)
		if !ok {
			return ""
		}
		for _, g := range [][2]string{{"configured", "stored"}, {"configured2", "stored2"}, {"configured3", "stored3"}} {
			if st := m.Get(g[1]); st != "" || m.Get(g[0]) != "" {
				return "configured " + m.Get(g[0]) + ", stored with the data " + st
			}
		}
		return ""
	},
})

var storedStateRe = regexp.MustCompile(`(?i)data center \((?P<configured>.+?)\) differs from previous data center \((?P<stored>.+?)\)(?:\.|\s|$)|rack \((?P<configured2>.+?)\) differs from previous rack \((?P<stored2>.+?)\)(?:\.|\s|$)|Cluster ID (?P<configured3>\S+) doesn't match stored clusterId Some\((?P<stored3>[^)]*)\)`)

// Another process holds the lock on the data files (InnoDB's "Unable to
// lock ./ibdata1 error: 11", Prometheus' "lock DB directory"): on a volume,
// another pod mounting the same claim; pod/volume-lock names it. The lock
// line, not the "Aborting" after it, is why the server stops.
var _ = register(Def{
	Class: LockHeld,
	Patterns: []Pattern{{
		Explains: "the application cannot lock its data files: another process (another instance on the same volume) holds the lock",
		Fix:      "Let one instance use the data directory at a time: stop the other pod mounting the same volume, give each replica its own claim, or run one replica.", Priority: 84}},
	Rank: 1, // a missing module is no lock
	Also: applog.LockHeld,
})

// A schema migration (often an init container's job) that the database
// refuses: the SQL error names what the migration expected.
var _ = register(Def{
	Class: Migration,
	// Flyway's validation: "Detected resolved migration not applied to
	// database", "Detected applied migration not resolved locally".
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)(\bmigrat(e|ion|ions)\b[^\n]*\b(fail(ed|s|ure)?|error|dirty)\b|\b(relation|table|column) "?[\w.]+"? (does not exist|already exists)|dirty database version|duplicate column name|migration not (applied to database|resolved locally))`),
		Explains: "a database schema migration failed",
		Fix:      "Fix the failing migration or the database state it expects (a missing table, a half-applied migration), then let the container run it again.", Priority: 82}},
})

// The database answers but lacks what the application connects to:
// PostgreSQL's postinit.c 'database "%s" does not exist' and miscinit.c
// 'role "%s" does not exist', MySQL's ER_BAD_DB_ERROR "Unknown database
// '%s'". Above ConnectionRefused: the server answered, though drivers word
// it "failed to connect to `host=db …`: server error (FATAL: database
// "shop" does not exist)" (pgx).
var _ = register(Def{
	Class: SQL,
	Patterns: []Pattern{{re: regexp.MustCompile(`(?i)\b(database|role|schema) "?[\w.-]+"? does not exist|Unknown database '[^']+'`),
		Explains: "the database server answers but lacks the database, role or schema the application connects to",
		Fix:      "Create what the error names (or run the migrations or init scripts that create it), or correct the database name or user in the application's connection settings.", Priority: 81}},
	Subject: func(line string) string {
		if s := applog.Extract(line).SQL; len(s) > 0 {
			return s[0]
		}
		return ""
	},
})

// A database server refusing to initialise a data directory that already
// holds files: MySQL's MY-010457 "--initialize specified but the data
// directory has files in it" and MY-013236 "The designated data directory
// %s is unusable", PostgreSQL's initdb "directory \"%s\" exists but is not
// empty" (a volume's mount point holds lost+found).
var _ = register(Def{
	Class: DataDirNotEmpty,
	Patterns: []Pattern{
		{re: regexp.MustCompile(`data directory has files in it|designated data directory \S+ is unusable|initdb: (?:error: )?directory "[^"]+" exists but is not empty`),
			Explains: "the database server will not initialise its data directory because it already holds files (often a volume's lost+found, when the volume's mount point is the data directory)",
			Fix:      "Point the data directory at a subdirectory of the volume (PGDATA=/var/lib/postgresql/data/pgdata, a subPath volume mount, or mysqld --datadir), or empty the volume if nothing on it is to be kept.", Priority: 86},
		// PostgreSQL initdb (src/bin/initdb/initdb.c): `directory "%s"
		// exists but is not empty`, with the hint "It contains a
		// lost+found directory, perhaps due to it being a mount point." The
		// root of a fresh ext4 volume holds lost+found. It ranks above the
		// generic classes: the program says exactly what it refuses.
		// MySQL's and MariaDB's refusals are the generic row's: both its
		// lines rank alike there, so the one naming the directory is
		// chosen.
		{re: regexp.MustCompile(`initdb: (?:error: )?directory "[^"]+" exists but is not empty`),
			Explains: "PostgreSQL's initdb refuses a data directory that is not empty: a volume mounted directly as PGDATA holds lost+found (or an earlier partial initialisation)",
			Fix:      "Give initdb an empty directory: set PGDATA to a subdirectory of the mount (e.g. PGDATA=/var/lib/postgresql/data/pgdata), or mount the volume with subPath: pgdata. Do not delete lost+found or the volume's data.", Priority: 96},
	},
	Rank: 1, // a line of it and ScriptLineEndings is theirs
	Subject: func(line string) string {
		if m, ok := submatch.Find(dataDirRe, line); ok {
			return m.Get("dir")
		}
		return lastPath(line)
	},
})

var dataDirRe = regexp.MustCompile(`directory "(?P<dir>[^"]+)" exists but is not empty`)
