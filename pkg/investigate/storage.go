package investigate

// Storage and config rules: PVCs, volume attach/mount, HPAs.
var storageRules = []Rule{}
