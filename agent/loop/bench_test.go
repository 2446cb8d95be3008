package loop_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/agent/llm"
	"github.com/cairn-dev/cairn/agent/llm/llmtest"
	"github.com/cairn-dev/cairn/agent/loop"
)

// timed wraps a provider to measure the time spent in model calls, so the
// harness's own time per step is the rest. It is a decorator over the real
// SDK client, not a stand-in for it.
type timed struct {
	llm.Provider
	mu    sync.Mutex
	in    time.Duration
	first time.Time
}

func (p *timed) Complete(ctx context.Context, r llm.Request) (*llm.Response, error) {
	start := time.Now()
	resp, err := p.Provider.Complete(ctx, r)
	p.mu.Lock()
	if p.first.IsZero() {
		p.first = start
	}
	p.in += time.Since(start)
	p.mu.Unlock()
	return resp, err
}

// noteTurns are steps a model takes that cost the harness a full step
// (policy, events, snapshot, checkpoint) and the tools nearly nothing.
func noteTurns(n int) []llmtest.Turn {
	turns := make([]llmtest.Turn, 0, n+1)
	for i := range n {
		turns = append(turns, llmtest.Use("note", fmt.Sprintf(`{"kind":"fact","text":"fact %d"}`, i)))
	}
	return append(turns, llmtest.Use("finish", `{"root_cause":"r","summary":"s"}`))
}

// BenchmarkHarnessStep: the harness's time per step, the model's excluded
// (bench/agent/run.sh runs it).
func BenchmarkHarnessStep(b *testing.B) {
	const steps = 20
	ex := sharedExecutor(b)
	var harness, model time.Duration
	for b.Loop() {
		b.StopTimer()
		repo := fixtureRepo(b)
		srv := llmtest.New(noteTurns(steps)...)
		prov := &timed{Provider: anthropicProvider(b, srv, nil, nil)}
		b.StartTimer()
		start := time.Now()
		out, err := loop.Run(context.Background(), loop.Options{Repo: repo, Contract: contract(b, contractYAML), Provider: prov, Executor: ex, NoGate: true})
		total := time.Since(start)
		b.StopTimer()
		srv.Close()
		if err != nil || out.Status != loop.StatusUnverified {
			b.Fatalf("%v %+v", err, out)
		}
		// Steps begin at the first model call: before it is the setup
		// (worktree, index, brief), reported on its own.
		loopTime := total - prov.first.Sub(start)
		harness += loopTime - prov.in
		model += prov.in
		b.ReportMetric(float64(prov.first.Sub(start).Milliseconds()), "setup-ms")
		b.StartTimer()
	}
	n := float64(b.N * (steps + 1))
	b.ReportMetric(float64(harness.Microseconds())/n, "harness-us/step")
	b.ReportMetric(float64(model.Microseconds())/n, "model-us/step")
}

// BenchmarkResume: a run killed with SIGKILL mid model call (in a child
// process), then resumed here: the time from Resume to the resumed run's
// first model call.
func BenchmarkResume(b *testing.B) {
	ex := sharedExecutor(b)
	var restart time.Duration
	for b.Loop() {
		b.StopTimer()
		repo := fixtureRepo(b)
		hold := make(chan struct{})
		turns := noteTurns(10)
		turns[5] = func(c *llmtest.Call) llmtest.Reply { return llmtest.Reply{Hold: hold} }
		srv := llmtest.New(turns...)
		cmd, out := startChild(b, "run", repo, srv.AnthropicBaseURL(), "")
		for len(srv.Calls()) < 6 {
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
		close(hold)
		dir := runDir(b, repo)
		if dir == "" {
			b.Fatalf("no run: %s", out)
		}
		prov := &timed{Provider: anthropicProvider(b, srv, nil, nil)}
		b.StartTimer()
		start := time.Now()
		o, err := loop.Resume(context.Background(), dir, loop.Options{Provider: prov, Executor: ex, NoGate: true})
		b.StopTimer()
		srv.Close()
		if err != nil || o.Status != loop.StatusUnverified {
			b.Fatalf("%v %+v", err, o)
		}
		restart += prov.first.Sub(start)
		b.StartTimer()
	}
	b.ReportMetric(float64(restart.Milliseconds())/float64(b.N), "restart-ms")
}
