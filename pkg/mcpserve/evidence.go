package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/workspace"
)

// EvidenceInput names an evidence file of an incident.
type EvidenceInput struct {
	ID     string `json:"id" jsonschema:"incident ID, or a unique prefix of one"`
	File   string `json:"file,omitempty" jsonschema:"path under the workspace's context/ directory, e.g. context/logs.txt, context/events.json, context/resources/pod-api.json; omit to list the files"`
	Offset int    `json:"offset,omitempty" jsonschema:"byte offset to start from, to page through a file longer than the output cap"`
}

// EvidenceFile is one readable file.
type EvidenceFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// EvidenceOutput is get_evidence's result.
type EvidenceOutput struct {
	IncidentID string         `json:"incidentId"`
	File       string         `json:"file,omitempty"`
	Size       int64          `json:"size,omitempty" jsonschema:"the file's size on disk"`
	Offset     int            `json:"offset,omitempty"`
	NextOffset int            `json:"nextOffset,omitempty" jsonschema:"where the next page starts, when the text was cut at the output cap"`
	Redactions int            `json:"redactions,omitempty" jsonschema:"values masked now, on top of those masked when the evidence was collected"`
	Files      []EvidenceFile `json:"files,omitempty" jsonschema:"the readable files, when no file was asked for"`
}

// errEvidencePath says what a file argument may name.
var errEvidencePath = errors.New("file must be a path under context/ of the incident's workspace, e.g. context/logs.txt (call get_evidence without file for the list)")

// hiddenEvidence are context files never handed out: the agent's
// kubeconfig names the gateway and carried its bearer token.
var hiddenEvidence = map[string]bool{workspace.AgentKubeconfig: true}

// evidencePath checks a requested file and returns it relative to context/.
// The same rules as the workspace's: relative, clean, no "..", inside
// context/; symlinks are refused when the file is opened.
func evidencePath(file string) (string, error) {
	f := strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(file)), "./")
	if f == "" || strings.ContainsRune(f, 0) || path.IsAbs(f) || filepath.IsAbs(file) || strings.Contains(file, `\`) {
		return "", errEvidencePath
	}
	if !strings.HasPrefix(f, workspace.ContextDir+"/") {
		f = workspace.ContextDir + "/" + f // "logs.txt" means context/logs.txt
	}
	clean := path.Clean(f)
	if clean != f || !strings.HasPrefix(clean, workspace.ContextDir+"/") {
		return "", errEvidencePath
	}
	for _, seg := range strings.Split(clean, "/") {
		if seg == ".." || seg == "." {
			return "", errEvidencePath
		}
	}
	if hiddenEvidence[clean] {
		return "", fmt.Errorf("%s is the agent's connection to the read-only gateway, not evidence: it is never handed out", clean)
	}
	return strings.TrimPrefix(clean, workspace.ContextDir+"/"), nil
}

// openContext opens the incident's context/ directory as a root: nothing
// read through it can lie outside it, whatever symlinks are there.
func (s *Server) openContext(e *store.Entry) (*os.Root, error) {
	if err := workspace.ValidateID(e.ID); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(s.store.Root)
	if err != nil {
		return nil, fmt.Errorf("open workspace root: %w", err)
	}
	defer root.Close()
	ws, err := root.OpenRoot(e.ID)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	return ws.OpenRoot(workspace.ContextDir)
}

func (s *Server) getEvidence(_ context.Context, _ *mcp.CallToolRequest, in EvidenceInput) (*mcp.CallToolResult, EvidenceOutput, error) {
	var out EvidenceOutput
	e, err := s.find(in.ID)
	if err != nil {
		return nil, out, err
	}
	out.IncidentID = e.ID
	cdir, err := s.openContext(e)
	if err != nil {
		return nil, out, fmt.Errorf("incident %s has no readable context/: %w", e.ID, err)
	}
	defer cdir.Close()
	if strings.TrimSpace(in.File) == "" {
		return s.listEvidence(cdir, out)
	}
	rel, err := evidencePath(in.File)
	if err != nil {
		return nil, out, err
	}
	if in.Offset < 0 {
		return nil, out, fmt.Errorf("offset must not be negative, got %d", in.Offset)
	}
	out.File = workspace.ContextDir + "/" + rel
	fi, err := cdir.Lstat(filepath.FromSlash(rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, out, fmt.Errorf("incident %s has no %s (call get_evidence without file for the list)", e.ID, out.File)
	case err != nil:
		return nil, out, err
	case !fi.Mode().IsRegular():
		return nil, out, fmt.Errorf("%s is not a regular file (symbolic links are not followed)", out.File)
	}
	f, err := cdir.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, out, err
	}
	defer f.Close()
	out.Size, out.Offset = fi.Size(), in.Offset
	if _, err := f.Seek(int64(in.Offset), io.SeekStart); err != nil {
		return nil, out, err
	}
	// One page of at most the output cap, ended on a line when the file
	// goes on, so that a value is never split between two pages.
	data, err := io.ReadAll(io.LimitReader(f, int64(s.opts.MaxOutput)))
	if err != nil {
		return nil, out, err
	}
	if int64(in.Offset+len(data)) < fi.Size() {
		if i := strings.LastIndexByte(string(data), '\n'); i >= len(data)/2 {
			data = data[:i+1]
		}
		out.NextOffset = in.Offset + len(data)
	}
	// The bundle was redacted when it was written; this pass guards
	// against anything an agent or a later edit left in context/.
	text, n := redact.Text(string(data))
	out.Redactions = n
	text = term.Clean(text)
	if out.NextOffset > 0 {
		text += fmt.Sprintf("\n[… %d of %d bytes shown: call get_evidence with offset %d for more]\n", out.NextOffset, fi.Size(), out.NextOffset)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// listEvidence lists the regular files under context/, but the hidden ones.
func (s *Server) listEvidence(cdir *os.Root, out EvidenceOutput) (*mcp.CallToolResult, EvidenceOutput, error) {
	err := fs.WalkDir(cdir.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an entry that vanished or cannot be read is just not listed
		}
		full := workspace.ContextDir + "/" + p
		if !d.Type().IsRegular() || hiddenEvidence[full] {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		out.Files = append(out.Files, EvidenceFile{Path: full, Size: info.Size()})
		return nil
	})
	if err != nil {
		return nil, out, err
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	var b strings.Builder
	fmt.Fprintf(&b, "Evidence files of incident %s:\n", out.IncidentID)
	for _, f := range out.Files {
		fmt.Fprintf(&b, "%s (%d bytes)\n", f.Path, f.Size)
	}
	text, _ := s.cap(term.Clean(b.String()))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}
