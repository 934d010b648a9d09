package metrics

import (
	"fmt"
	"os"

	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// WorkspaceBytes is the total size of the regular files under dir, for
// agent_runtime_workspace_size_bytes (workspace.DiskUsage: links are not
// followed, files that vanish during the walk are skipped).
func WorkspaceBytes(dir string) (int64, error) {
	n, err := workspace.DiskUsage(os.DirFS(dir), ".")
	if err != nil {
		return 0, fmt.Errorf("measure workspace %s: %w", dir, err)
	}
	return n, nil
}
