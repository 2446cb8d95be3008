package fuse

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestAdmit: no more searches run at once than there are slots; a search
// waiting for one gives up with its context.
func TestAdmit(t *testing.T) {
	e := &Engine{Slots: 2}
	ctx := context.Background()
	var running, most atomic.Int32
	done := make(chan struct{})
	for i := 0; i < 6; i++ {
		go func() {
			release, err := e.admit(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(5 * time.Millisecond)
			running.Add(-1)
			release()
			done <- struct{}{}
		}()
	}
	for i := 0; i < 6; i++ {
		<-done
	}
	if most.Load() != 2 {
		t.Errorf("%d searches ran at once with 2 slots", most.Load())
	}
	r1, _ := e.admit(ctx)
	r2, _ := e.admit(ctx)
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := e.admit(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a third search with both slots taken: %v", err)
	}
	r1()
	if r3, err := e.admit(short); err == nil {
		t.Error("admitted on an expired context")
		r3()
	}
	r3, err := e.admit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r2()
	r3()
}
