package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/cairn-dev/cairn/indexer"
)

// progressReporter renders index progress: a bar with files/s and ETA on a
// terminal, one line per second otherwise (JSON with --json), nothing with
// --quiet.
type progressReporter struct {
	w     io.Writer
	json  bool
	bar   *progressbar.ProgressBar
	last  time.Time
	phase string
}

func newProgress(g *globals) func(indexer.Progress) {
	if g.quiet {
		return nil
	}
	p := &progressReporter{w: g.stderr, json: g.json}
	tty := false
	if f, ok := g.stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return func(pr indexer.Progress) {
		if tty && !p.json {
			p.renderBar(pr)
		} else {
			p.renderLine(pr)
		}
	}
}

func (p *progressReporter) renderBar(pr indexer.Progress) {
	if pr.Phase != "parse" {
		if p.bar != nil && pr.Phase == "commit" {
			p.bar.Finish()
			fmt.Fprintln(p.w)
			p.bar = nil
		}
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(pr.Total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription("indexing"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("files"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	p.bar.Set(pr.Done)
}

func (p *progressReporter) renderLine(pr indexer.Progress) {
	now := time.Now()
	if pr.Phase == p.phase && now.Sub(p.last) < time.Second && pr.Done != pr.Total {
		return
	}
	p.last, p.phase = now, pr.Phase
	rate := 0.0
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Done) / s
	}
	eta := time.Duration(0)
	if rate > 0 && pr.Total > pr.Done {
		eta = time.Duration(float64(pr.Total-pr.Done) / rate * float64(time.Second))
	}
	if p.json {
		b, _ := json.Marshal(map[string]any{"phase": pr.Phase, "done": pr.Done, "total": pr.Total,
			"files_per_s": int(rate), "eta_s": int(eta.Seconds()), "elapsed_s": pr.Elapsed.Seconds()})
		fmt.Fprintln(p.w, string(b))
		return
	}
	if pr.Phase == "parse" {
		fmt.Fprintf(p.w, "%s %d/%d files, %.0f files/s, eta %s\n", pr.Phase, pr.Done, pr.Total, rate, eta.Round(time.Second))
	} else {
		fmt.Fprintf(p.w, "%s\n", pr.Phase)
	}
}
