package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Failure is how a provider classifies one failed attempt for Retry.
type Failure struct {
	StatusCode int           // 0: no HTTP answer
	Retryable  bool          // worth another attempt
	RetryAfter time.Duration // what the server asked for; 0: nothing
}

// RetryableStatus reports whether an HTTP status is worth retrying: 408, 409,
// 429 and every 5xx (529 is Anthropic's "overloaded").
func RetryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// ShouldRetry decides for an HTTP error answer: the server's x-should-retry
// header ("true" or "false", which both vendors send) when present, else
// RetryableStatus.
func ShouldRetry(code int, h http.Header) bool {
	switch h.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	return RetryableStatus(code)
}

// ParseRetryAfter reads retry-after-ms (milliseconds, as both vendors send)
// or Retry-After (seconds or an HTTP date). 0 when absent or unreadable.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Retry runs call until it succeeds, fails with a non-retryable error, has
// been retried o.MaxRetries times, or ctx ends. classify inspects each error.
// A wait that would pass ctx's deadline is not started: Retry returns at once.
// The Response's Attempts is set; every failure comes back as *Error.
func Retry(ctx context.Context, provider string, o Options, call func(context.Context) (*Response, error), classify func(error) Failure) (*Response, error) {
	retries := cmp.Or(o.MaxRetries, DefaultMaxRetries)
	if retries < 0 {
		retries = 0
	}
	base := cmp.Or(o.RetryBase, DefaultRetryBase)
	for attempt := 1; ; attempt++ {
		resp, err := call(ctx)
		if err == nil {
			resp.Attempts = attempt
			return resp, nil
		}
		f := classify(err)
		if ctx.Err() != nil {
			// The call failed because ctx ended (or just as it did): never retried.
			return nil, &Error{Provider: provider, StatusCode: f.StatusCode, Attempts: attempt, Err: joinCtx(err, ctx.Err())}
		}
		fail := &Error{Provider: provider, StatusCode: f.StatusCode, Retryable: f.Retryable, Attempts: attempt, Err: err}
		if !f.Retryable || attempt > retries {
			return nil, fail
		}
		wait := backoff(base, attempt)
		if f.RetryAfter > 0 {
			wait = f.RetryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			fail.Err = fmt.Errorf("%w (not retried: the wait of %s would pass the deadline)", err, wait.Round(time.Millisecond))
			return nil, fail
		}
		if o.OnRetry != nil {
			o.OnRetry(attempt, err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			fail.Err = joinCtx(err, ctx.Err())
			return nil, fail
		case <-t.C:
		}
	}
}

// backoff is base·2^(attempt-1) capped at MaxBackoff, with jitter drawn from
// [d/2, d] so that clients who failed together do not retry together.
func backoff(base time.Duration, attempt int) time.Duration {
	d := base
	for i := 1; i < attempt && d < MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, MaxBackoff)
	half := d / 2
	return half + rand.N(half+1)
}

func joinCtx(err, ctxErr error) error {
	if ctxErr == nil || errors.Is(err, ctxErr) {
		return err
	}
	return fmt.Errorf("%w: %w", err, ctxErr)
}

// Transient reports whether err is a connection-level failure worth
// retrying: a network error, a failed round trip, or a connection cut
// mid-answer. Context errors are not.
func Transient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
