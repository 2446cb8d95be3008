package state

import (
	"bytes"
	"testing"
)

// FuzzParseLog: any bytes are read without a panic; an accepted log has
// contiguous seqs, and its good prefix plus the torn tail is the input.
func FuzzParseLog(f *testing.F) {
	f.Add([]byte(`{"seq":1,"time":"2026-12-02T01:00:00Z","kind":"run_started","step":0,"contract_hash":"h"}` + "\n"))
	f.Add([]byte(`{"seq":1,"time":"2026-12-02T01:00:00Z","kind":"a","step":0,"contract_hash":""}` + "\n" + `{"seq":2,"ti`))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"seq":1,"kind":"a"}` + "\n" + `{"seq":3,"kind":"a"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseLog("events.jsonl", data)
		if err != nil {
			return
		}
		for i, ev := range p.events {
			if ev.Seq != int64(i+1) || ev.Kind == "" {
				t.Fatalf("event %d: %+v", i, ev)
			}
		}
		if !bytes.Equal(append(append([]byte(nil), data[:p.good]...), p.torn...), data) {
			t.Fatalf("good %d + torn %d != %d bytes", p.good, len(p.torn), len(data))
		}
		if bytes.IndexByte(p.torn, '\n') >= 0 && bytes.IndexByte(p.torn, '\n') != len(p.torn)-1 {
			t.Fatalf("torn tail spans lines: %q", p.torn)
		}
	})
}

// BenchmarkAppend is the log's cost per event (marshal, redact, write,
// fsync) for a tool-call-sized payload.
func BenchmarkAppend(b *testing.B) {
	r, err := Create(b.TempDir(), Meta{ContractHash: "sha256:00"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	data := map[string]any{"id": "toolu_01", "tool": "read", "input": map[string]any{"path": "internal/api/mapper.go", "start_line": 1, "end_line": 80}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Append(KindToolCall, 1, data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen is a resume's cost of reading and checking a 2,000-event
// log.
func BenchmarkOpen(b *testing.B) {
	r, err := Create(b.TempDir(), Meta{ContractHash: "sha256:00"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 2000 {
		r.Append(KindToolResult, i/10, map[string]any{"result": "ok", "i": i})
	}
	r.Close()
	b.ResetTimer()
	for b.Loop() {
		r, err := Open(r.Dir)
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
