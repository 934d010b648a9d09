package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/safefile"
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
	FilesTotal int            `json:"filesTotal,omitempty" jsonschema:"how many files there are, when files was cut at the output cap"`
	Truncated  bool           `json:"truncated,omitempty" jsonschema:"this result was cut at the server's output cap (--max-output)"`
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

func (s *Server) getEvidence(ctx context.Context, _ *mcp.CallToolRequest, in EvidenceInput) (*mcp.CallToolResult, EvidenceOutput, error) {
	var out EvidenceOutput
	e, err := s.find(in.ID)
	if err != nil {
		return nil, out, err
	}
	out.IncidentID = e.ID
	files := workspace.FilesIn(s.store.Root, e.ID)
	if strings.TrimSpace(in.File) == "" {
		return s.listEvidence(ctx, files, out)
	}
	rel, err := evidencePath(in.File)
	if err != nil {
		return nil, out, err
	}
	if in.Offset < 0 {
		return nil, out, fmt.Errorf("offset must not be negative, got %d", in.Offset)
	}
	out.File = workspace.ContextDir + "/" + rel
	// One page of at most the output cap, read as every reader reads a
	// workspace: no link on the way, a regular file within its limit.
	var data []byte
	var size int64
	err = files.Read(ctx, out.File, func(f *safefile.File) error {
		size = f.Stat().Size()
		if _, err := f.Seek(int64(in.Offset), io.SeekStart); err != nil {
			return err
		}
		var err error
		data, err = io.ReadAll(io.LimitReader(f, int64(s.opts.MaxOutput)))
		return err
	})
	var refused *safefile.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, out, fmt.Errorf("incident %s has no %s (call get_evidence without file for the list)", e.ID, out.File)
	case errors.As(err, &refused):
		return nil, out, fmt.Errorf("incident %s: %s %s", e.ID, out.File, refused.Reason())
	case err != nil:
		return nil, out, err
	}
	out.Size, out.Offset = size, in.Offset
	// Ended on a line when the file goes on, so that a value is never
	// split between two pages.
	if int64(in.Offset+len(data)) < out.Size {
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
		text += fmt.Sprintf("\n[… %d of %d bytes shown: call get_evidence with offset %d for more]\n", out.NextOffset, out.Size, out.NextOffset)
	}
	fitEvidence(&out, s.opts.MaxOutput)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}

// listEvidence lists the regular files under context/, but the hidden
// ones; links are not listed, nor followed into.
func (s *Server) listEvidence(ctx context.Context, files safefile.Dir, out EvidenceOutput) (*mcp.CallToolResult, EvidenceOutput, error) {
	if _, err := files.Stat(ctx, workspace.ContextDir); err != nil {
		return nil, out, fmt.Errorf("incident %s has no readable context/: %w", out.IncidentID, err)
	}
	var walk func(dir string)
	walk = func(dir string) {
		if ctx.Err() != nil {
			return // the call's deadline: stop walking
		}
		entries, err := files.ReadDir(ctx, dir)
		if err != nil {
			return // a directory that vanished or cannot be read is just not listed
		}
		for _, d := range entries {
			full := dir + "/" + d.Name()
			switch {
			case d.IsDir():
				walk(full)
			case d.Type().IsRegular() && !hiddenEvidence[full]:
				if info, err := d.Info(); err == nil {
					out.Files = append(out.Files, EvidenceFile{Path: full, Size: info.Size()})
				}
			}
		}
	}
	walk(workspace.ContextDir)
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	var b strings.Builder
	fmt.Fprintf(&b, "Evidence files of incident %s:\n", out.IncidentID)
	for _, f := range out.Files {
		fmt.Fprintf(&b, "%s (%d bytes)\n", f.Path, f.Size)
	}
	text, _ := s.cap(redact.Clean(b.String()))
	fitEvidence(&out, s.opts.MaxOutput)
	if err := ctx.Err(); err != nil {
		return nil, out, context.Cause(ctx)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, out, nil
}
