package web

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// The OpenAPI description of the JSON API is made from the tools'
// schemas (mcp.Server.Tools: the catalogue's), so it describes what is served; the copy in
// schema/openapi.json is checked against it by TestOpenAPIFile (refresh it
// with go test ./serve/web -run OpenAPIFile -update).

// external are output schemas published as files of schema/, referred to
// rather than inlined (they carry their own $defs).
var external = map[string]string{"build_context": "contextpack.schema.json"}

var errorSchema = must(jsonschema.For[errorBody](nil))

// OpenAPI returns the OpenAPI 3.1 document of the JSON API.
func (s *Server) OpenAPI() ([]byte, error) {
	paths, schemas := map[string]any{}, map[string]any{"error": errorSchema}
	ref := func(name string, v any) any {
		if m, ok := v.(map[string]any); ok {
			return m // already a reference
		}
		schemas[name] = v
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	add := func(name, title, desc string, in, out any) {
		var params []any
		if is, ok := in.(*jsonschema.Schema); ok {
			names := propertyNames(is)
			for _, k := range names {
				p := is.Properties[k]
				params = append(params, map[string]any{"name": k, "in": "query", "required": slices.Contains(is.Required, k),
					"description": p.Description, "schema": p})
			}
		}
		inRef, outRef := ref(name+"_in", in), ref(name+"_out", out)
		responses := map[string]any{
			"200":     map[string]any{"description": title, "content": map[string]any{"application/json": map[string]any{"schema": outRef}}},
			"default": map[string]any{"description": "an error, with its category (not_found 404, ambiguous 409 with candidates, invalid_argument 400, outside_repository 403, stale_index 503, refused 401/403/421)", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/error"}}}},
		}
		paths["/api/"+name] = map[string]any{
			"get": map[string]any{"operationId": name, "summary": title, "description": desc, "parameters": params, "responses": responses},
			"post": map[string]any{"operationId": name + "_post", "summary": title + " (arguments as JSON)", "description": desc,
				"requestBody": map[string]any{"required": false, "content": map[string]any{"application/json": map[string]any{"schema": inRef}}},
				"responses":   responses},
		}
	}
	for _, t := range s.tools.Tools() {
		if _, ok := s.api[t.Name]; !ok {
			continue
		}
		var out any = t.Output
		if f, ok := external[t.Name]; ok {
			out = map[string]any{"$ref": f}
		}
		add(t.Name, t.Title, t.Description, t.Input, out)
	}
	add("paths", "Call paths", pathsDescription, pathsInSchema, pathsOutSchema)
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{"title": "cairn HTTP API", "version": "1",
			"description": "The read-only JSON API of `cairn serve http`: each endpoint is the MCP tool of the same name (same arguments, same structured output); paths is `cairn path --json`'s answer. Served on loopback by default; a token (Authorization: Bearer) when served beyond it."},
		"paths":      paths,
		"components": map[string]any{"schemas": schemas, "securitySchemes": map[string]any{"token": map[string]any{"type": "http", "scheme": "bearer"}}},
	}
	return json.MarshalIndent(doc, "", "  ")
}

// toolNames lists the API's MCP-backed endpoints (for tests).
func (s *Server) toolNames() []string {
	var out []string
	for _, t := range s.tools.Tools() {
		if _, ok := s.api[t.Name]; ok {
			out = append(out, t.Name)
		}
	}
	return out
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	b, err := s.OpenAPI()
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(append(b, '\n'))
}
