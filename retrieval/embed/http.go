package embed

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HTTPOptions configure an OpenAI-compatible embeddings client. The
// library reads no environment: cmd/cairn fills them from CAIRN_EMBED_URL,
// CAIRN_EMBED_MODEL, CAIRN_EMBED_KEY (or OPENAI_API_KEY) and
// CAIRN_EMBED_DIMENSIONS.
type HTTPOptions struct {
	// URL is the API base, e.g. https://api.openai.com/v1 or
	// http://localhost:11434/v1; "/embeddings" is appended.
	URL    string
	Model  string
	APIKey string
	// Dimensions, when set, is sent as the "dimensions" parameter.
	Dimensions int
	Batch      int           // texts per request; default 64
	Timeout    time.Duration // per request; default 60s
	Retries    int           // after the first attempt; default 5
	// Backoff is the first retry delay, doubled each time; default 500ms.
	Backoff time.Duration
	Client  *http.Client
}

// HTTP embeds through a remote /v1/embeddings endpoint.
type HTTP struct {
	o   HTTPOptions
	dim int
}

// ErrUnreachable wraps failures to reach the embeddings server at all.
var ErrUnreachable = errors.New("embeddings server unreachable")

// NewHTTP returns a client; it does not contact the server.
func NewHTTP(o HTTPOptions) (*HTTP, error) {
	if o.URL == "" {
		return nil, errors.New("embeddings: no server URL")
	}
	if o.Model == "" {
		return nil, errors.New("embeddings: no model")
	}
	o.Batch = cmp.Or(o.Batch, 64)
	o.Timeout = cmp.Or(o.Timeout, 60*time.Second)
	if o.Retries == 0 {
		o.Retries = 5
	}
	o.Backoff = cmp.Or(o.Backoff, 500*time.Millisecond)
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	o.URL = strings.TrimSuffix(o.URL, "/")
	return &HTTP{o: o, dim: o.Dimensions}, nil
}

// Model implements Embedder.
func (h *HTTP) Model() string {
	m := "http:" + h.o.Model
	if h.o.Dimensions > 0 {
		m += ":" + strconv.Itoa(h.o.Dimensions)
	}
	return m
}

// Dim implements Embedder (0 until the first response).
func (h *HTTP) Dim() int { return h.dim }

type embedRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type embedResponse struct {
	Data []struct {
		Embedding []float32 `json:"embedding"`
		Index     *int      `json:"index"`
	} `json:"data"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Embed implements Embedder.
func (h *HTTP) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += h.o.Batch {
		end := min(start+h.o.Batch, len(texts))
		vs, err := h.batch(ctx, texts[start:end])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// retryable errors are worth another attempt.
type retryable struct {
	err   error
	after time.Duration
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

func (h *HTTP) batch(ctx context.Context, texts []string) ([][]float32, error) {
	delay := h.o.Backoff
	var last error
	for attempt := 0; attempt <= h.o.Retries; attempt++ {
		if attempt > 0 {
			wait := delay
			var r *retryable
			if errors.As(last, &r) && r.after > 0 {
				wait = r.after
			}
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			delay *= 2
		}
		vs, err := h.post(ctx, texts)
		if err == nil {
			return vs, nil
		}
		last = err
		var r *retryable
		if !errors.As(err, &r) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("embeddings: giving up after %d attempts: %w", h.o.Retries+1, last)
}

func (h *HTTP) post(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(embedRequest{Model: h.o.Model, Input: texts, Dimensions: h.o.Dimensions})
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, h.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.o.URL+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if h.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+h.o.APIKey)
	}
	resp, err := h.o.Client.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, h.o.URL, err)
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return nil, &retryable{err: fmt.Errorf("embeddings: %s timed out after %s", h.o.URL, h.o.Timeout)}
		}
		return nil, &retryable{err: fmt.Errorf("embeddings: %s: %w", h.o.URL, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, &retryable{err: fmt.Errorf("embeddings: read response: %w", err)}
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		after, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return nil, &retryable{err: fmt.Errorf("embeddings: server answered %s", resp.Status), after: time.Duration(after) * time.Second}
	case resp.StatusCode != http.StatusOK:
		msg := strings.TrimSpace(string(data))
		if len(msg) > 300 {
			msg = msg[:300]
		}
		return nil, fmt.Errorf("embeddings: server answered %s: %s", resp.Status, msg)
	}
	var er embedResponse
	if err := json.Unmarshal(data, &er); err != nil {
		return nil, fmt.Errorf("embeddings: malformed response: %w", err)
	}
	if er.Error != nil {
		return nil, fmt.Errorf("embeddings: server error: %s", er.Error.Message)
	}
	if len(er.Data) != len(texts) {
		return nil, fmt.Errorf("embeddings: malformed response: %d vectors for %d texts", len(er.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for i, d := range er.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= len(out) || out[idx] != nil {
			return nil, fmt.Errorf("embeddings: malformed response: bad or repeated index %d", idx)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embeddings: malformed response: empty vector %d", idx)
		}
		if h.dim == 0 {
			h.dim = len(d.Embedding)
		}
		if len(d.Embedding) != h.dim {
			return nil, fmt.Errorf("embeddings: malformed response: vector of %d dimensions, expected %d", len(d.Embedding), h.dim)
		}
		for _, x := range d.Embedding {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("embeddings: malformed response: non-finite value in vector %d", idx)
			}
		}
		v := append([]float32(nil), d.Embedding...)
		Normalize(v)
		out[idx] = v
	}
	return out, nil
}
