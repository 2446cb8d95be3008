package web

import (
	"cmp"
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/serve/mcp"
)

// Options configure a Server.
type Options struct {
	Engine *engine.Engine
	// Addr is where ListenAndServe binds (default DefaultAddr).
	Addr string
	// Remote allows a non-loopback Addr; it also needs a Token.
	Remote bool
	// Token, when set, is required on every request: an
	// "Authorization: Bearer" header, or the cookie a visit with ?token=
	// sets. Required with Remote.
	Token string
	// AllowHosts are further Host names accepted (besides IP literals and
	// localhost), e.g. the machine's DNS name when served remotely.
	AllowHosts []string
	// RunsDir holds the agent's run directories (default
	// ROOT/.cairn/runs).
	RunsDir string
	Version string
	Log     *slog.Logger
}

// DefaultAddr is the loopback address served by default.
const DefaultAddr = "127.0.0.1:7777"

// MinTokenLen is the shortest token accepted.
const MinTokenLen = 16

// Server serves the JSON API and the pages.
type Server struct {
	opts  Options
	eng   *engine.Engine
	tools *mcp.Server
	api   map[string]mcp.ToolInfo
	pages *template.Template
	mux   *http.ServeMux
	// panics counts requests that panicked (guard recovers them)
	panics atomic.Int64
}

//go:embed assets templates
var files embed.FS

// New makes a server over opts.Engine. It checks the address and token
// (CheckAddr) so that a misconfigured server never starts.
func New(opts Options) (*Server, error) {
	opts.Addr = cmp.Or(opts.Addr, DefaultAddr)
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.RunsDir == "" {
		opts.RunsDir = filepath.Join(opts.Engine.Root(), ".cairn", "runs")
	}
	if err := CheckAddr(opts.Addr, opts.Remote, opts.Token); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, eng: opts.Engine, api: map[string]mcp.ToolInfo{}}
	// the MCP tools without verify_change: every one of them only reads
	s.tools = mcp.New(mcp.Options{Engine: opts.Engine, Version: opts.Version, Log: opts.Log, MaxBytes: 256 << 10})
	for _, t := range s.tools.Tools() {
		if t.ReadOnly {
			s.api[t.Name] = t
		}
	}
	t, err := template.New("").Funcs(funcs).ParseFS(files, "templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("parse page templates: %w", err)
	}
	s.pages = t
	s.routes()
	return s, nil
}

// CheckAddr refuses to serve a non-loopback address unless remote is set
// and a token of at least MinTokenLen bytes is given. A host name other
// than localhost counts as non-loopback (it may resolve anywhere).
func CheckAddr(addr string, remote bool, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if token != "" && len(token) < MinTokenLen {
		return fmt.Errorf("the token is %d bytes; use at least %d (e.g. openssl rand -hex 16)", len(token), MinTokenLen)
	}
	if isLoopback(host) {
		return nil
	}
	if !remote {
		return fmt.Errorf("%s is not a loopback address: serving beyond this machine needs --remote and a token (--token or CAIRN_HTTP_TOKEN)", addr)
	}
	if token == "" {
		return fmt.Errorf("serving %s beyond this machine needs a token (--token or CAIRN_HTTP_TOKEN)", addr)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler is the server's HTTP handler, behind the guard.
func (s *Server) Handler() http.Handler { return s.guard(s.mux) }

// ListenAndServe serves on Options.Addr until ctx ends; ready, when set,
// receives the bound address.
func (s *Server) ListenAndServe(ctx context.Context, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
		return nil
	}
}

const tokenCookie = "cairn_token"

// guard admits a request only when
//   - its method reads (GET, HEAD; POST for the JSON API, whose calls read
//     too): no endpoint changes the index or the repository;
//   - its Host is an IP literal, localhost or one of Options.AllowHosts: a
//     page of a rebound DNS name (DNS rebinding) is refused;
//   - it carries no foreign Origin and is not a cross-site fetch: another
//     site's page must not drive this server;
//   - it carries the token, when one is set.
//
// Every response forbids loading anything from elsewhere
// (Content-Security-Policy) and being framed.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		switch {
		case r.Method == http.MethodGet || r.Method == http.MethodHead:
		case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/"):
		default:
			h.Set("Allow", "GET, HEAD")
			refuse(w, http.StatusMethodNotAllowed, "this server only reads: %s is not served", r.Method)
			return
		}
		if !s.hostAllowed(r.Host) {
			refuse(w, http.StatusMisdirectedRequest, "host %q is not served here (DNS rebinding protection): use the address the server printed", r.Host)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r.Host) {
			refuse(w, http.StatusForbidden, "cross-origin request from %q refused", o)
			return
		}
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			refuse(w, http.StatusForbidden, "cross-site request refused")
			return
		}
		if s.opts.Token != "" && !s.authorized(w, r) {
			return
		}
		defer func() {
			// a request is an isolation boundary: its panic is its error,
			// not the server's end
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.panics.Add(1)
				s.opts.Log.Error("request panicked", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				writeJSON(w, http.StatusInternalServerError, errorBody{Error: errorView{Category: string(engine.Internal), Message: "internal: the request failed (logged by the server)"}})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// Panics counts the requests that panicked.
func (s *Server) Panics() int64 { return s.panics.Load() }

func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if host == "" {
		return false
	}
	if host == "localhost" || net.ParseIP(host) != nil {
		return true
	}
	for _, a := range s.opts.AllowHosts {
		if strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, host)
}

// authorized checks the token: a bearer header, the cookie, or ?token= —
// which sets the cookie and redirects to the same URL without it, so the
// token does not stay in the address bar or the history.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	ok := func(got string) bool {
		return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) == 1
	}
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") && ok(strings.TrimPrefix(a, "Bearer ")) {
		return true
	}
	if c, err := r.Cookie(tokenCookie); err == nil && ok(c.Value) {
		return true
	}
	q := r.URL.Query()
	if t := q.Get("token"); t != "" && ok(t) && r.Method == http.MethodGet {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: t, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return false
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
	refuse(w, http.StatusUnauthorized, "a token is required: send Authorization: Bearer TOKEN, or open the page once with ?token=TOKEN")
	return false
}

// refuse answers a refused request with a JSON error (the API's shape).
func refuse(w http.ResponseWriter, code int, format string, args ...any) {
	writeJSON(w, code, errorBody{Error: errorView{Category: "refused", Message: fmt.Sprintf(format, args...)}})
}

func (s *Server) routes() {
	m := http.NewServeMux()
	assets, _ := fs.Sub(files, "assets")
	m.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(assets)))
	m.HandleFunc("/api/{tool}", s.apiCall)
	m.HandleFunc("GET /api/{$}", s.apiIndex)
	m.HandleFunc("GET /api/openapi.json", s.openAPI)
	m.HandleFunc("/api/paths", s.apiPaths)
	m.HandleFunc("GET /{$}", s.home)
	m.HandleFunc("GET /search", s.search)
	m.HandleFunc("GET /symbol", s.symbol)
	m.HandleFunc("GET /trace", s.trace)
	m.HandleFunc("GET /impact", s.impact)
	m.HandleFunc("GET /context", s.context)
	m.HandleFunc("GET /runs", s.runs)
	m.HandleFunc("GET /runs/{id}", s.run)
	m.HandleFunc("GET /source", s.source)
	s.mux = m
}

var errNoRun = errors.New("no such run")
