package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/engine"
)

// message is a JSON-RPC 2.0 request, notification or response.
type message struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  any              `json:"result,omitempty"`
	Error   *respError       `json:"error,omitempty"`
}

// respError is a JSON-RPC error.
type respError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *respError) Error() string { return e.Message }

// JSON-RPC and LSP error codes.
const (
	codeParseError       = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternalError    = -32603
	codeNotInitialized   = -32002
	codeRequestFailed    = -32803
	codeRequestCancelled = -32800
)

// conn reads and writes LSP base-protocol frames (Content-Length headers).
type conn struct {
	r  *bufio.Reader
	mu sync.Mutex
	w  io.Writer
}

func newConn(r io.Reader, w io.Writer) *conn {
	return &conn{r: bufio.NewReaderSize(r, 64<<10), w: w}
}

// maxFrame bounds one message (a whole large file in didOpen fits).
const maxFrame = 64 << 20

func (c *conn) read() (*message, error) {
	tp := textproto.NewReader(c.r)
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Content-Length")))
	if err != nil || n < 0 || n > maxFrame {
		return nil, fmt.Errorf("bad Content-Length %q", h.Get("Content-Length"))
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.r, body); err != nil {
		return nil, err
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return &m, &respError{Code: codeParseError, Message: err.Error()}
	}
	return &m, nil
}

func (c *conn) write(m *message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
		return err
	}
	_, err = c.w.Write(b)
	return err
}

func (c *conn) reply(id *json.RawMessage, result any, err *respError) error {
	m := &message{ID: id, Error: err}
	if err != nil {
		// every error leaves bounded and redacted, whatever made it
		bounded := *err
		bounded.Message = engine.BoundMessage(err.Message)
		m.Error = &bounded
	}
	if err == nil {
		if result == nil {
			result = json.RawMessage("null")
		}
		m.Result = result
	}
	return c.write(m)
}

func (c *conn) notify(method string, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.write(&message{Method: method, Params: b})
}
