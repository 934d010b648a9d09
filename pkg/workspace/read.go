package workspace

import (
	"path"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
)

// A workspace is read back by show, status, list, gc, replay, the MCP
// server, the store's upload and the engine once an agent has exited; an
// agent, or whoever shared the workspace, may have left a link, a pipe or
// a huge file anywhere in it. Every one of those reads goes through Files
// (safefile: no link, regular files only, a deadline), each file up to the
// limit below for its name.

const (
	kib = int64(1) << 10
	mib = int64(1) << 20
)

// readLimits is the most read of each file of the layout, first match
// wins (a name ending in / covers every file below it): several times
// what the plugin itself writes there, far below what would hurt.
var readLimits = []struct {
	name string
	max  int64
}{
	{IncidentFile, 4 * mib},
	{PromptFile, 4 * mib},
	{EventFile, 1 * mib},
	{InstructionsFile, 1 * mib},
	{AgentKubeconfig, 1 * mib},
	{ClusterInfoFile, 8 * mib},
	{EventsFile, 32 * mib},
	{LogsFile, 64 * mib},           // 256 KiB per container and instance when collected
	{ResourcesDir + "/", 16 * mib}, // one object each; the API server's limit is 1.5 MiB
	{ContextDir + "/", 32 * mib},   // pods of the node and namespace, candidates, problems
	{ReportFile, 8 * mib},
	{ReportJSONFile, 8 * mib},
	{ArtifactsCatalog, 8 * mib},
	{AgentLogFile, 64 * mib},
	{AuditFile, 64 * mib},
	{ArtifactsDir + "/", maxArtifactBytes},
	{CancelPrefix, 4 * kib}, // a request file in the root: who asked
}

// CancelPrefix starts the name of a cancellation request in a workspace
// root (.cancel-ID).
const CancelPrefix = ".cancel-"

// ReadLimit is the most read of the workspace file name (a layout path
// such as output/investigation.md); names the layout does not know get
// safefile.DefaultLimit.
func ReadLimit(name string) int64 {
	name = path.Clean(name)
	for _, l := range readLimits {
		if strings.HasSuffix(l.name, "/") && strings.HasPrefix(name, l.name) ||
			l.name == CancelPrefix && strings.HasPrefix(name, l.name) || name == l.name {
			return l.max
		}
	}
	return safefile.DefaultLimit
}

// Files is the workspace at dir, for reading: dir as given (links on the
// way to it are the user's), nothing below it followed.
func Files(dir string) safefile.Dir {
	return safefile.Dir{Base: dir, Limit: ReadLimit}
}

// FilesIn is the workspace id in the root: its directory is not followed
// either.
func FilesIn(root, id string) safefile.Dir {
	return safefile.Dir{Base: root, Path: id, Limit: ReadLimit}
}

// Files is the workspace, for reading.
func (w *Workspace) Files() safefile.Dir { return Files(w.Dir) }
