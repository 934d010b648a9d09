package investigate

// Storage and config rules: PVCs, volume attach/mount, HPAs.

// Names the storage components use.
const ()

// The persistentvolume controller's event messages.
var ()
