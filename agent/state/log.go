package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
)

// CorruptError reports an event log line that is not the event it should
// be. Open and Read refuse such a log and rewrite nothing.
type CorruptError struct {
	Path string
	Line int // 1-based
	Msg  string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s:%d: corrupt event log: %s (nothing was rewritten; move the run aside or cut the log at line %d by hand)", e.Path, e.Line, e.Msg, e.Line)
}

// parsed is an event log as read from disk.
type parsed struct {
	events []Event
	good   int64 // bytes of complete, valid lines
	// torn is the last line when it is not a complete event (a write
	// interrupted by a crash), nil when the log ends cleanly.
	torn []byte
}

// parseLog reads an event log. Every line but the last must be a valid
// event with the next sequence number; the last may be torn (no newline,
// or not valid JSON), which a crash mid-write leaves and Open repairs.
func parseLog(path string, data []byte) (*parsed, error) {
	p := &parsed{}
	off := 0
	for line := 1; off < len(data); line++ {
		end := bytes.IndexByte(data[off:], '\n')
		last := end < 0 || off+end+1 == len(data)
		var text []byte
		if end < 0 {
			text = data[off:]
		} else {
			text = data[off : off+end]
		}
		ev, err := decodeEvent(text)
		if err == nil && ev.Seq != int64(len(p.events))+1 {
			err = fmt.Errorf("sequence %d, want %d", ev.Seq, len(p.events)+1)
			if last && end >= 0 {
				// a complete line with a wrong sequence is no torn write
				return nil, &CorruptError{Path: path, Line: line, Msg: err.Error()}
			}
		}
		if err != nil || end < 0 {
			if last {
				p.torn = data[off:]
				return p, nil
			}
			return nil, &CorruptError{Path: path, Line: line, Msg: err.Error()}
		}
		p.events = append(p.events, ev)
		off += end + 1
		p.good = int64(off)
	}
	return p, nil
}

func decodeEvent(text []byte) (Event, error) {
	var ev Event
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		return ev, fmt.Errorf("not an event: %v", err)
	}
	if dec.More() {
		return ev, fmt.Errorf("not an event: text after the JSON object")
	}
	if ev.Kind == "" {
		return ev, fmt.Errorf("event %d has no kind", ev.Seq)
	}
	return ev, nil
}

var (
	tornSeq  = regexp.MustCompile(`^\{"seq":([0-9]+)`)
	tornKind = regexp.MustCompile(`"kind":"([a-z_]+)"`)
)

// describeTorn says what a torn line was, as far as its prefix tells.
func describeTorn(torn []byte) map[string]any {
	d := map[string]any{"dropped_bytes": len(torn), "reason": "the last line of the event log was incomplete (the process was killed mid-write); it was cut off"}
	if m := tornSeq.FindSubmatch(torn); m != nil {
		if n, err := strconv.ParseInt(string(m[1]), 10, 64); err == nil {
			d["dropped_seq"] = n
		}
	}
	if m := tornKind.FindSubmatch(torn); m != nil {
		d["dropped_kind"] = string(m[1])
	}
	return d
}

// readLog reads and parses the event log of dir.
func readLog(dir string) (*parsed, error) {
	path := dir + "/" + EventsFile
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read event log: %w", err)
	}
	return parseLog(path, data)
}
