package investigate

// Node rules: NotReady/Unknown, pressure conditions, NetworkUnavailable, cordoned, and a pod whose node is the problem.
var nodeRules = []Rule{}
