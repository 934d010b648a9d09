package applog

import "regexp"

// lockHeldRe is a lock on files another process holds: Prometheus' "lock
// DB directory: resource temporarily unavailable" (2.2: "Locked by other
// process"; its "permission denied" or NFS' "no locks available" has no
// holder), flock's EAGAIN/EWOULDBLOCK,
// InnoDB's "Unable to lock ./ibdata1 error: 11", LevelDB/RocksDB's "LOCK:
// Resource temporarily unavailable", Elasticsearch's "failed to obtain node
// locks", MongoDB's "Unable to lock the lock file: ./mongod.lock (Resource
// temporarily unavailable)", SQLite's "database is locked" (SQLITE_BUSY:
// another connection, on a volume often another pod, holds its write lock).
var lockHeldRe = regexp.MustCompile(`(?i)lock DB directory: resource temporarily unavailable|Locked by other process|LOCK: Resource temporarily unavailable|Unable to lock \S+,? error: 11|failed to obtain node locks|lock (?:is )?(?:already )?held by another|(?:unable|failed) to (?:acquire|obtain) (?:the )?(?:file |directory |data )?lock|Unable to lock the lock file|\bdatabase is locked\b|\bSQLITE_BUSY\b|resource temporarily unavailable.*lock|lock.*resource temporarily unavailable`)

// LockHeld reports whether a line says a lock on the application's files
// is held by another process: on a volume, another pod mounting it.
func LockHeld(line string) bool { return lockHeldRe.MatchString(line) }
