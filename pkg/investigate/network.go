package investigate

// Network rules: Services without endpoints, Ingress backends and classes.
var networkRules = []Rule{}
