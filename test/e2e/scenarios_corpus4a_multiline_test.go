package e2e

// Logs whose fact is not on the first error line. Every scenario of this
// batch is captured in test/scenarios now (the last, a TSDB lock held by
// the old ReplicaSet's pod, once a held lock was traced to the sibling on
// the same claim); new misses of the class go here.
var corpus4aMultiline = []scenario{}
