package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/obs"
	"github.com/cairn-dev/cairn/agent/state"
	"github.com/cairn-dev/cairn/agent/tools"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/catalog"
	"github.com/cairn-dev/cairn/gate/policy"
	"github.com/cairn-dev/cairn/gate/sandbox"
	"github.com/cairn-dev/cairn/gate/task"
	"github.com/cairn-dev/cairn/gate/verify"
	"github.com/cairn-dev/cairn/internal/must"
)

// Statuses a run ends in (and running while it goes on).
const (
	StatusRunning            = "running"
	StatusVerified           = "verified"            // the gate passed
	StatusUnverified         = "unverified"          // finished without a gate (NoGate)
	StatusFailed             = "failed"              // the gate rejected the last candidate and no retry is left
	StatusEscalated          = "escalated"           // a ceiling or the loop detector stopped it: handed back with what was learned
	StatusAborted            = "aborted"             // the provider or the environment failed, or the caller cancelled
	StatusNeedsClarification = "needs_clarification" // the contract raised questions; nothing ran
)

// Harness defaults for budgets a contract leaves at zero.
var DefaultBudgets = task.Budgets{Steps: 60, InputTokens: 2_000_000, OutputTokens: 100_000, CostUSD: 5, WallS: 1800}

// Defaults for the other knobs.
const (
	DefaultMaxTokens       = 4096
	DefaultWindow          = 200_000
	DefaultMaxGateFailures = 2
	// RepeatLimit is how many identical actions without new evidence the
	// loop answers with a warning before it escalates.
	RepeatLimit = 3
	// recentKept is how many tool exchanges task state keeps verbatim.
	recentKept = 8
)

// Options configure a run.
type Options struct {
	Repo     string         // the user's repository (never written before Apply)
	Contract *task.Contract // Run only; Resume reads the run's own copy
	Provider llm.Provider
	// Prices is the table Provider prices its calls with (nil:
	// llm.DefaultPrices(), as the providers default): a contract's cost
	// ceiling needs the model in it.
	Prices llm.Prices
	// ModelSpec names the provider and model as given (anthropic:NAME), for
	// the record.
	ModelSpec string
	Policy    *policy.Policy // nil: the repository's (.cairn/policy.yaml or the default)
	Executor  sandbox.Executor
	RunsDir   string // default Repo/.cairn/runs
	// NoGate ends a finished run unverified instead of running the gate.
	NoGate     bool
	Unattended bool // ask-mode requests are denied instead of waiting for a person
	Tracer     trace.Tracer
	Progress   func(Progress)
	MaxTokens  int64 // per model call
	Window     int64 // the model's input window in tokens; compaction past 80 %
	Reruns     int   // the gate's reruns of failing tests
	// Retries, when the provider was built with its Hook as
	// llm.Options.OnRetry, logs every retried model call as an event.
	Retries *RetryLog
	// AnswerPoll is how often a paused run looks for a person's answer.
	AnswerPoll   time.Duration
	CairnVersion string
}

// Progress is what a terminal shows while a run goes on.
type Progress struct {
	RunID        string  `json:"run_id"`
	Step         int     `json:"step"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Action       string  `json:"action"`
}

// Outcome is how a run ended.
type Outcome struct {
	RunID     string          `json:"run_id"`
	Status    string          `json:"status"`
	Reason    string          `json:"reason,omitempty"`
	Verdict   string          `json:"verdict,omitempty"`
	Dir       string          `json:"run_dir"`
	EventLog  string          `json:"event_log"`
	Evidence  string          `json:"evidence,omitempty"`
	Steps     int             `json:"steps"`
	Usage     state.Totals    `json:"usage"`
	Tests     []state.TestRun `json:"tests,omitempty"`
	Questions []task.Question `json:"questions,omitempty"`
}

// Run starts a new run of the contract and drives it to an end.
func Run(ctx context.Context, o Options) (*Outcome, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.Contract == nil {
		return nil, errors.New("loop: no contract")
	}
	costNote, err := o.costCeiling(o.Contract.Budgets)
	if err != nil {
		return nil, err
	}
	att, err := task.Start(ctx, o.Contract, o.Repo)
	if err != nil {
		return nil, err
	}
	meta := state.Meta{
		RunID: state.NewID(), Repo: o.Repo, Base: att.Commit(), ContractHash: att.Hash(),
		Model: cmp.Or(o.ModelSpec, o.Provider.Name()+":"+o.Provider.Model()), Created: att.Started(), CairnVersion: o.CairnVersion,
	}
	r, err := state.Create(o.runsDir(), meta, att.Contract().Canonical())
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ctx, span := obs.RunSpan(ctx, o.Tracer, r.ID)
	defer span.End()
	h := &harness{o: o, run: r, att: att, st: &state.TaskState{Status: StatusRunning, Objective: att.Contract().Objective}}
	if _, err := r.Append(state.KindRunStarted, 0, map[string]any{"repo": o.Repo, "base": att.Commit(), "model": meta.Model, "contract_hash": att.Hash(), "cost_ceiling": costNote}); err != nil {
		return nil, err
	}
	if qs := task.Questions(att.Contract()); len(qs) > 0 {
		for _, q := range qs {
			h.st.Questions = append(h.st.Questions, state.Note{Text: q.Field + ": " + q.Text})
		}
		return h.end(ctx, StatusNeedsClarification, "the contract's criteria or scope are missing or ambiguous", &Outcome{Questions: qs})
	}
	ws, err := sandbox.Create(ctx, o.Repo, att.Commit(), r.Dir, o.Executor.Owner())
	if err != nil {
		return h.abort(ctx, fmt.Errorf("create the sandbox workspace: %w", err))
	}
	h.ws = ws
	if err := h.open(ctx); err != nil {
		return h.abort(ctx, err)
	}
	defer h.close()
	brief, err := h.brief(ctx)
	if err != nil {
		return h.abort(ctx, fmt.Errorf("build the brief: %w", err))
	}
	h.st.Brief = brief
	if _, err := r.Append(state.KindBrief, 0, map[string]any{"brief": brief}); err != nil {
		return nil, err
	}
	if err := h.checkpoint(); err != nil {
		return nil, err
	}
	return h.drive(ctx)
}

// Resume continues a run from its last checkpoint in the same worktree,
// after its process was killed or the run paused. The model input is rebuilt
// from task state, not by replaying the transcript.
func Resume(ctx context.Context, dir string, o Options) (*Outcome, error) {
	r, err := state.Open(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	meta := r.Meta()
	o.Repo = cmp.Or(o.Repo, meta.Repo)
	if err := o.check(); err != nil {
		return nil, err
	}
	ctx, span := obs.RunSpan(ctx, o.Tracer, r.ID)
	defer span.End()
	c, err := task.Parse(r.Contract())
	if err != nil {
		return nil, fmt.Errorf("run %s: its contract no longer parses: %w", meta.RunID, err)
	}
	att, err := task.Restore(c, meta.Base, meta.Created)
	if err != nil {
		return nil, err
	}
	if att.Hash() != meta.ContractHash {
		return nil, fmt.Errorf("run %s: contract hash %s, recorded %s", meta.RunID, att.Hash(), meta.ContractHash)
	}
	if _, err := o.costCeiling(c.Budgets); err != nil {
		return nil, err
	}
	st, err := r.Checkpoint()
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = &state.TaskState{Status: StatusRunning, Objective: c.Objective}
	}
	if st.Finished {
		return nil, fmt.Errorf("run %s already ended: %s", meta.RunID, st.Status)
	}
	h := &harness{o: o, run: r, att: att, st: st}
	ws, err := sandbox.Open(ctx, o.Repo, meta.Base, r.Dir, o.Executor.Owner())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || st.Brief == "" {
			// Killed before the workspace existed.
			if ws, err = sandbox.Create(ctx, o.Repo, meta.Base, r.Dir, o.Executor.Owner()); err != nil {
				return h.abort(ctx, fmt.Errorf("create the sandbox workspace: %w", err))
			}
		} else {
			return h.abort(ctx, fmt.Errorf("reopen the sandbox workspace: %w", err))
		}
	}
	h.ws = ws
	if err := h.open(ctx); err != nil {
		return h.abort(ctx, err)
	}
	defer h.close()
	if err := h.reconcile(ctx); err != nil {
		return h.abort(ctx, err)
	}
	if st.Brief == "" {
		if st.Brief, err = h.brief(ctx); err != nil {
			return h.abort(ctx, fmt.Errorf("build the brief: %w", err))
		}
	}
	if err := h.checkpoint(); err != nil {
		return nil, err
	}
	return h.drive(ctx)
}

func (o *Options) check() error {
	switch {
	case o.Repo == "":
		return errors.New("loop: no repository")
	case o.Provider == nil:
		return errors.New("loop: no model provider")
	case o.Executor == nil:
		return errors.New("loop: no sandbox executor")
	}
	abs, err := filepath.Abs(o.Repo)
	if err != nil {
		return err
	}
	o.Repo = abs
	if o.Policy == nil {
		if o.Policy, err = policy.Load(o.Repo); err != nil {
			return err
		}
	}
	if o.Tracer == nil {
		o.Tracer = noop.NewTracerProvider().Tracer("cairn")
	}
	o.MaxTokens = cmp.Or(o.MaxTokens, DefaultMaxTokens)
	o.Window = cmp.Or(o.Window, DefaultWindow)
	o.AnswerPoll = cmp.Or(o.AnswerPoll, 500*time.Millisecond)
	return nil
}

// UnpricedError is a refusal to start: the contract sets a cost ceiling
// and the model has no price, so its cost could not be counted against it.
// No price is assumed for it.
type UnpricedError struct {
	Model   string
	CostUSD float64
}

func (e *UnpricedError) Error() string {
	return fmt.Sprintf("refused to start: the contract's budgets set cost_usd: %g, but the model %s has no price, so its cost cannot be counted against that ceiling (no price is assumed): give its price with --prices FILE (%s: {input_per_mtok: N, output_per_mtok: N}), or drop cost_usd from the contract",
		e.CostUSD, e.Model, e.Model)
}

// costCeiling checks that the cost ceiling can be enforced: a contract that
// sets cost_usd for a model without a price is refused (UnpricedError).
// Under the default ceiling an unpriced model runs, and the note (for the
// run_started event) says that ceiling is not enforced.
func (o *Options) costCeiling(b task.Budgets) (string, error) {
	prices := o.Prices
	if prices == nil {
		prices = llm.DefaultPrices()
	}
	model := o.Provider.Model()
	if _, ok := prices.Lookup(model); ok {
		return fmt.Sprintf("$%g, priced", cmp.Or(b.CostUSD, DefaultBudgets.CostUSD)), nil
	}
	if b.CostUSD > 0 {
		return "", &UnpricedError{Model: model, CostUSD: b.CostUSD}
	}
	return fmt.Sprintf("the default $%g is not enforced: the model %s has no price (--prices gives one); the token ceilings still hold", DefaultBudgets.CostUSD, model), nil
}

func (o *Options) runsDir() string {
	return cmp.Or(o.RunsDir, filepath.Join(o.Repo, ".cairn", "runs"))
}

// RetryLog carries a provider's retries into the run's event log: the
// provider is built before the run exists, so the hook is bound later.
type RetryLog struct {
	mu   sync.Mutex
	sink func(attempt int, err error, wait time.Duration)
}

// Hook is the function to pass as llm.Options.OnRetry.
func (l *RetryLog) Hook(attempt int, err error, wait time.Duration) {
	l.mu.Lock()
	sink := l.sink
	l.mu.Unlock()
	if sink != nil {
		sink(attempt, err, wait)
	}
}

func (l *RetryLog) bind(fn func(int, error, time.Duration)) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.sink = fn
	l.mu.Unlock()
}

// harness is one run being driven.
type harness struct {
	o       Options
	run     *state.Run
	att     *task.Attempt
	st      *state.TaskState
	ws      *sandbox.Workspace
	eng     *engine.Engine
	checker *policy.Checker
	tools   map[string]policy.Tool
	specs   []llm.ToolSpec
	names   []string
	// msgs is the model input since it was last rebuilt from task state.
	msgs    []llm.Message
	started time.Time
	// finished is set by the finish tool during a turn.
	finished bool
	report   *verify.Report // the last gate report
	judged   []byte         // the patch it judged
}

func (h *harness) open(ctx context.Context) error {
	h.started = time.Now()
	if err := h.recordIsolation(); err != nil {
		return err
	}
	h.o.Retries.bind(func(attempt int, err error, wait time.Duration) {
		h.run.Append(state.KindModelRetry, h.st.Step, map[string]any{"attempt": attempt, "error": err.Error(), "wait_ms": wait.Milliseconds()})
	})
	pol := h.o.Policy.ForContract(h.att.Contract().Scope)
	var err error
	if h.checker, err = policy.NewChecker(pol, h.ws.Dir, h.o.Unattended); err != nil {
		return err
	}
	for _, g := range h.st.Grants {
		h.checker.Grant(g)
	}
	h.eng, err = engine.Open(ctx, engine.Options{Root: h.ws.Dir, IndexDir: filepath.Join(h.run.Dir, "index")})
	if err != nil {
		return fmt.Errorf("open the engine on the workspace: %w", err)
	}
	if _, err := h.eng.Reindex(ctx, nil, 5*time.Minute); err != nil {
		return fmt.Errorf("index the workspace: %w", err)
	}
	ts, err := tools.New(tools.Env{
		Workspace: h.ws, Executor: h.o.Executor, Engine: h.eng, Recorder: (*recorder)(h),
		Limits: pol.Limits.SandboxLimits(),
	})
	if err != nil {
		return err
	}
	h.tools = map[string]policy.Tool{}
	auditor := policy.AuditorFunc(func(ctx context.Context, e policy.Event) error {
		_, err := h.run.Append(state.KindPolicy, h.st.Step, e)
		return err
	})
	for _, t := range ts {
		h.tools[t.Name()] = policy.Guard(t, h.checker, auditor)
		h.specs = append(h.specs, llm.ToolSpec{Name: t.Name(), Description: t.Description(), Schema: t.Schema()})
		h.names = append(h.names, t.Name())
	}
	return nil
}

func (h *harness) close() {
	h.o.Retries.bind(nil)
	if h.eng != nil {
		h.eng.Close()
	}
}

// checkpoint saves task state (after the events it reflects).
func (h *harness) checkpoint() error {
	h.st.Usage.Wall += time.Since(h.started).Seconds()
	h.started = time.Now()
	return h.run.SaveCheckpoint(h.st)
}

// drive is the turn loop: observe → hypothesize → act, until finish and the
// gate, a ceiling, or a failure.
//
// The wall-time budget is a deadline on everything the turn does — model
// calls, tool commands (whose own limits the tools cap to it) and the gate:
// a run past wall_s stops within moments, mid-command if need be, and
// escalates as at any ceiling. Ending the run (evidence) is outside it.
func (h *harness) drive(ctx context.Context) (*Outcome, error) {
	gateFailures := 0
	bctx, cancel := context.WithDeadline(ctx, time.Now().Add(h.wallLeft()))
	defer cancel()
	// outOfTime says whether the wall budget, not the caller, ended what
	// was running.
	outOfTime := func() bool { return bctx.Err() != nil && ctx.Err() == nil }
	for {
		if err := ctx.Err(); err != nil {
			return h.abort(context.WithoutCancel(ctx), fmt.Errorf("cancelled: %w", err))
		}
		if why := h.overBudget(); why != "" {
			return h.escalate(ctx, "budget: "+why)
		}
		h.st.Step++
		if h.msgs == nil {
			h.rebuild(ctx, "start")
		} else if h.inputTokens() > h.o.Window*8/10 {
			h.rebuild(ctx, "compaction")
		}
		resp, err := h.model(bctx)
		if err != nil {
			if outOfTime() {
				return h.escalate(ctx, "budget: "+h.wallSpent()+", during a model call")
			}
			if ctx.Err() != nil {
				return h.abort(context.WithoutCancel(ctx), fmt.Errorf("cancelled during a model call: %w", ctx.Err()))
			}
			return h.abort(ctx, err)
		}
		h.msgs = append(h.msgs, llm.Message{Role: llm.Assistant, Content: resp.Content})
		var results []llm.Block
		uses := 0
		for _, b := range resp.Content {
			if b.Kind != llm.ToolUse {
				continue
			}
			uses++
			if outOfTime() {
				return h.escalate(ctx, "budget: "+h.wallSpent()+", before "+b.Name)
			}
			res, err := h.call(bctx, b)
			if outOfTime() {
				// the command was killed at the deadline, or the tool
				// could not finish after it
				if err == nil {
					err = errors.New("stopped at the wall-time budget")
				}
				h.run.Append(state.KindToolResult, h.st.Step, map[string]any{"id": b.ID, "tool": b.Name, "is_error": true, "result": "stopped: the run's wall-time budget ran out (" + err.Error() + ")"})
				return h.escalate(ctx, "budget: "+h.wallSpent()+", during "+b.Name)
			}
			if err != nil {
				var esc *escalation
				if errors.As(err, &esc) {
					return h.escalate(ctx, esc.why)
				}
				if ctx.Err() != nil {
					return h.abort(context.WithoutCancel(ctx), fmt.Errorf("cancelled during a tool call: %w", ctx.Err()))
				}
				return h.abort(ctx, err)
			}
			results = append(results, res)
		}
		if uses == 0 {
			text := "Call a tool: trace and read before you edit, and call finish when the criteria should hold. Text alone does not change the repository."
			if resp.StopReason == "max_tokens" {
				text = "Your answer was cut at the output limit; answer with one tool call at a time."
			}
			h.msgs = append(h.msgs, llm.Message{Role: llm.User, Content: []llm.Block{{Kind: llm.Text, Text: text}}})
		} else {
			h.msgs = append(h.msgs, llm.Message{Role: llm.User, Content: results})
		}
		if err := h.snapshot(ctx); err != nil {
			return h.abort(ctx, err)
		}
		if err := h.checkpoint(); err != nil {
			return nil, err
		}
		h.progress("step done")
		if !h.finished {
			continue
		}
		h.finished = false
		if h.o.NoGate {
			return h.end(ctx, StatusUnverified, "finished without the verification gate (--no-verify)", nil)
		}
		rep, err := h.gate(bctx)
		if outOfTime() && (err != nil || rep.Verdict != verify.Pass) {
			// a gate cut short judged nothing
			h.report = nil
			return h.escalate(ctx, "budget: "+h.wallSpent()+", during the verification gate")
		}
		if err != nil {
			return h.abort(ctx, fmt.Errorf("the verification gate could not run: %w", err))
		}
		if rep.Verdict == verify.Pass {
			return h.end(ctx, StatusVerified, "", &Outcome{Verdict: rep.Verdict.String()})
		}
		gateFailures++
		limit := cmp.Or(h.att.Contract().Escalation.MaxGateFailures, DefaultMaxGateFailures)
		if gateFailures >= limit {
			return h.end(ctx, StatusFailed, fmt.Sprintf("the gate rejected %d candidates: %s", gateFailures, rep.Reason), &Outcome{Verdict: rep.Verdict.String()})
		}
		h.st.FailedApproaches = append(h.st.FailedApproaches, fmt.Sprintf("step %d: the gate said %s: %s", h.st.Step, rep.Verdict, gateSummary(rep)))
		h.msgs = append(h.msgs, llm.Message{Role: llm.User, Content: []llm.Block{{Kind: llm.Text, Text: "The verification gate did not pass your change (you called finish, but done is what the gate says):\n" + gateSummary(rep) + "\nFix what it names, then call finish again."}}})
		if err := h.checkpoint(); err != nil {
			return nil, err
		}
	}
}

// model makes one model call, counting its usage against the budgets.
func (h *harness) model(ctx context.Context) (*llm.Response, error) {
	h.progress("thinking")
	sctx, span := obs.ModelSpan(ctx, h.o.Tracer, h.o.Provider.Name(), h.o.Provider.Model())
	req := llm.Request{System: h.system(), Messages: h.msgs, Tools: h.specs, MaxTokens: h.o.MaxTokens}
	if _, err := h.run.Append(state.KindModelRequest, h.st.Step, map[string]any{"messages": len(h.msgs), "estimated_input_tokens": h.inputTokens()}); err != nil {
		span.End()
		return nil, err
	}
	resp, err := h.o.Provider.Complete(sctx, req)
	if err != nil {
		obs.EndModelSpan(span, 0, 0, 0, err)
		h.run.Append(state.KindModelCall, h.st.Step, map[string]any{"error": err.Error()})
		return nil, fmt.Errorf("model call: %w", err)
	}
	obs.EndModelSpan(span, resp.Usage.InputTokens, resp.Usage.OutputTokens, resp.CostUSD, nil)
	u := &h.st.Usage
	u.InputTokens += resp.Usage.InputTokens
	u.OutputTokens += resp.Usage.OutputTokens
	u.CacheReadTokens += resp.Usage.CacheReadTokens
	u.CacheWriteTokens += resp.Usage.CacheWriteTokens
	u.CostUSD += resp.CostUSD
	u.ModelCalls++
	_, err = h.run.Append(state.KindModelCall, h.st.Step, map[string]any{
		"model": resp.Model, "id": resp.ID, "stop_reason": resp.StopReason, "usage": resp.Usage,
		"cost_usd": resp.CostUSD, "priced": resp.Priced, "attempts": resp.Attempts, "content": resp.Content,
	})
	return resp, err
}

// overBudget names the ceiling a run has reached, or "".
func (h *harness) overBudget() string {
	b := h.att.Contract().Budgets
	steps := cmp.Or(b.Steps, DefaultBudgets.Steps)
	in := cmp.Or(b.InputTokens, DefaultBudgets.InputTokens)
	out := cmp.Or(b.OutputTokens, DefaultBudgets.OutputTokens)
	cost := cmp.Or(b.CostUSD, DefaultBudgets.CostUSD)
	wall := cmp.Or(b.WallS, DefaultBudgets.WallS)
	u := h.st.Usage
	switch {
	case h.st.Step >= steps:
		return fmt.Sprintf("steps %d of %d", h.st.Step, steps)
	case u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens >= in:
		return fmt.Sprintf("input tokens %d of %d", u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens, in)
	case u.OutputTokens >= out:
		return fmt.Sprintf("output tokens %d of %d", u.OutputTokens, out)
	case u.CostUSD >= cost:
		return fmt.Sprintf("cost $%.4f of $%.2f", u.CostUSD, cost)
	case u.Wall+time.Since(h.started).Seconds() >= float64(wall):
		return h.wallSpent()
	}
	return ""
}

// wallLeft is what is left of the wall-time budget (negative past it).
func (h *harness) wallLeft() time.Duration {
	wall := cmp.Or(h.att.Contract().Budgets.WallS, DefaultBudgets.WallS)
	spent := h.st.Usage.Wall + time.Since(h.started).Seconds()
	return time.Duration((float64(wall) - spent) * float64(time.Second))
}

// wallSpent says how much of the wall-time budget is spent, as overBudget
// does.
func (h *harness) wallSpent() string {
	wall := cmp.Or(h.att.Contract().Budgets.WallS, DefaultBudgets.WallS)
	return fmt.Sprintf("wall time %.0f s of %d s", h.st.Usage.Wall+time.Since(h.started).Seconds(), wall)
}

type escalation struct{ why string }

func (e *escalation) Error() string { return e.why }

// call runs one tool call through its policy guard, recording intent and
// result as events; the result is the model's tool_result block.
func (h *harness) call(ctx context.Context, use llm.Block) (llm.Block, error) {
	h.st.Usage.ToolCalls++
	h.progress(use.Name)
	answer := func(text string, isErr bool) llm.Block {
		return llm.Block{Kind: llm.ToolResult, ID: use.ID, Text: text, IsError: isErr}
	}
	input := use.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if _, err := h.run.Append(state.KindToolCall, h.st.Step, map[string]any{"id": use.ID, "tool": use.Name, "input": rawOrString(input)}); err != nil {
		return llm.Block{}, err
	}
	record := func(b llm.Block) (llm.Block, error) {
		b.Text = catalog.Fit(b.Text, catalog.MaxBytes) // JSON stays JSON, trimmed by structure
		if _, err := h.run.Append(state.KindToolResult, h.st.Step, map[string]any{"id": use.ID, "tool": use.Name, "is_error": b.IsError, "result": b.Text}); err != nil {
			return llm.Block{}, err
		}
		h.remember(use.Name, input, b.Text, b.IsError)
		return b, nil
	}
	t, ok := h.tools[use.Name]
	if !ok {
		h.st.Violations++
		return record(answer(fmt.Sprintf("unknown tool %q; the tools are: %s", use.Name, strings.Join(h.names, ", ")), true))
	}
	fp := fingerprint(use.Name, input, h.st.Snapshot)
	if h.st.Repeats == nil {
		h.st.Repeats = map[string]int{}
	}
	if use.Name != "finish" {
		h.st.Repeats[fp]++
		if n := h.st.Repeats[fp]; n > 1 {
			h.st.RepeatWarnings++
			if _, err := h.run.Append(state.KindRepeat, h.st.Step, map[string]any{"tool": use.Name, "times": n, "warnings": h.st.RepeatWarnings}); err != nil {
				return llm.Block{}, err
			}
			if h.st.RepeatWarnings >= RepeatLimit {
				return llm.Block{}, &escalation{fmt.Sprintf("loop: the same %s call was repeated %d times with nothing changed in between", use.Name, n)}
			}
			return record(answer(fmt.Sprintf("You already made this exact %s call (%d times) and nothing has changed since: its answer is the same. Use what you learned, or try something different.", use.Name, n), true))
		}
	}
	sctx, span := obs.ToolSpan(ctx, h.o.Tracer, use.Name)
	res, err := t.Run(sctx, input)
	span.End()
	var pr *policy.PermissionRequest
	if errors.As(err, &pr) {
		granted, reason, werr := h.ask(ctx, pr)
		if werr != nil {
			return llm.Block{}, werr
		}
		if !granted {
			return record(answer("A person denied this action: "+reason, true))
		}
		res, err = t.Run(sctx, input)
	}
	if err != nil {
		return llm.Block{}, fmt.Errorf("tool %s: %w", use.Name, err)
	}
	return record(answer(resultText(res), res.IsError))
}

// ask pauses the run durably until a person approves or denies the
// request (cairn agent approve|deny RUN REQUEST).
func (h *harness) ask(ctx context.Context, pr *policy.PermissionRequest) (bool, string, error) {
	dec, err := json.Marshal(pr.Decision)
	if err != nil {
		return false, "", fmt.Errorf("ask permission: %w", err)
	}
	req, err := h.run.Ask(state.Request{Tool: pr.Tool, Input: pr.Input, Decision: dec, Created: time.Now().UTC()})
	if err != nil {
		return false, "", err
	}
	h.progress("waiting for permission " + req.ID)
	for {
		a, err := h.run.Answer(req.ID)
		if err != nil {
			return false, "", err
		}
		if a != nil {
			if _, err := h.run.Append(state.KindPermissionDecision, h.st.Step, map[string]any{"request": req.ID, "approve": a.Approve, "by": a.By, "note": a.Note}); err != nil {
				return false, "", err
			}
			if !a.Approve {
				return false, cmp.Or(a.Note, pr.Decision.Reason), nil
			}
			g := policy.Grant{}
			if it := pr.Decision.Intent; it != nil && it.Narrower != nil {
				g = *it.Narrower
			}
			h.checker.Grant(g)
			h.st.Grants = append(h.st.Grants, g)
			return true, "", nil
		}
		select {
		case <-ctx.Done():
			return false, "", ctx.Err()
		case <-time.After(h.o.AnswerPoll):
		}
	}
}

// snapshot commits the sandbox's edits after a step that made any, so
// the work is durable as git commits.
func (h *harness) snapshot(ctx context.Context) error {
	commit, err := h.ws.Snapshot(ctx, fmt.Sprintf("cairn run %s step %d", h.run.ID, h.st.Step))
	if err != nil {
		return fmt.Errorf("snapshot the workspace: %w", err)
	}
	if commit != h.st.Snapshot {
		h.st.Snapshot = commit
		if _, err := h.run.Append(state.KindSnapshot, h.st.Step, map[string]any{"commit": commit}); err != nil {
			return err
		}
	}
	return nil
}

// gate runs the verification gate on the sandbox's change.
func (h *harness) gate(ctx context.Context) (*verify.Report, error) {
	h.progress("verifying")
	patch, err := h.ws.Diff(ctx)
	if err != nil {
		return nil, err
	}
	sctx, span := obs.CheckSpan(ctx, h.o.Tracer, "gate")
	defer span.End()
	rep, err := verify.Verify(sctx, verify.Options{
		Attempt: h.att, Repo: h.o.Repo, Candidate: verify.Candidate{Patch: patch},
		Executor: h.o.Executor, Dir: filepath.Join(h.run.Dir, "gate"), Reruns: h.o.Reruns, Impact: verify.EngineImpact{},
	})
	if err != nil {
		return nil, err
	}
	if _, err := h.run.Append(state.KindCheck, h.st.Step, rep); err != nil {
		return nil, err
	}
	h.report, h.judged = rep, patch
	return rep, nil
}

func gateSummary(rep *verify.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict %s", rep.Verdict)
	if rep.Reason != "" {
		fmt.Fprintf(&b, " (%s)", rep.Reason)
	}
	b.WriteString("\n")
	for _, c := range rep.Criteria {
		fmt.Fprintf(&b, "- %s [%s] %s", c.ID, c.Status, c.Text)
		if c.Reason != "" {
			fmt.Fprintf(&b, ": %s", c.Reason)
		}
		b.WriteString("\n")
		for _, t := range c.Tests {
			if t.Outcome != verify.OutcomePass {
				fmt.Fprintf(&b, "    %s %s: %s\n", t.Name, t.Outcome, capText(t.Output, 600))
			}
		}
	}
	for _, f := range rep.Tamper {
		fmt.Fprintf(&b, "- tamper %s %s %s\n", f.Kind, f.Path, f.Test)
	}
	for _, f := range rep.Scope {
		fmt.Fprintf(&b, "- scope %s %s\n", f.Kind, f.Path)
	}
	return b.String()
}

// end records how the run ended, checkpoints and writes the evidence.
func (h *harness) end(ctx context.Context, status, reason string, out *Outcome) (*Outcome, error) {
	if out == nil {
		out = &Outcome{}
	}
	h.st.Status = status
	h.st.Finished = true
	h.st.EndReason = reason
	out.RunID, out.Status, out.Reason, out.Dir = h.run.ID, status, reason, h.run.Dir
	out.EventLog = filepath.Join(h.run.Dir, state.EventsFile)
	out.Steps, out.Usage, out.Tests = h.st.Step, h.st.Usage, h.st.Tests
	if status != StatusNeedsClarification && h.ws != nil {
		path, err := h.evidence(ctx, out)
		if err != nil {
			h.run.Append(state.KindError, h.st.Step, map[string]any{"evidence": err.Error()})
		}
		out.Evidence = path
	}
	if _, err := h.run.Append(state.KindRunFinished, h.st.Step, out); err != nil {
		return nil, err
	}
	if err := h.checkpoint(); err != nil {
		return nil, err
	}
	h.progress(status)
	return out, nil
}

func (h *harness) escalate(ctx context.Context, why string) (*Outcome, error) {
	if _, err := h.run.Append(state.KindEscalation, h.st.Step, map[string]any{"reason": why, "learned": learned(h.st), "contact": h.att.Contract().Escalation.Contact}); err != nil {
		return nil, err
	}
	return h.end(ctx, StatusEscalated, why, nil)
}

func (h *harness) abort(ctx context.Context, err error) (*Outcome, error) {
	if _, aerr := h.run.Append(state.KindError, h.st.Step, map[string]any{"error": err.Error()}); aerr != nil {
		return nil, errors.Join(err, aerr)
	}
	return h.end(ctx, StatusAborted, err.Error(), nil)
}

func (h *harness) progress(action string) {
	if h.o.Progress == nil {
		return
	}
	u := h.st.Usage
	h.o.Progress(Progress{RunID: h.run.ID, Step: h.st.Step, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD, Action: action})
}

// remember keeps a tool exchange in the working set.
func (h *harness) remember(tool string, input json.RawMessage, result string, isErr bool) {
	h.st.Recent = append(h.st.Recent, state.Exchange{Step: h.st.Step, Tool: tool, Input: rawOrString(input), Result: capText(result, 4<<10), IsError: isErr})
	if n := len(h.st.Recent); n > recentKept {
		h.st.Recent = append([]state.Exchange(nil), h.st.Recent[n-recentKept:]...)
	}
}

func resultText(r policy.Result) string {
	var s string
	if json.Unmarshal(r.Content, &s) == nil {
		return s
	}
	return string(r.Content)
}

// rawOrString keeps valid JSON as it is and wraps anything else (a
// model's malformed arguments) as a JSON string, so the event log stays
// valid JSON lines.
func rawOrString(b json.RawMessage) json.RawMessage {
	if json.Valid(b) {
		return b
	}
	return must.JSON(string(b))
}

func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… (%d more bytes cut)", len(s)-cut)
}
