package loop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/agent/internal/agenttest"
	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/anthropic"
	"github.com/cairn-dev/cairn/agent/llm/llmtest"
	"github.com/cairn-dev/cairn/agent/llm/openai"
	"github.com/cairn-dev/cairn/agent/loop"
	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
	"github.com/cairn-dev/cairn/internal/must"
)

const fixtureApp = "../../testdata/apps/artifact-dropped"

// The fixture's contract: the mapper drops the artifact URL.
const contractYAML = `objective: After a page refresh, a finished task's download link is still shown (Task.ArtifactURL).
base: HEAD
scope:
  write: ["server/**", "web/src/**"]
  protected: [".github/**", "server/schema.sql"]
criteria:
  - id: regression
    text: A new regression test fails on the base and passes with the change.
    check: {regression: true}
  - id: server-tests
    text: The server's tests pass.
    check: {tests: "./server/..."}
  - id: scope
    text: The change stays within scope.
    check: {scope: true}
budgets: {steps: 30}
`

func sharedExecutor(t testing.TB) sandbox.Executor { return agenttest.Executor(t) }

func copyTree(t testing.TB, from, to string) { agenttest.CopyTree(t, from, to) }

func git(t testing.TB, dir string, args ...string) string { return agenttest.Git(t, dir, args...) }

func fixtureRepo(t testing.TB) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	copyTree(t, fixtureApp, repo)
	os.WriteFile(filepath.Join(repo, ".gitignore"), []byte(".cairn/\n"), 0o644)
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")
	return repo
}

func contract(t testing.TB, text string) *task.Contract {
	t.Helper()
	c, err := task.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ---- the scripted model ----

// action is one thing the scripted model does, with a marker that says
// it has been done: a substring of its input seen in an exchange whose
// result is known.
type action struct {
	tool, input, marker string
}

const regressionTest = "package main\n\nimport \"testing\"\n\n// A refreshed task keeps its artifact link.\nfunc TestToResponseKeepsArtifactURL(t *testing.T) {\n\tgot := ToResponse(Task{ID: 1, Status: \"done\", ArtifactURL: \"https://x/a.zip\"})\n\tif got.ArtifactURL != \"https://x/a.zip\" {\n\t\tt.Fatalf(\"artifact URL dropped: %+v\", got)\n\t}\n}\n"

func fixActions() []action {
	test := must.JSON(map[string]string{"path": "server/mapper_regress_test.go", "content": regressionTest})
	return []action{
		{"trace", `{"target":"Task.ArtifactURL"}`, `"target":"Task.ArtifactURL"`},
		{"read", `{"path":"server/mapper.go"}`, `"path":"server/mapper.go"}`},
		{"note", `{"kind":"hypothesis","text":"ToResponse copies ID and Status but not ArtifactURL, so the refresh path loses it"}`, `ToResponse copies ID`},
		{"edit", `{"path":"server/mapper.go","old":"\t\tStatus: t.Status,\n","new":"\t\tStatus: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n"}`, `ArtifactURL: t.ArtifactURL`},
		{"create", string(test), `mapper_regress_test.go`},
		{"run_tests", `{"selector":"./server/..."}`, `"selector":"./server/..."`},
		{"finish", `{"root_cause":"ToResponse (server/mapper.go) built the response without ArtifactURL, so a reloaded task lost its link","summary":"Map ArtifactURL in ToResponse; regression test TestToResponseKeepsArtifactURL"}`, `"root_cause"`},
	}
}

// exchanges are the tool calls a model input shows with their results:
// tool_use/tool_result pairs of the transcript and the "recent tool calls"
// section the harness renders from task state.
type exchange struct{ tool, input, result string }

func exchanges(c *llmtest.Call) []exchange {
	var out []exchange
	uses := map[string]*exchange{}
	for _, m := range c.Messages {
		for _, b := range m.Content {
			switch b.Kind {
			case llm.ToolUse:
				e := &exchange{tool: b.Name, input: string(b.Input)}
				uses[b.ID] = e
			case llm.ToolResult:
				if e := uses[b.ID]; e != nil {
					e.result = b.Text
					out = append(out, *e)
				}
			case llm.Text:
				for _, sec := range strings.Split(b.Text, "\n### step ")[1:] {
					head, body, _ := strings.Cut(sec, "\n")
					// "N: tool INPUT → status"
					_, rest, _ := strings.Cut(head, ": ")
					tool, in, _ := strings.Cut(rest, " ")
					out = append(out, exchange{tool: tool, input: in, result: body})
				}
			}
		}
	}
	return out
}

// fixer is a scripted model that fixes the fixture: each call it takes the
// first action whose effect its input does not show yet, so it picks up
// where a resumed run left off, as a model reading task state would.
func fixer(acts []action) llmtest.Turn {
	return func(c *llmtest.Call) llmtest.Reply {
		ex := exchanges(c)
		for _, a := range acts {
			done := false
			for _, e := range ex {
				if e.tool == a.tool && strings.Contains(e.input, a.marker) && !strings.Contains(e.result, "outcome is unknown") {
					done = true
				}
			}
			if !done {
				return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: a.tool, Input: a.input}}}
			}
		}
		return llmtest.Reply{Text: "all done"}
	}
}

func repeatTurn(t llmtest.Turn, n int) []llmtest.Turn {
	out := make([]llmtest.Turn, n)
	for i := range out {
		out[i] = t
	}
	return out
}

func anthropicProvider(t testing.TB, srv *llmtest.Server, retries *loop.RetryLog, prices llm.Prices) llm.Provider {
	t.Helper()
	o := llm.Options{BaseURL: srv.AnthropicBaseURL(), APIKey: "test-key", RetryBase: time.Millisecond, Prices: prices}
	if retries != nil {
		o.OnRetry = retries.Hook
	}
	p, err := anthropic.New("claude-test", o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func events(t testing.TB, dir string) []state.Event {
	t.Helper()
	v, err := state.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return v.Events
}

func kinds(evs []state.Event, kind string) []state.Event {
	var out []state.Event
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// TestFixesDroppedField is the end-to-end run: through the real Anthropic
// SDK client over HTTP, the scripted model traces the field, reads the
// mapper, edits it, adds a regression test, runs the tests and finishes;
// the gate verifies the change.
func TestFixesDroppedField(t *testing.T) {
	repo := fixtureRepo(t)
	srv := llmtest.New(repeatTurn(fixer(fixActions()), 20)...)
	defer srv.Close()
	retries := &loop.RetryLog{}
	out, err := loop.Run(context.Background(), loop.Options{
		Repo: repo, Contract: contract(t, contractYAML), Provider: anthropicProvider(t, srv, retries, nil),
		Executor: sharedExecutor(t), Retries: retries, Reruns: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != loop.StatusVerified {
		data, _ := os.ReadFile(out.EventLog)
		t.Fatalf("status %s (%s), want verified; events:\n%s", out.Status, out.Reason, tail(string(data), 6000))
	}
	evs := events(t, out.Dir)
	// Traced before editing.
	firstTrace, firstEdit := -1, -1
	for i, e := range kinds(evs, state.KindToolCall) {
		var d struct{ Tool string }
		json.Unmarshal(e.Data, &d)
		if d.Tool == "trace" && firstTrace < 0 {
			firstTrace = i
		}
		if d.Tool == "edit" && firstEdit < 0 {
			firstEdit = i
		}
	}
	if firstTrace < 0 || firstEdit < 0 || firstTrace > firstEdit {
		t.Errorf("trace call %d, edit call %d: want a trace before the edit", firstTrace, firstEdit)
	}
	if len(kinds(evs, state.KindCheck)) != 1 || len(kinds(evs, state.KindBrief)) != 1 {
		t.Errorf("want one brief and one gate check event")
	}
	// The brief saw the dropped field's gap.
	var brief struct{ Brief string }
	json.Unmarshal(kinds(evs, state.KindBrief)[0].Data, &brief)
	if !strings.Contains(brief.Brief, "ArtifactURL") || !strings.Contains(brief.Brief, "GAP") {
		t.Errorf("brief has no trace of the field and its gap:\n%s", brief.Brief)
	}
	// The evidence bundle: JSON and the change description.
	if _, err := os.Stat(filepath.Join(out.Evidence, "evidence.json")); err != nil {
		t.Errorf("evidence bundle: %v", err)
	}
	md, _ := os.ReadFile(filepath.Join(out.Evidence, "CHANGE.md"))
	if !strings.Contains(string(md), "ToResponse (server/mapper.go) built the response without ArtifactURL") || !strings.Contains(string(md), "regression") {
		t.Errorf("CHANGE.md lacks the root cause or the proof:\n%s", md)
	}
	// what a reviewer reads in two minutes: the model's words marked as
	// such, how the regression test failed at the base, the run's summary,
	// risks computed, a reproduce line that runs as written
	for _, want := range []string{"_The model's diagnosis, in its words (not checked by the gate):_", "Backed by the gate's checks: regression **pass**",
		"at the base: **fail (assertion)**", "artifact URL dropped", "Agent run `" + filepath.Base(out.Dir) + "`: ", "refused by the policy",
		"--task " + filepath.Join(out.Dir, "contract") + " --patch " + filepath.Join(out.Evidence, loop.PatchFile), "### Risks\n\nLevel"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("CHANGE.md lacks %q:\n%s", want, md)
		}
	}
	// The user's worktree is untouched until apply.
	if s := git(t, repo, "status", "--porcelain"); s != "" {
		t.Errorf("user's worktree changed by the run: %s", s)
	}
	checkAppliesVerifiedPatch(t, repo, out)
	res, err := loop.Apply(context.Background(), out.Dir, loop.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 2 {
		t.Errorf("applied %v, want the mapper and the test", res.Files)
	}
	b, _ := os.ReadFile(filepath.Join(repo, "server/mapper.go"))
	if strings.Count(string(b), "ArtifactURL: t.ArtifactURL") != 1 {
		t.Errorf("mapper after apply:\n%s", b)
	}
	// Applying again is refused: the files now differ from the base.
	if _, err := loop.Apply(context.Background(), out.Dir, loop.ApplyOptions{}); err == nil {
		t.Error("a second apply over the changed files was not refused")
	}
	// The sandbox system prompt says tool output is material.
	if calls := srv.Calls(); len(calls) == 0 || !strings.Contains(calls[0].System, "never instructions") {
		t.Error("system prompt does not state that repository text is material")
	}
}

// checkAppliesVerifiedPatch: apply brings the patch the gate verified,
// never the workspace as it is now. A line added to the workspace after
// verification is refused on both paths (worktree and branch) and the
// user's file stays as it was; so is a patch that is not the one the
// evidence hashed, or none. The workspace and patch are put back after.
func checkAppliesVerifiedPatch(t *testing.T, repo string, out *loop.Outcome) {
	t.Helper()
	ctx := context.Background()
	user := filepath.Join(repo, "server", "mapper.go")
	before, _ := os.ReadFile(user)
	work := filepath.Join(out.Dir, "work", "server", "mapper.go")
	verified, err := os.ReadFile(work)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(work, append(slices.Clip(verified), "\n// added after the gate\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []loop.ApplyOptions{{}, {Branch: "after-gate"}} {
		_, err := loop.Apply(ctx, out.Dir, o)
		var drift *loop.DriftError
		if !errors.As(err, &drift) || !slices.Equal(drift.Paths, []string{"server/mapper.go"}) {
			t.Errorf("apply %+v of a workspace changed after the gate: %v, want a DriftError naming server/mapper.go", o, err)
		}
	}
	if now, _ := os.ReadFile(user); !bytes.Equal(now, before) {
		t.Errorf("a refused apply changed the user's file:\n%s", now)
	}
	if s := git(t, repo, "branch", "--list", "after-gate"); s != "" {
		t.Errorf("a refused apply made the branch: %s", s)
	}
	if err := os.WriteFile(work, verified, 0o644); err != nil {
		t.Fatal(err)
	}
	pf := filepath.Join(out.Evidence, "change.patch")
	good, err := os.ReadFile(pf)
	if err != nil {
		t.Fatal(err)
	}
	for name, damage := range map[string]func(){
		"edited": func() {
			os.WriteFile(pf, bytes.Replace(good, []byte("ArtifactURL: t.ArtifactURL"), []byte("ArtifactURL: t.ArtifactURL+\"!\""), 1), 0o644)
		},
		"missing": func() { os.Remove(pf) },
	} {
		damage()
		var ee *loop.EvidenceError
		if _, err := loop.Apply(ctx, out.Dir, loop.ApplyOptions{}); !errors.As(err, &ee) {
			t.Errorf("apply with the patch %s: %v, want an EvidenceError", name, err)
		}
		os.WriteFile(pf, good, 0o644)
	}
	if now, _ := os.ReadFile(user); !bytes.Equal(now, before) {
		t.Errorf("a refused apply changed the user's file:\n%s", now)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// noGateRun runs a contract with the gate off and the given turns.
func noGateRun(t *testing.T, c string, prov func(*llmtest.Server, *loop.RetryLog) llm.Provider, turns ...llmtest.Turn) (*loop.Outcome, []state.Event, *llmtest.Server) {
	t.Helper()
	return noGateRunIn(t, fixtureRepo(t), c, prov, nil, turns...)
}

// noGateRunIn is noGateRun in repo, with the options edited by edit.
func noGateRunIn(t *testing.T, repo, c string, prov func(*llmtest.Server, *loop.RetryLog) llm.Provider, edit func(*loop.Options), turns ...llmtest.Turn) (*loop.Outcome, []state.Event, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(turns...)
	t.Cleanup(srv.Close)
	retries := &loop.RetryLog{}
	if prov == nil {
		prov = func(s *llmtest.Server, r *loop.RetryLog) llm.Provider { return anthropicProvider(t, s, r, nil) }
	}
	o := loop.Options{
		Repo: repo, Contract: contract(t, c), Provider: prov(srv, retries),
		Executor: sharedExecutor(t), NoGate: true, Retries: retries,
	}
	if edit != nil {
		edit(&o)
	}
	out, err := loop.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return out, events(t, out.Dir), srv
}

func TestLoopingModelEscalates(t *testing.T) {
	read := llmtest.Use("read", `{"path":"server/mapper.go"}`)
	out, evs, _ := noGateRun(t, contractYAML, nil, repeatTurn(read, 10)...)
	if out.Status != loop.StatusEscalated || !strings.Contains(out.Reason, "loop") {
		t.Fatalf("status %s (%s), want escalated for a loop", out.Status, out.Reason)
	}
	if n := len(kinds(evs, state.KindRepeat)); n != loop.RepeatLimit {
		t.Errorf("%d repeat events, want %d", n, loop.RepeatLimit)
	}
	if len(kinds(evs, state.KindEscalation)) != 1 {
		t.Error("no escalation event")
	}
}

func TestBudgets(t *testing.T) {
	// Each turn reads another line range, so nothing repeats.
	reader := func(usage llm.Usage) llmtest.Turn {
		n := 0
		return func(c *llmtest.Call) llmtest.Reply {
			n++
			return llmtest.Reply{Usage: usage, ToolCalls: []llmtest.ToolCall{{Name: "read", Input: fmt.Sprintf(`{"path":"server/mapper.go","start_line":1,"end_line":%d}`, n)}}}
		}
	}
	base := strings.Replace(contractYAML, "budgets: {steps: 30}", "", 1)
	cases := []struct {
		name, budgets, want string
		usage               llm.Usage
	}{
		{"steps", "budgets: {steps: 3}", "steps 3 of 3", llm.Usage{InputTokens: 10, OutputTokens: 10}},
		{"input", "budgets: {input_tokens: 2500}", "input tokens", llm.Usage{InputTokens: 1000, OutputTokens: 10}},
		{"cached input", "budgets: {input_tokens: 2500}", "input tokens", llm.Usage{InputTokens: 10, CacheReadTokens: 700, CacheWriteTokens: 300, OutputTokens: 10}},
		{"output", "budgets: {output_tokens: 250}", "output tokens", llm.Usage{InputTokens: 10, OutputTokens: 100}},
		{"cost", "budgets: {cost_usd: 0.02}", "cost", llm.Usage{InputTokens: 1000, OutputTokens: 1000}},
	}
	prices := llm.Prices{"claude-test": {InputPerMTok: 3, OutputPerMTok: 15}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prov := func(s *llmtest.Server, r *loop.RetryLog) llm.Provider { return anthropicProvider(t, s, r, prices) }
			out, evs, _ := noGateRunIn(t, fixtureRepo(t), base+tc.budgets+"\n", prov, func(o *loop.Options) { o.Prices = prices }, repeatTurn(reader(tc.usage), 20)...)
			if out.Status != loop.StatusEscalated || !strings.Contains(out.Reason, tc.want) {
				t.Fatalf("status %s (%s), want escalated for %q", out.Status, out.Reason, tc.want)
			}
			esc := kinds(evs, state.KindEscalation)
			if len(esc) != 1 || !strings.Contains(string(esc[0].Data), "budget") {
				t.Errorf("escalation events %v", esc)
			}
		})
	}
	t.Run("wall", func(t *testing.T) {
		n := 0
		slow := func(c *llmtest.Call) llmtest.Reply {
			n++
			ch := make(chan struct{})
			time.AfterFunc(1100*time.Millisecond, func() { close(ch) })
			return llmtest.Reply{Hold: ch, ToolCalls: []llmtest.ToolCall{{Name: "read", Input: fmt.Sprintf(`{"path":"server/mapper.go","start_line":1,"end_line":%d}`, n)}}}
		}
		out, evs, _ := noGateRun(t, base+"budgets: {wall_s: 1}\n", nil, repeatTurn(slow, 5)...)
		if out.Status != loop.StatusEscalated || !strings.Contains(out.Reason, "wall time") {
			t.Fatalf("status %s (%s), want escalated for wall time", out.Status, out.Reason)
		}
		if len(kinds(evs, state.KindEscalation)) != 1 {
			t.Error("no escalation event")
		}
	})
	// The wall budget is a deadline on the commands too: a test that
	// sleeps 30 s is killed at wall_s, and the run escalates then.
	t.Run("wall mid-tool", func(t *testing.T) {
		repo := fixtureRepo(t)
		os.WriteFile(filepath.Join(repo, "server", "sleep_test.go"), []byte("package main\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSleeps(t *testing.T) { time.Sleep(30 * time.Second) }\n"), 0o644)
		git(t, repo, "add", ".")
		git(t, repo, "commit", "-q", "-m", "a slow test")
		const wall = 3
		start := time.Now()
		out, evs, srv := noGateRunIn(t, repo, base+fmt.Sprintf("budgets: {wall_s: %d}\n", wall), nil, nil,
			repeatTurn(llmtest.Use("run_tests", `{"selector":"./server/... -run ^TestSleeps$"}`), 3)...)
		took := time.Since(start)
		if out.Status != loop.StatusEscalated || !strings.Contains(out.Reason, "wall time") {
			t.Fatalf("status %s (%s), want escalated for wall time", out.Status, out.Reason)
		}
		if len(srv.Calls()) == 0 || !strings.Contains(out.Reason, "during run_tests") {
			t.Fatalf("the budget did not stop the test run (%d model calls, %q): set-up took longer than wall_s?", len(srv.Calls()), out.Reason)
		}
		if took > (wall+6)*time.Second {
			t.Errorf("the run took %s with wall_s %d", took.Round(time.Second), wall)
		}
		esc := kinds(evs, state.KindEscalation)
		if len(esc) != 1 || !strings.Contains(string(esc[0].Data), "learned") {
			t.Errorf("escalation events %v", esc)
		}
	})
	// A cost ceiling needs a price: a model without one is refused before
	// anything runs, and the error says how to give one.
	t.Run("unpriced cost", func(t *testing.T) {
		repo := fixtureRepo(t)
		srv := llmtest.New()
		defer srv.Close()
		_, err := loop.Run(context.Background(), loop.Options{
			Repo: repo, Contract: contract(t, base+"budgets: {cost_usd: 0.5}\n"), Provider: anthropicProvider(t, srv, nil, nil),
			Executor: sharedExecutor(t), NoGate: true,
		})
		var up *loop.UnpricedError
		if !errors.As(err, &up) || !strings.Contains(err.Error(), "--prices") || up.Model != "claude-test" {
			t.Fatalf("Run with cost_usd and an unpriced model: %v", err)
		}
		if _, err := os.Stat(filepath.Join(repo, ".cairn", "runs")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused run left a run directory: %v", err)
		}
		if len(srv.Calls()) != 0 {
			t.Error("the model was called")
		}
	})
}

func TestUnknownToolsAndMalformedArguments(t *testing.T) {
	out, evs, srv := noGateRun(t, contractYAML, nil,
		llmtest.Use("rm_rf", `{"path":"/"}`),
		llmtest.Use("read", `{"path": "server/mapper.go"`), // malformed JSON
		llmtest.Use("read", `{"path": 42}`),                // wrong type
		llmtest.Use("edit", `{"path":"../outside.go","old":"a","new":"b"}`),
		llmtest.Use("finish", `{"root_cause":"none","summary":"gave up"}`),
	)
	if out.Status != loop.StatusUnverified {
		t.Fatalf("status %s (%s), want unverified", out.Status, out.Reason)
	}
	results := kinds(evs, state.KindToolResult)
	if len(results) != 5 {
		t.Fatalf("%d tool results, want 5", len(results))
	}
	for i, r := range results[:4] {
		var d struct {
			IsError bool   `json:"is_error"`
			Result  string `json:"result"`
		}
		json.Unmarshal(r.Data, &d)
		if !d.IsError {
			t.Errorf("result %d is not an error: %s", i, d.Result)
		}
	}
	if !strings.Contains(string(results[0].Data), "unknown tool") {
		t.Errorf("unknown tool answer: %s", results[0].Data)
	}
	// The model saw each error as a tool result.
	calls := srv.Calls()
	if len(calls) < 2 {
		t.Fatal("no second call")
	}
	if r := calls[1].LastToolResults(); len(r) != 1 || !r[0].IsError || !strings.Contains(r[0].Text, "unknown tool") {
		t.Errorf("second request's tool result: %+v", r)
	}
}

func TestRetriesThenSucceeds(t *testing.T) {
	out, evs, _ := noGateRun(t, contractYAML, nil,
		llmtest.Fail(429), llmtest.Fail(500),
		llmtest.Use("finish", `{"root_cause":"x","summary":"y"}`),
	)
	if out.Status != loop.StatusUnverified {
		t.Fatalf("status %s (%s)", out.Status, out.Reason)
	}
	if n := len(kinds(evs, state.KindModelRetry)); n != 2 {
		t.Errorf("%d retry events, want 2", n)
	}
	mc := kinds(evs, state.KindModelCall)
	if len(mc) != 1 || !strings.Contains(string(mc[0].Data), `"attempts":3`) {
		t.Errorf("model calls %v", mc)
	}
}

func TestProviderFailureAborts(t *testing.T) {
	out, evs, _ := noGateRun(t, contractYAML, nil, llmtest.Fail(400))
	if out.Status != loop.StatusAborted || !strings.Contains(out.Reason, "400") {
		t.Fatalf("status %s (%s), want aborted with the provider's error", out.Status, out.Reason)
	}
	if len(kinds(evs, state.KindError)) == 0 {
		t.Error("no error event")
	}
}

func TestNeedsClarification(t *testing.T) {
	repo := fixtureRepo(t)
	srv := llmtest.New()
	defer srv.Close()
	out, err := loop.Run(context.Background(), loop.Options{
		Repo: repo, Contract: contract(t, "objective: make it better\ncriteria:\n  - {id: s, text: in scope, check: {scope: true}}\n"),
		Provider: anthropicProvider(t, srv, nil, nil), Executor: sharedExecutor(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != loop.StatusNeedsClarification || len(out.Questions) == 0 {
		t.Fatalf("status %s, questions %v", out.Status, out.Questions)
	}
	if len(srv.Calls()) != 0 {
		t.Error("the model was called for a contract that needs clarification")
	}
}

// TestOpenAIProvider drives a short run through the OpenAI SDK.
func TestOpenAIProvider(t *testing.T) {
	prov := func(s *llmtest.Server, r *loop.RetryLog) llm.Provider {
		p, err := openai.New("gpt-test", llm.Options{BaseURL: s.OpenAIBaseURL(), APIKey: "k", RetryBase: time.Millisecond, OnRetry: r.Hook})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	out, evs, srv := noGateRun(t, contractYAML, prov,
		llmtest.Use("definition", `{"symbol":"ToResponse"}`),
		llmtest.Use("finish", `{"root_cause":"x","summary":"y"}`),
	)
	if out.Status != loop.StatusUnverified {
		t.Fatalf("status %s (%s)", out.Status, out.Reason)
	}
	if srv.Calls()[0].Protocol != "openai" {
		t.Errorf("protocol %s", srv.Calls()[0].Protocol)
	}
	r := srv.Calls()[1].LastToolResults()
	if len(r) != 1 || r[0].IsError || !strings.Contains(r[0].Text, "mapper.go") {
		t.Errorf("definition result through openai: %+v", r)
	}
	_ = evs
}

// TestCompaction: an input past 80 % of the model's window is rebuilt from
// task state, as a compaction event, and the run goes on.
func TestCompaction(t *testing.T) {
	repo := fixtureRepo(t)
	n := 0
	reader := func(c *llmtest.Call) llmtest.Reply {
		n++
		if n > 6 {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "finish", Input: `{"root_cause":"r","summary":"s"}`}}}
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "read", Input: fmt.Sprintf(`{"path":"server/store.go","start_line":1,"end_line":%d}`, 10+n)}}}
	}
	srv := llmtest.New(repeatTurn(reader, 10)...)
	defer srv.Close()
	out, err := loop.Run(context.Background(), loop.Options{
		Repo: repo, Contract: contract(t, contractYAML), Provider: anthropicProvider(t, srv, nil, nil),
		Executor: sharedExecutor(t), NoGate: true, Window: 4000,
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != loop.StatusUnverified {
		t.Fatalf("status %s (%s)", out.Status, out.Reason)
	}
	evs := events(t, out.Dir)
	comp := kinds(evs, state.KindCompaction)
	if len(comp) == 0 {
		t.Fatal("no compaction event")
	}
	// The call after a compaction starts from one message: task state.
	found := false
	for _, c := range srv.Calls()[1:] {
		if len(c.Messages) == 1 && strings.Contains(c.LastText(), "## Task state") && strings.Contains(c.LastText(), "server/store.go") {
			found = true
		}
	}
	if !found {
		t.Error("no model input rebuilt from task state after compaction")
	}
}

// TestAskMode: under a policy in ask mode an action outside the allowlist
// pauses the run until a person answers from outside (state.Decide, as
// cairn agent approve|deny does); an approval grants that exact argv, a
// denial reaches the model with the person's note.
func TestAskMode(t *testing.T) {
	pol, err := policy.Parse([]byte("version: 1\nmode: ask\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, approve := range []bool{true, false} {
		t.Run(fmt.Sprint("approve=", approve), func(t *testing.T) {
			repo := fixtureRepo(t)
			srv := llmtest.New(
				llmtest.Use("shell", `{"argv":["sh","-c","echo asked-and-granted"]}`),
				llmtest.Use("finish", `{"root_cause":"r","summary":"s"}`),
			)
			defer srv.Close()
			done := make(chan *loop.Outcome, 1)
			go func() {
				out, err := loop.Run(context.Background(), loop.Options{
					Repo: repo, Contract: contract(t, contractYAML), Provider: anthropicProvider(t, srv, nil, nil),
					Executor: sharedExecutor(t), NoGate: true, Policy: pol, AnswerPoll: 10 * time.Millisecond,
				})
				if err != nil {
					t.Error(err)
				}
				done <- out
			}()
			var dir string
			var pending []state.Request
			deadline := time.Now().Add(2 * time.Minute)
			for len(pending) == 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				if dir = runDir(t, repo); dir != "" {
					pending, _ = state.Pending(dir)
				}
			}
			if len(pending) != 1 || pending[0].Tool != "shell" {
				t.Fatalf("pending requests %+v", pending)
			}
			if len(srv.Calls()) != 1 {
				t.Errorf("the run went on while waiting: %d model calls", len(srv.Calls()))
			}
			if err := state.Decide(dir, pending[0].ID, state.Answer{Approve: approve, By: "test", Note: "not on this machine"}); err != nil {
				t.Fatal(err)
			}
			out := <-done
			if out == nil || out.Status != loop.StatusUnverified {
				t.Fatalf("outcome %+v", out)
			}
			r := srv.Calls()[1].LastToolResults()
			if len(r) != 1 {
				t.Fatalf("tool results %+v", r)
			}
			if approve && (r[0].IsError || !strings.Contains(r[0].Text, "asked-and-granted")) {
				t.Errorf("approved shell result: %+v", r[0])
			}
			if !approve && (!r[0].IsError || !strings.Contains(r[0].Text, "not on this machine")) {
				t.Errorf("denied shell result: %+v", r[0])
			}
			if len(kinds(events(t, dir), state.KindPermissionDecision)) != 1 {
				t.Error("no permission_decision event")
			}
		})
	}
}

// TestBriefNamesTheChangeTheGoalNames: a goal that names the change it
// regressed in gets that change and its files in the brief, before any
// tool is called.
func TestBriefNamesTheChangeTheGoalNames(t *testing.T) {
	repo := fixtureRepo(t)
	p := filepath.Join(repo, "server", "mapper.go")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte("\n// mapped counts the tasks mapped.\nvar mapped int\n")...), 0o644)
	git(t, repo, "commit", "-qam", "server: count the mapped tasks (#42)")
	srv := llmtest.New(llmtest.Use("finish", `{"root_cause":"r","summary":"s"}`))
	defer srv.Close()
	out, err := loop.Run(context.Background(), loop.Options{
		Repo: repo, Contract: contract(t, strings.Replace(contractYAML, "objective: After a page refresh, a finished task's download link is still shown (Task.ArtifactURL).",
			`objective: "Since #42, after a page refresh, a finished task's download link is gone (Task.ArtifactURL)."`, 1)),
		Provider: anthropicProvider(t, srv, nil, nil), Executor: sharedExecutor(t), NoGate: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var brief struct{ Brief string }
	json.Unmarshal(kinds(events(t, out.Dir), state.KindBrief)[0].Data, &brief)
	if !strings.Contains(brief.Brief, "Changes the goal names (commit history):\n  #42: ") ||
		!strings.Contains(brief.Brief, `"server: count the mapped tasks (#42)" changed server/mapper.go`) {
		t.Fatalf("the brief does not name #42 and its file:\n%s", brief.Brief)
	}
}

// TestApplyForce: --force applies an unverified run's recorded patch under
// the same checks: a workspace that no longer holds it is refused, and the
// user's file is untouched; as recorded, it applies.
func TestApplyForce(t *testing.T) {
	edit := llmtest.Use("edit", `{"path":"server/mapper.go","old":"\t\tStatus: t.Status,\n","new":"\t\tStatus: t.Status,\n\t\tArtifactURL: t.ArtifactURL,\n"}`)
	out, _, _ := noGateRun(t, contractYAML, nil, edit, llmtest.Use("finish", `{"root_cause":"r","summary":"s"}`))
	if out.Status != loop.StatusUnverified {
		t.Fatalf("status %s (%s)", out.Status, out.Reason)
	}
	ctx := context.Background()
	if _, err := loop.Apply(ctx, out.Dir, loop.ApplyOptions{}); err == nil || !strings.Contains(err.Error(), "not verified") {
		t.Errorf("apply of an unverified run without --force: %v", err)
	}
	v, err := state.Read(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	repo := v.Meta.Repo
	user := filepath.Join(repo, "server", "mapper.go")
	before, _ := os.ReadFile(user)
	work := filepath.Join(out.Dir, "work", "server", "mapper.go")
	recorded, _ := os.ReadFile(work)
	os.WriteFile(work, append(slices.Clip(recorded), "\n// added after the run\n"...), 0o644)
	var drift *loop.DriftError
	if _, err := loop.Apply(ctx, out.Dir, loop.ApplyOptions{Force: true}); !errors.As(err, &drift) {
		t.Errorf("apply --force of a workspace changed after the run: %v, want a DriftError", err)
	}
	if now, _ := os.ReadFile(user); !bytes.Equal(now, before) {
		t.Fatalf("a refused apply changed the user's file:\n%s", now)
	}
	os.WriteFile(work, recorded, 0o644)
	// A gate report's bundle that hashed another patch is refused too.
	bundle := filepath.Join(out.Evidence, "evidence.json")
	os.WriteFile(bundle, []byte(`{"verdict":"fail","revisions":{"patch_sha256":"`+strings.Repeat("0", 64)+`"}}`), 0o644)
	var ee *loop.EvidenceError
	if _, err := loop.Apply(ctx, out.Dir, loop.ApplyOptions{Force: true}); !errors.As(err, &ee) || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("apply --force of a patch its bundle did not hash: %v, want an EvidenceError", err)
	}
	os.Remove(bundle)
	res, err := loop.Apply(ctx, out.Dir, loop.ApplyOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	now, _ := os.ReadFile(user)
	if !slices.Equal(res.Files, []string{"server/mapper.go"}) || strings.Count(string(now), "ArtifactURL: t.ArtifactURL") != 1 || strings.Contains(string(now), "added after") {
		t.Errorf("applied %v:\n%s", res.Files, now)
	}
}

// TestRunsOutOfGitStatus: in a repository that commits .cairn/policy.yaml
// and ignores nothing, a run leaves git status clean — the runs directory
// ignores itself — and the policy stays tracked.
func TestRunsOutOfGitStatus(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	copyTree(t, fixtureApp, repo)
	os.MkdirAll(filepath.Join(repo, ".cairn"), 0o755)
	os.WriteFile(filepath.Join(repo, ".cairn", "policy.yaml"), []byte("version: 1\n"), 0o644)
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "base")
	out, _, _ := noGateRunIn(t, repo, contractYAML, nil, nil, llmtest.Use("finish", `{"root_cause":"r","summary":"s"}`))
	if out.Status != loop.StatusUnverified {
		t.Fatalf("status %s (%s)", out.Status, out.Reason)
	}
	if _, err := os.Stat(filepath.Join(out.Evidence, "CHANGE.md")); err != nil {
		t.Fatalf("no evidence under the run: %v", err)
	}
	if s := git(t, repo, "status", "--porcelain", "--untracked-files=all"); s != "" {
		t.Errorf("git status after a run:\n%s", s)
	}
	if s := git(t, repo, "ls-files", ".cairn"); s != ".cairn/policy.yaml" {
		t.Errorf("tracked under .cairn: %q", s)
	}
}
