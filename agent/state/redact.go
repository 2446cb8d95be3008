package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/internal/must"
	"github.com/cairn-dev/cairn/internal/redact"
)

// redactJSON returns the JSON encoding of v with every string in it, keys
// and values, passed through internal/redact, and a string value assigned to a
// member whose name names a credential ({"api_key": "…"}) judged as the
// assignment it is. Member order is kept; numbers keep their text.
func redactJSON(v any) (json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	if err := redactValue(dec, &out); err != nil {
		return nil, fmt.Errorf("redact event data: %w", err)
	}
	return out.Bytes(), nil
}

// redactValue copies one JSON value from dec to out, redacting its strings.
func redactValue(dec *json.Decoder, out *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			out.WriteByte('{')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				key, _ := kt.(string)
				writeString(out, redact.Text(key))
				out.WriteByte(':')
				if err := redactMember(dec, out, key); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // '}'
				return err
			}
			out.WriteByte('}')
		case '[':
			out.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				if err := redactValue(dec, out); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // ']'
				return err
			}
			out.WriteByte(']')
		}
	case string:
		writeString(out, redact.Text(t))
	case json.Number:
		out.WriteString(t.String())
	case bool:
		if t {
			out.WriteString("true")
		} else {
			out.WriteString("false")
		}
	case nil:
		out.WriteString("null")
	}
	return nil
}

// redactMember copies the value of the object member named key: a string
// is redacted as the assignment key: "value", so a secret recognised only by
// the name it is assigned to is caught too.
func redactMember(dec *json.Decoder, out *bytes.Buffer, key string) error {
	if !dec.More() {
		return redactValue(dec, out)
	}
	// Peek by decoding the value whole when it is a string.
	var rv json.RawMessage
	if err := dec.Decode(&rv); err != nil {
		return err
	}
	var s string
	if len(rv) == 0 || rv[0] != '"' || json.Unmarshal(rv, &s) != nil {
		sub := json.NewDecoder(bytes.NewReader(rv))
		sub.UseNumber()
		return redactValue(sub, out)
	}
	writeString(out, redactAssigned(key, s))
	return nil
}

// redactAssigned redacts s, the value assigned to the name key.
func redactAssigned(key, s string) string {
	s = redact.Text(s)
	if key == "" || strings.ContainsAny(s, "\"\n") || strings.ContainsAny(key, "\"\n") {
		return s
	}
	prefix := key + `: "`
	r := redact.Text(prefix + s + `"`)
	if r != prefix+s+`"` && strings.HasPrefix(r, prefix) && strings.HasSuffix(r, `"`) {
		return r[len(prefix) : len(r)-1]
	}
	return s
}

// writeString writes s as a JSON string (with encoding/json's escaping).
func writeString(out *bytes.Buffer, s string) {
	out.Write(must.JSON(s))
}
