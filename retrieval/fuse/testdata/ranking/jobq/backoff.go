package jobq

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Backoff is an exponential retry policy.
type Backoff struct {
	Base        time.Duration
	Max         time.Duration
	MaxAttempts int
}

// DefaultBackoff waits 1s, 2s, 4s … up to a minute, five attempts.
var DefaultBackoff = Backoff{Base: time.Second, Max: time.Minute, MaxAttempts: 5}

// Delay is the wait before the given attempt: Base doubled per attempt,
// capped at Max.
func (b Backoff) Delay(attempt int) time.Duration {
	d := b.Base
	for i := 1; i < attempt; i++ {
		d *= 2
		if d > b.Max {
			return b.Max
		}
	}
	return d
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
