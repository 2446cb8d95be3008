package web

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/serve/mcp"
)

// The JSON API is the MCP server's read-only tools over plain HTTP: GET
// /api/TOOL?arg=value (each argument as its input schema types it) or
// POST /api/TOOL with the arguments as a JSON object. The answer is the
// tool's structured output, byte for byte what an MCP client gets
// (mcp.Server.Call), so the API cannot drift from the tools. paths, which
// MCP has no tool for, answers engine.PathsResult (`cairn path --json`'s
// results).

// errorBody is every error's JSON.
type errorBody struct {
	Error errorView `json:"error"`
}

type errorView struct {
	Category   string             `json:"category"`
	Message    string             `json:"message"`
	Candidates []graph.SymbolView `json:"candidates,omitempty"`
}

// statusOf maps an engine error category to an HTTP status.
func statusOf(c engine.Category) int {
	switch c {
	case engine.NotFound:
		return http.StatusNotFound
	case engine.Ambiguous:
		return http.StatusConflict
	case engine.InvalidArgument:
		return http.StatusBadRequest
	case engine.OutsideRepository:
		return http.StatusForbidden
	case engine.StaleIndex:
		return http.StatusServiceUnavailable
	case engine.Unsupported:
		return http.StatusNotImplemented
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":{"category":"internal","message":"the answer could not be encoded"}}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, err error) {
	e := engine.Classify(err)
	writeJSON(w, statusOf(e.Category), errorBody{Error: errorView{Category: string(e.Category), Message: e.Error(), Candidates: e.Candidates}})
}

func (s *Server) apiCall(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("tool")
	t, ok := s.api[name]
	if !ok {
		writeError(w, engine.Errorf(engine.NotFound, "no API endpoint %q: GET /api/ lists them", name))
		return
	}
	args, err := arguments(r, t.Input)
	if err != nil {
		writeError(w, err)
		return
	}
	out, err := s.tools.Call(r.Context(), name, args)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// arguments are a call's arguments as JSON: a POST's body, or a GET's
// query parameters typed by the input schema (an unknown parameter, or a
// value that is not of its type, is an invalid_argument).
func arguments(r *http.Request, in *jsonschema.Schema) (json.RawMessage, error) {
	switch r.Method {
	case http.MethodPost:
		b, err := io.ReadAll(io.LimitReader(r.Body, mcp.MaxArguments+1))
		if err != nil {
			return nil, engine.Errorf(engine.InvalidArgument, "read the arguments: %v", err)
		}
		if len(b) > mcp.MaxArguments {
			return nil, engine.Errorf(engine.InvalidArgument, "the arguments exceed %d bytes", mcp.MaxArguments)
		}
		return b, nil
	case http.MethodGet, http.MethodHead:
		return queryArguments(r.URL.Query(), in)
	}
	return nil, engine.Errorf(engine.InvalidArgument, "use GET or POST")
}

func queryArguments(q url.Values, in *jsonschema.Schema) (json.RawMessage, error) {
	args := map[string]any{}
	for k, vs := range q {
		p := in.Properties[k]
		if p == nil {
			return nil, engine.Errorf(engine.InvalidArgument, "unknown parameter %q (the endpoint takes %v)", k, propertyNames(in))
		}
		typ := p.Type
		for _, t := range p.Types { // ["null", "array"] for a slice
			if typ == "" && t != "null" {
				typ = t
			}
		}
		v := vs[len(vs)-1]
		var err error
		switch typ {
		case "integer":
			args[k], err = strconv.Atoi(v)
		case "number":
			args[k], err = strconv.ParseFloat(v, 64)
		case "boolean":
			args[k], err = strconv.ParseBool(v)
		case "array":
			args[k] = vs
		default:
			args[k] = v
		}
		if err != nil {
			return nil, engine.Errorf(engine.InvalidArgument, "parameter %s must be %s (got %q)", k, typ, v)
		}
	}
	return json.Marshal(args)
}

func propertyNames(s *jsonschema.Schema) []string {
	var out []string
	for k := range s.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// endpoint is one line of GET /api/.
type endpoint struct {
	Path        string `json:"path"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

func (s *Server) apiIndex(w http.ResponseWriter, r *http.Request) {
	var out []endpoint
	for _, t := range s.tools.Tools() {
		if _, ok := s.api[t.Name]; ok {
			out = append(out, endpoint{Path: "/api/" + t.Name, Title: t.Title, Description: t.Description})
		}
	}
	out = append(out, endpoint{Path: "/api/paths", Title: "Call paths", Description: pathsDescription})
	writeJSON(w, http.StatusOK, map[string]any{"endpoints": out, "openapi": "/api/openapi.json"})
}

const pathsDescription = "Shortest call paths from one symbol to another (every definition of either name takes part), as `cairn path FROM TO --json` lists them."

// PathsIn is the input of /api/paths.
type PathsIn struct {
	From  string `json:"from" jsonschema:"where the paths start: a name, a qualified name or a symbol_id"`
	To    string `json:"to" jsonschema:"where they end"`
	Depth int    `json:"depth,omitempty" jsonschema:"longest path looked for, 1-12 (default 8)"`
	Limit int    `json:"limit,omitempty" jsonschema:"most paths, 1-50 (default 10)"`
}

var pathsInSchema = must(jsonschema.For[PathsIn](nil))
var pathsOutSchema = must(jsonschema.For[engine.PathsResult](nil))

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func (s *Server) apiPaths(w http.ResponseWriter, r *http.Request) {
	raw, err := arguments(r, pathsInSchema)
	if err != nil {
		writeError(w, err)
		return
	}
	var in PathsIn
	if err := strictDecode(raw, &in); err != nil {
		writeError(w, err)
		return
	}
	snap, err := s.eng.Acquire(r.Context())
	if err != nil {
		writeError(w, err)
		return
	}
	defer snap.Release()
	res, err := snap.Paths(r.Context(), engine.PathsOptions{From: in.From, To: in.To, MaxDepth: cmp.Or(in.Depth, 8), Limit: cmp.Or(in.Limit, 10)})
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func strictDecode(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return engine.Errorf(engine.InvalidArgument, "the arguments are not JSON: %v", err)
		}
		return engine.Errorf(engine.InvalidArgument, "arguments: %v", err)
	}
	return nil
}
