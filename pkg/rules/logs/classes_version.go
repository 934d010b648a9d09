package logs

import (
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// The two sides of a protocol or a data format do not agree: data written
// by another version of the server than the image runs, a client speaking
// a protocol range or an authentication method the server does not. The
// programs word it naming both sides; the fix is to make one side match
// the other (pin the image tag, upgrade the data or the client), never to
// retry.
const VersionMismatch Class = "VersionMismatch"

// A server refuses the shape of the client's request: an HTTP 400 naming a
// key, field or parameter it does not know. The client was written for
// another version of the server's API (Elasticsearch 8 dropped mapping
// types and legacy templates its older clients still send), so the fix is
// the same as a version mismatch's: versions of the two that support each
// other.
const APIMismatch Class = "APIMismatch"

// versionSide is one wording: its expression names the side the program
// found (have) and the side it brings or needs (want).
type versionSide struct {
	re *regexp.Regexp
	// say words the subject from the match in line.
	say func(m submatch.Match, line string) string
}

// mongoFCVRe is the featureCompatibilityVersion document mongod quotes.
var mongoFCVRe = regexp.MustCompile(`featureCompatibilityVersion\\?", version: \\?"(?P<have>[\d.]+)`)

// versionSides, in the Def's row order. Each wording is the program's own
// (the source named above each).
var versionSides = []versionSide{
	// PostgreSQL src/backend/utils/init/miscinit.c ValidatePgVersion:
	// errmsg "database files are incompatible with server", errdetail "The
	// data directory was initialized by PostgreSQL version %s, which is not
	// compatible with this version %s." The DETAIL line is read with its
	// FATAL line (applog keeps them one event).
	{regexp.MustCompile(`initialized by PostgreSQL version [\d.]+, which is not compatible with this version [\d.]+|database files are incompatible with server`),
		func(_ submatch.Match, line string) string {
			m, ok := submatch.Find(pgVersionsRe, line)
			if !ok {
				return "data directory written by another PostgreSQL major version"
			}
			return "data directory initialized by PostgreSQL " + m.Get("have") + ", server version " + m.Get("want")
		}},
	// Redis src/rdb.c rdbLoadRioWithLoadingCtx: "Can't handle RDB format
	// version %d": the dump was written by a newer Redis (a downgrade).
	{regexp.MustCompile(`Can't handle RDB format version (?P<have>\d+)`),
		func(m submatch.Match, _ string) string {
			return "RDB format version " + m.Get("have") + " on the volume, written by a newer Redis than this server"
		}},
	// MongoDB drivers' topology compatibility check (node-mongodb-native
	// src/sdam/topology_description.ts, pymongo topology_description.py, the
	// Go driver): "Server at %s reports maximum wire version %d, but this
	// version of the Node.js Driver requires at least %d (MongoDB %s)", and
	// "… minimum wire version … requires at most …" for a server too new.
	{regexp.MustCompile(`(?i)server at (?P<addr>\S+) reports (?:maximum |minimum )?wire version (?P<have>\d+), but this version of (?:the )?(?P<client>.+?) requires at (?:least|most) (?P<want>\d+)(?: \((?P<server>MongoDB [\d.]+)\))?`),
		func(m submatch.Match, _ string) string {
			s := "server " + m.Get("addr") + " speaks wire version " + m.Get("have") + ", " + m.Get("client") + " needs " + m.Get("want")
			if v := m.Get("server"); v != "" {
				s += " (" + v + ")"
			}
			return s
		}},
	// mongod on data files of another feature compatibility version
	// (src/mongo/db/repl/replication_coordinator_impl.cpp, "UPGRADE
	// PROBLEM: Found an invalid featureCompatibilityVersion document") and
	// on files too new for it.
	{regexp.MustCompile(`UPGRADE PROBLEM: .{0,300}featureCompatibilityVersion|too recent to start up on the existing data files`),
		func(_ submatch.Match, line string) string {
			// The document it found: { _id: "featureCompatibilityVersion",
			// version: "4.4" }.
			if m, ok := submatch.Find(mongoFCVRe, line); ok {
				return "data files at MongoDB featureCompatibilityVersion " + m.Get("have") + ", which this mongod cannot run on"
			}
			return "data files of another MongoDB featureCompatibilityVersion than this mongod"
		}},
	// Docker Engine API version negotiation (moby api/server/middleware
	// version.go): "client version %s is too new. Maximum supported API
	// version is %s" and "client version %s is too old. Minimum supported
	// API version is %s, please upgrade your client to a newer version".
	{regexp.MustCompile(`client version (?P<have>[\d.]+) is too (?P<how>new|old)\. (?:Maximum|Minimum) supported API version is (?P<want>[\d.]+)`),
		func(m submatch.Match, _ string) string {
			return "client API version " + m.Get("have") + " (too " + m.Get("how") + "), daemon supports " + m.Get("want")
		}},
	// MySQL 8 defaults to caching_sha2_password: mysqljs answers
	// ER_NOT_SUPPORTED_AUTH_MODE "Client does not support authentication
	// protocol requested by server; consider upgrading MySQL client", PHP's
	// mysqlnd "The server requested authentication method unknown to the
	// client [caching_sha2_password]", go-sql-driver "this authentication
	// plugin is not supported", jasync-sql "Unknown authentication method
	// -> 'caching_sha2_password'", MySqlConnector "Authentication method
	// 'caching_sha2_password' is not supported".
	{regexp.MustCompile(`Client does not support authentication protocol requested by server|server requested authentication method unknown to the client(?: \[(?P<method>[\w_]+)\])?|this authentication plugin is not supported|Unknown authentication method -> '(?P<method>[\w_]+)'|Authentication method '(?P<method>[\w_]+)' (?:is )?not supported`),
		func(m submatch.Match, _ string) string {
			if v := m.Get("method"); v != "" {
				return "the server requests " + v + ", which the client does not know"
			}
			return "the server's authentication plugin (caching_sha2_password by default since MySQL 8.0) is newer than the client library"
		}},
	// The JVM (java.lang.UnsupportedClassVersionError): "X has been compiled
	// by a more recent version of the Java Runtime (class file version
	// 61.0), this version of the Java Runtime only recognizes class file
	// versions up to 55.0".
	{regexp.MustCompile(`compiled by a more recent version of the Java Runtime \(class file version (?P<have>[\d.]+)\), this version of the Java Runtime only recognizes class file versions up to (?P<want>[\d.]+)`),
		func(m submatch.Match, _ string) string {
			return "classes compiled for class file version " + m.Get("have") + ", the image's Java runtime reads up to " + m.Get("want")
		}},
	// Kibana's check of the Elasticsearch nodes it connects to
	// (src/core/server/elasticsearch/version_check/ensure_es_version.ts):
	// "This version of Kibana (v8.0.0) is incompatible with the following
	// Elasticsearch nodes in your cluster: v7.10.2 @ 10.0.2.3:9200 (…)".
	{regexp.MustCompile(`This version of (?P<client>\S+) \((?P<have>v?[\w.+-]+)\) is incompatible with the following (?P<server>\S+) nodes in your cluster: (?P<want>v?[\w.+-]+)`),
		func(m submatch.Match, _ string) string {
			return m.Get("client") + " " + m.Get("have") + " is incompatible with " + m.Get("server") + " " + m.Get("want")
		}},
}

var pgVersionsRe = regexp.MustCompile(`initialized by PostgreSQL version (?P<have>[\d.]+), which is not compatible with this version (?P<want>[\d.]+)`)

var _ = register(Def{
	Class: VersionMismatch,
	Patterns: []Pattern{
		// The class's own row, for any program's compatibility check that
		// names the versions it compares (applog.SigVersion): "Your
		// database version (1.48.2) is incompatible with your current
		// engine version (1.49.0)", "extension version is 0.4.0, but
		// Immich only supports >=0.2 <0.4".
		{Explains: "the program refuses a version it checks: the data it finds or the server it talks to is of a version this release does not support",
			Fix: "Run versions that support each other: pin this image back to the release the data or the server was made for, migrate the data or upgrade the server first, or move both to a supported pair.", Priority: 89},
		{re: versionSides[0].re,
			Explains: "the data directory was written by another major version of PostgreSQL than the image runs: the image tag changed over an existing volume",
			Fix:      "Run the image version the data was written with (pin the tag back), or upgrade the data directory first (pg_upgrade, or dump with the old version and restore into the new one).", Priority: 89},
		{re: versionSides[1].re,
			Explains: "the server cannot read its data file: it was written by a newer version of the server than the image runs (a downgrade)",
			Fix:      "Run an image at least as new as the one that wrote the data (pin the tag), or remove the data file if it is a cache that can be rebuilt.", Priority: 89},
		{re: versionSides[2].re,
			Explains: "the database driver and the server have no wire protocol version in common: the driver is too new for the server (or the server too new for the driver)",
			Fix:      "Upgrade the database server to a version the driver supports, or pin the driver to a release that still speaks the server's wire version.", Priority: 89},
		{re: versionSides[3].re,
			Explains: "the database server refuses data files written by another version (its featureCompatibilityVersion): the image tag skipped a major version over an existing volume",
			Fix:      "Run the previous major version, set featureCompatibilityVersion to it, then upgrade one major version at a time.", Priority: 89},
		{re: versionSides[4].re,
			Explains: "the client's API version is outside the range the daemon supports: the client library is newer (or older) than the daemon it talks to",
			Fix:      "Pin the client's API version to the daemon's (DOCKER_API_VERSION), or run a client release matching the daemon.", Priority: 89},
		{re: versionSides[5].re,
			Explains: "the client library cannot speak the authentication method the server requests",
			Fix:      "Upgrade the client library (mysql2 instead of mysql for Node), or give the application's user mysql_native_password (ALTER USER … IDENTIFIED WITH mysql_native_password).", Priority: 89},
		{re: versionSides[6].re,
			Explains: "the application was compiled for a newer Java than the image's runtime",
			Fix:      "Run it on a base image with the Java version it was built for, or build it for the image's Java (--release).", Priority: 89},
		{re: versionSides[7].re,
			Explains: "the application refuses the servers it connects to: their version is outside the range it supports",
			Fix:      "Run a release of the application that matches the servers' version (pin its image tag or chart version to theirs), or upgrade the servers first.", Priority: 89},
	},
	Signals:    []applog.Signal{applog.SigVersion},
	NamesImage: true,
	Subject: func(line string) string {
		for _, s := range versionSides {
			if m, ok := submatch.Find(s.re, line); ok {
				return s.say(m, line)
			}
		}
		if v := applog.Versions(line); len(v) > 0 {
			return "versions " + strings.Join(v, ", ")
		}
		return ""
	},
})

var _ = register(Def{
	Class: APIMismatch,
	Patterns: []Pattern{{
		Explains: "the server rejects the request's format (HTTP 400 naming what it does not know): most often the client speaks another version of the server's API",
		Fix:      "Run a client release that supports the server's version (or the server version the client was written for); where the client has an API-version or compatibility setting, set it to the server's.", Priority: 88}},
	Rank:       2, // a line of it and Forbidden or WatchLimit is theirs
	Signals:    []applog.Signal{applog.SigAPIMismatch},
	NamesImage: true,
	Dependency: true,
	Subject: func(line string) string {
		if w := applog.APIMismatchSubject(line); w != "" {
			return "the server answers " + w
		}
		return ""
	},
})
