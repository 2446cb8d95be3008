// Package web serves cairn to people: `cairn serve http`, a read-only web
// UI and JSON API over the engine, for engineers asking what a change
// breaks and for people onboarding onto a codebase.
//
// # JSON API
//
// /api/TOOL is the catalogue's tool of the same name (engine/catalog, as
// the MCP server registers it: search, definition, references, callers, callees,
// implementations, trace, impact, build_context, read_span, repo_map,
// entry_points, package_graph, index_status) answered through mcp.Server.Call: the same admission,
// snapshot, argument checks and paging, and the same structured output an
// MCP client gets, so the API cannot drift from the tools. Arguments come
// as query parameters (typed by the tool's input schema; an unknown one is
// an invalid_argument) or as a POSTed JSON object. /api/paths, which MCP
// has no tool for, answers engine.PathsResult, the results of `cairn path
// --json`. Errors are {"error": {category, message, candidates}} with the
// engine's category mapped to a status (not_found 404, ambiguous 409,
// invalid_argument 400, outside_repository 403, stale_index 503).
// /api/openapi.json describes it all, generated from the tools' schemas;
// schema/openapi.json is the same document, checked by a test.
// verify_change is not served: it runs checks and writes worktrees. A
// page of a list holds up to 256 KB of JSON (the catalogue's budget for
// models, catalog.MaxBytes, is 24 KiB); next_cursor continues it as it
// does there.
//
// # Pages
//
// Server-rendered (html/template) from one snapshot per request; each page
// asks the engine its questions — one call each, the call the CLI and the
// MCP tools make — and only arranges the answers: / (Status, Map grouped
// by directory, EntryPoints, PackageGraph drawn as a graph; ?under=DIR
// narrows all of them to a directory, where a package node leads),
// /search (Search), /symbol (Definitions; for one
// definition ReadSpan, Callers, Callees, Implementations, References by
// role, and Impact's tests that reach it with their commands), /trace (Trace), /impact (Impact, by symbol or ?diff=REV; the
// dependents drawn by depth, each joined to the symbol it uses one edge
// closer to the change),
// /context (Context), /source (ReadSpan and Symbols of the file), /runs
// and /runs/ID (agent/state's List and Read of the run directories, plus
// the run's evidence files). A name that denotes several definitions
// lists them to pick from; errors show the engine's category and
// candidates, with the API's status. Long lists (references by role,
// callers, callees, dependents per depth, tests) show listCap items and
// link the JSON API for the rest; a trace lists 20 write and 20 read sites
// open. /source links each definition from the line it starts on.
//
// Graphs (svg.go) are laid out and drawn on the server as inline SVG: a
// column per call depth (callers left of the symbol, callees right), per
// depth of dependents (impact: the change right of them) or, for a trace
// and the package graph, per step of the flows from their entry points or
// of the import chains (longest path, cycles' back edges ignored; one
// barycentre pass orders a column).
// Edge style is confidence (precise solid, resolved dashed, name-only
// dotted); a trace step where the value is lost is a gap node, red, with
// the gap's kind as a class. A graph stays readable on a large index: past
// MaxNodes, or past 12 nodes in one call-depth column, the remaining nodes
// fold into "N more" nodes by directory and column, their edges
// redirected (the package graph is cut by the engine, its Limit, and the
// rest counted in one "N more" node). Each node links to its symbol page or source line. A drawing is a pure function of the answer, testable without a
// browser; app.js only dims what a hovered node is not joined to.
//
// Every asset (templates, style.css, app.js) is embedded (go:embed); no
// page loads anything from elsewhere, and the Content-Security-Policy
// forbids it.
//
// # Security
//
// The server only reads: GET and HEAD (and POST for the API, whose calls
// read too); nothing changes the index or the repository. It binds to
// loopback unless Options.Remote, which needs a token of at least
// MinTokenLen bytes (CheckAddr refuses otherwise, before anything
// listens). A token, when set, is checked on every request, in constant
// time: "Authorization: Bearer TOKEN", or the HttpOnly SameSite=Strict
// cookie that one visit with ?token=TOKEN sets (and redirects without it).
// Against DNS rebinding the Host must be an IP literal, localhost or one of
// Options.AllowHosts; a foreign Origin or a cross-site fetch
// (Sec-Fetch-Site) is refused. Paths come to the engine, which refuses
// any outside the repository root, links included (engine.RepoPath); run
// ids are plain names under the runs directory. A request that panics
// answers 500 internal and is counted (Server.Panics); the server goes on.
package web
