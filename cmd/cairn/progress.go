package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/internal/must"
)

// progressReporter renders index progress, every phase of it (walk, parse,
// resolve, the text and vector indexes, commit — see indexer.Progress): a
// bar with rate and ETA for a phase that counts its work on a terminal,
// one line per phase and then per second otherwise (JSON with --json),
// nothing with --quiet.
type progressReporter struct {
	w     io.Writer
	json  bool
	bar   *progressbar.ProgressBar
	last  time.Time
	phase string
	// start is when the current phase began (its rate and ETA).
	start time.Duration
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
		if pr.Phase != p.phase {
			p.start = pr.Elapsed
		}
		if tty && !p.json {
			p.renderBar(pr)
		} else {
			p.renderLine(pr)
		}
	}
}

// unit names what a phase counts.
func unit(phase string) string {
	switch phase {
	case "parse", "resolve", "text":
		return "files"
	case "vectors":
		return "chunks"
	}
	return "items"
}

func (p *progressReporter) renderBar(pr indexer.Progress) {
	if pr.Phase != p.phase {
		if p.bar != nil {
			p.bar.Finish()
			p.bar = nil
		}
		p.phase = pr.Phase
		if pr.Total == 0 {
			fmt.Fprintf(p.w, "%s…\n", pr.Phase)
		}
	}
	if pr.Total == 0 {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(pr.Total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(pr.Phase),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(unit(pr.Phase)),
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
	if s := (pr.Elapsed - p.start).Seconds(); s > 0 {
		rate = float64(pr.Done) / s
	}
	eta := time.Duration(0)
	if rate > 0 && pr.Total > pr.Done {
		eta = time.Duration(float64(pr.Total-pr.Done) / rate * float64(time.Second))
	}
	if p.json {
		b := must.JSON(map[string]any{"phase": pr.Phase, "done": pr.Done, "total": pr.Total, "unit": unit(pr.Phase),
			"per_s": int(rate), "files_per_s": int(rate), "eta_s": int(eta.Seconds()), "elapsed_s": pr.Elapsed.Seconds()})
		fmt.Fprintln(p.w, string(b))
		return
	}
	if pr.Total > 0 {
		fmt.Fprintf(p.w, "%s %d/%d %s, %.0f %s/s, eta %s\n", pr.Phase, pr.Done, pr.Total, unit(pr.Phase), rate, unit(pr.Phase), eta.Round(time.Second))
	} else {
		fmt.Fprintf(p.w, "%s\n", pr.Phase)
	}
}
