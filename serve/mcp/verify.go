package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/gate/evidence"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/verify"
	"github.com/cairn-dev/cairn/internal/must"
	"github.com/cairn-dev/cairn/schema"
)

// VerifyOptions turn on the verify_change tool: the verification gate on
// the server's repository, as `cairn verify` runs it (evidence.Run).
type VerifyOptions struct {
	// Dir is the gate's directory (workspaces and caches; one gate at a
	// time uses it, the others wait).
	Dir string
	// Executor runs the checks; nil: the policy chooses (bubblewrap,
	// unless it cannot run and User allows the weaker backend).
	Executor sandbox.Executor
	// User is the user's layer of the policy (the server's command line
	// and the user's policy file), which the repository's only narrows.
	User policy.User
	// Reruns of a failing test (0: the gate's default).
	Reruns int
}

// VerifyChangeIn is the input of verify_change.
type VerifyChangeIn struct {
	Task    string `json:"task" jsonschema:"the task contract: a path relative to the repository (YAML or JSON), or the contract's text itself (text with a newline, or JSON starting with {)"`
	Diff    string `json:"diff,omitempty" jsonschema:"judge the commit range BASE..HEAD (BASE becomes the contract's base)"`
	Working bool   `json:"working,omitempty" jsonschema:"judge the worktree's uncommitted changes against the contract's base, untracked files included (the default when diff is not given)"`
}

// VerifyChangeOut is the output of verify_change: the gate's report and
// the evidence bundle's summary (the bundle without the report).
type VerifyChangeOut struct {
	Report   *verify.Report   `json:"report"`
	Evidence *evidence.Bundle `json:"evidence"`
}

// verifyOutSchema is VerifyChangeOut's schema, from the evidence bundle's
// published one (whose $defs describe the report and the bundle).
func verifyOutSchema() *jsonschema.Schema {
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(schema.EvidenceJSONSchema), &doc); err != nil {
		panic(err)
	}
	out := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []string{"report", "evidence"},
		"properties": map[string]any{
			"report":   map[string]any{"$ref": "#/$defs/report"},
			"evidence": map[string]any{"$ref": "#/$defs/bundle"},
		},
		"$defs": doc.Defs,
	}
	// out is strings and the $defs just decoded: it always encodes
	var s *jsonschema.Schema
	if err := json.Unmarshal(must.JSON(out), &s); err != nil {
		panic(err)
	}
	return s
}

func (s *Server) verifyChange(ctx context.Context, _ *engine.Snapshot, in VerifyChangeIn) (VerifyChangeOut, string, error) {
	vo := s.opts.Verify
	root := s.eng.Root()
	rq := evidence.Request{Repo: root, Dir: vo.Dir, Executor: vo.Executor, User: vo.User, Reruns: vo.Reruns, CairnVersion: s.opts.Version}
	task := strings.TrimSpace(in.Task)
	switch {
	case task == "":
		return VerifyChangeOut{}, "", engine.Errorf(engine.InvalidArgument, "task is required: a contract path relative to the repository, or the contract's text")
	case in.Diff != "" && in.Working:
		return VerifyChangeOut{}, "", engine.Errorf(engine.InvalidArgument, "give diff or working, not both")
	case strings.Contains(task, "\n") || strings.HasPrefix(task, "{"):
		rq.TaskText = []byte(in.Task)
	default:
		_, abs, err := engine.RepoPath(root, task)
		if err != nil {
			return VerifyChangeOut{}, "", err
		}
		rq.TaskFile = abs
	}
	rq.Range = in.Diff
	rq.Command = []string{"cairn", "verify", "--repo", root, "--task", task}
	if rq.TaskText != nil {
		rq.Command[len(rq.Command)-1] = "CONTRACT"
	}
	if in.Diff != "" {
		rq.Command = append(rq.Command, "--diff", in.Diff)
	} else {
		rq.Command = append(rq.Command, "--working")
	}
	rep, b, err := evidence.Run(ctx, rq)
	var re *evidence.RequestError
	switch {
	case errors.As(err, &re):
		return VerifyChangeOut{}, "", engine.Errorf(engine.InvalidArgument, "%s", re.Error())
	case err != nil:
		return VerifyChangeOut{}, "", err
	}
	if iso := b.Isolation; s.opts.Log != nil && (!iso.Isolated || len(iso.Ignored) > 0) {
		s.opts.Log.Warn("verify_change: isolation", "backend", iso.Backend, "degraded", iso.Degraded, "weakened", iso.Weakened, "ignored", iso.Ignored)
	}
	return VerifyChangeOut{Report: rep, Evidence: b.WithoutReport()}, b.Markdown(), nil
}

// addVerify registers verify_change. It runs the contract's checks (in a
// sandbox) and adds worktrees to the repository's git directory: neither
// read-only nor closed over the index, and heavy.
func (s *Server) addVerify() {
	in, err := jsonschema.For[VerifyChangeIn](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of verify_change: %v", err))
	}
	const title = "Verify a change"
	open := true
	info := ToolInfo{Name: "verify_change", Title: title,
		Description: "Run the verification gate on a change: every acceptance criterion of a task contract executed in a sandbox (tests, commands, a regression test that must fail on the base), plus tamper and scope checks. pass only when all hold; takes minutes. Returns the report and an evidence summary (files, risks, how to reproduce).",
		Input:       in, Output: verifyOutSchema()}
	s.add(info, true, &sdk.ToolAnnotations{Title: title, OpenWorldHint: &open}, func(ctx context.Context, snap *engine.Snapshot, args json.RawMessage) (any, string, error) {
		var in VerifyChangeIn
		if len(bytes.TrimSpace(args)) > 0 {
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return nil, "", engine.Errorf(engine.InvalidArgument, "arguments of verify_change: %v", err)
			}
		}
		out, text, err := s.verifyChange(ctx, snap, in)
		if err != nil {
			return nil, "", err
		}
		return out, text, nil
	})
}
