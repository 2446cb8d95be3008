package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// corpus makes documents about two topics that share no words, so a sound
// model must place same-topic texts closer than cross-topic ones.
func corpus(n int) []string {
	net := []string{"socket", "connect", "timeout", "retry", "address", "packet", "dial", "listen", "network", "port"}
	db := []string{"query", "table", "column", "index", "transaction", "commit", "rollback", "schema", "row", "sql"}
	rng := rand.New(rand.NewPCG(7, 7))
	var docs []string
	for i := 0; i < n; i++ {
		words := net
		if i%2 == 1 {
			words = db
		}
		var b strings.Builder
		for j := 0; j < 40; j++ {
			w := words[rng.IntN(len(words))]
			if j%5 == 0 {
				w = "handle" + strings.ToUpper(w[:1]) + w[1:] // camelCase parts
			}
			b.WriteString(w + " ")
		}
		docs = append(docs, b.String())
	}
	return docs
}

func train(t *testing.T, opts PPMIOptions) (*Trainer, *PPMI) {
	t.Helper()
	tr := NewTrainer(opts)
	for _, d := range corpus(400) {
		tr.Add(d)
	}
	m, err := tr.Train(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tr, m
}

func TestPPMISeparatesTopics(t *testing.T) {
	opts := PPMIOptions{Dim: 8, MinCount: 1, Oversample: 4}
	_, m := train(t, opts)
	vs, err := m.Embed(context.Background(), []string{
		"dial the socket with a timeout", "retry the network connect",
		"commit the transaction", "add a column to the table schema",
	})
	if err != nil {
		t.Fatal(err)
	}
	same := Dot(vs[0], vs[1]) + Dot(vs[2], vs[3])
	cross := Dot(vs[0], vs[2]) + Dot(vs[1], vs[3])
	if same <= cross+0.5 {
		t.Errorf("same-topic similarity %.2f not clearly above cross-topic %.2f", same/2, cross/2)
	}
	// Deterministic: the same corpus and seed give the same model.
	_, m2 := train(t, opts)
	if m.Model() != m2.Model() {
		t.Errorf("models differ: %s vs %s", m.Model(), m2.Model())
	}
	// Save and load keep the model.
	p := filepath.Join(t.TempDir(), "m.ppmi")
	if err := m.Save(p); err != nil {
		t.Fatal(err)
	}
	l, err := LoadPPMI(p)
	if err != nil {
		t.Fatal(err)
	}
	if l.Model() != m.Model() {
		t.Errorf("loaded %s, saved %s", l.Model(), m.Model())
	}
	// Every number read back as written (a NaN from a wrong decode would
	// pass the cosine check below: NaN < 0.999 is false).
	if !slices.Equal(l.weight, m.weight) || !slices.Equal(l.pc, m.pc) || l.dim != m.dim || len(l.words) != len(m.words) {
		t.Errorf("loaded model's numbers differ from the saved one's")
	}
	// the loaded model's vectors are decoded word by word, on use
	var buf []float32
	for w, id := range m.words {
		if l.words[w] != id || !slices.Equal(l.row(id, &buf), m.vecs[int(id)*m.dim:(int(id)+1)*m.dim]) {
			t.Fatalf("loaded vector of %q differs from the saved one", w)
		}
	}
	// a loaded model saves the same bytes again
	p2 := filepath.Join(t.TempDir(), "again.ppmi")
	if err := l.Save(p2); err != nil {
		t.Fatal(err)
	}
	if a, b := mustRead(t, p), mustRead(t, p2); !slices.Equal(a, b) {
		t.Errorf("a loaded model saved again differs (%d bytes, first %d)", len(b), len(a))
	}
	// The name is the one indexes already store: sha256 of the dimension,
	// vectors and principal component written with binary.Write.
	h := sha256.New()
	binary.Write(h, binary.LittleEndian, uint32(m.dim))
	binary.Write(h, binary.LittleEndian, m.vecs)
	binary.Write(h, binary.LittleEndian, m.pc)
	if want := "cairn-ppmi-1:" + hex.EncodeToString(h.Sum(nil))[:12]; l.Model() != want || m.Model() != want {
		t.Errorf("model names %s (loaded), %s (trained), want %s", l.Model(), m.Model(), want)
	}
	lv, _ := l.Embed(context.Background(), []string{"dial the socket with a timeout"})
	if d := Dot(lv[0], vs[0]); d < 0.999 {
		t.Errorf("loaded model embeds differently (cos %.4f)", d)
	}
}

func TestPPMITooLittleText(t *testing.T) {
	tr := NewTrainer(PPMIOptions{})
	tr.Add("just a few words")
	if _, err := tr.Train(context.Background()); !errors.Is(err, ErrTooLittleText) {
		t.Errorf("err = %v", err)
	}
}

func TestTerms(t *testing.T) {
	var got []string
	Terms([]byte("func getUserName() // Returns the user's names"), func(s string) { got = append(got, s) })
	want := "user name user name"
	if strings.Join(got, " ") != want {
		t.Errorf("terms = %q, want %q", strings.Join(got, " "), want)
	}
}

// openAI is a local server speaking the OpenAI embeddings protocol.
type openAI struct {
	dim      int
	fail     func(n int) (status int, body string, retryAfter string)
	requests atomic.Int32
	lastAuth atomic.Value
}

func (s *openAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.requests.Add(1))
	s.lastAuth.Store(r.Header.Get("Authorization"))
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if s.fail != nil {
		if status, body, ra := s.fail(n); status != 0 {
			if ra != "" {
				w.Header().Set("Retry-After", ra)
			}
			w.WriteHeader(status)
			fmt.Fprint(w, body)
			return
		}
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	resp := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
	}{Object: "list", Model: req.Model}
	// answer in reverse order: clients must use the index field
	for i := len(req.Input) - 1; i >= 0; i-- {
		v := make([]float32, s.dim)
		v[len(req.Input[i])%s.dim] = 3
		resp.Data = append(resp.Data, item{"embedding", i, v})
	}
	json.NewEncoder(w).Encode(resp)
}

func TestHTTPEmbedder(t *testing.T) {
	srv := &openAI{dim: 4}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	h, err := NewHTTP(HTTPOptions{URL: ts.URL + "/v1", Model: "m", APIKey: "k", Batch: 2, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := h.Embed(context.Background(), []string{"a", "bb", "ccc"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || vs[1][2] != 1 || vs[2][3] != 1 || h.Dim() != 4 {
		t.Errorf("vectors %v dim %d", vs, h.Dim())
	}
	if srv.requests.Load() != 2 {
		t.Errorf("%d requests for 3 texts in batches of 2", srv.requests.Load())
	}
	if srv.lastAuth.Load() != "Bearer k" {
		t.Errorf("auth header %v", srv.lastAuth.Load())
	}
}

func TestHTTPRetriesThen429AndErrors(t *testing.T) {
	cases := []struct {
		name    string
		fail    func(n int) (int, string, string)
		wantErr string
		wantReq int32
	}{
		{"429 then ok", func(n int) (int, string, string) {
			if n <= 2 {
				return 429, `{"error":{"message":"slow down"}}`, "0"
			}
			return 0, "", ""
		}, "", 3},
		{"500 forever", func(int) (int, string, string) { return 503, "busy", "" }, "giving up after 3 attempts", 3},
		{"400 is final", func(int) (int, string, string) { return 400, `{"error":"bad model"}`, "" }, "400 Bad Request", 1},
		{"malformed json", func(int) (int, string, string) { return 200, `{"data": [`, "" }, "malformed response", 1},
		{"wrong count", func(int) (int, string, string) { return 200, `{"data": []}`, "" }, "0 vectors for 1 texts", 1},
		{"wrong dims", func(int) (int, string, string) {
			return 200, `{"data": [{"index":0,"embedding":[1,2]}]}`, ""
		}, "", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := &openAI{dim: 4, fail: tc.fail}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			h, _ := NewHTTP(HTTPOptions{URL: ts.URL + "/v1", Model: "m", Retries: 2, Backoff: time.Millisecond})
			_, err := h.Embed(context.Background(), []string{"x"})
			if tc.wantErr == "" && err != nil {
				t.Fatalf("err = %v", err)
			}
			if tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if got := srv.requests.Load(); got != tc.wantReq {
				t.Errorf("%d requests, want %d", got, tc.wantReq)
			}
		})
	}
	// a second response with another dimension is malformed
	srv := &openAI{dim: 4}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	h, _ := NewHTTP(HTTPOptions{URL: ts.URL + "/v1", Model: "m"})
	h.Embed(context.Background(), []string{"x"})
	srv.dim = 3
	if _, err := h.Embed(context.Background(), []string{"y"}); err == nil || !strings.Contains(err.Error(), "expected 4") {
		t.Errorf("dimension change: %v", err)
	}
}

func TestHTTPUnreachableAndTimeout(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	h, _ := NewHTTP(HTTPOptions{URL: "http://" + addr + "/v1", Model: "m", Retries: 1, Backoff: time.Millisecond})
	_, err := h.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), addr) {
		t.Errorf("unreachable: %v", err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(200 * time.Millisecond)
	}))
	defer slow.Close()
	h, _ = NewHTTP(HTTPOptions{URL: slow.URL + "/v1", Model: "m", Timeout: 20 * time.Millisecond, Retries: 1, Backoff: time.Millisecond})
	start := time.Now()
	_, err = h.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "timed out") || time.Since(start) > 2*time.Second {
		t.Errorf("timeout: %v after %s", err, time.Since(start))
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
