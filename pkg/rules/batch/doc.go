// Package batch holds the Job and CronJob rules (layer workload): a failed
// Job, one still retrying, a CronJob whose runs fail, are suspended,
// blocked or missed, and runs that pile up. One file per rule; jobs.go and
// cron.go hold what they share (the Job analysis, the cron schedule).
package batch
