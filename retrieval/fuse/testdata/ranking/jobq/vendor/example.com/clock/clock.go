// Package clock is a vendored copy of a small clock library: real and fake
// clocks for code that waits, retries and backs off.
package clock

import "time"

// Clock tells the time and waits.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// Fake is a clock tests move by hand; Sleep advances it, so retries with
// exponential backoff run without waiting.
type Fake struct{ T time.Time }

func (f *Fake) Now() time.Time        { return f.T }
func (f *Fake) Sleep(d time.Duration) { f.T = f.T.Add(d) }
