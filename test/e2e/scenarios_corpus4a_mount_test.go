package e2e

// A file the application cannot find under a directory a volume is mounted
// over: a correct diagnosis names the volume that hides the image's files
// (and subPath as the way to mount one file). Every scenario of this class
// is captured in test/scenarios now; new misses of it go here.
var corpus4aMount = []scenario{}
