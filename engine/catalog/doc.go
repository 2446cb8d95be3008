// Package catalog defines each of cairn's read-only tools once: its stable
// name, title, description (and a short one for the lean profile), input
// and output types (whose `jsonschema` tags the MCP SDK and every other
// surface read as their schemas), bounds and defaults, paging with cursors,
// trimming to a byte budget by structure, and its one engine call. The
// surfaces are thin wrappers over it:
//
//   - serve/mcp registers every entry of All (within a Profile) as an MCP
//     tool; the SDK validates arguments against Info.Input, Tool.Call
//     decodes them strictly and asks the engine.
//   - serve/web's JSON API answers /api/TOOL through the MCP server's
//     registry, so through the same entries.
//   - agent/tools wraps the entries the agent uses (EngineTools), with the
//     same names, descriptions, schemas and answers.
//   - cmd/cairn's `search --json` publishes ShapeSearch's Search, the one
//     search shape (schema/views.schema.json's $defs/search).
//
// Like the gopls MCP references tool and the LSP handler that both end in
// golang.References, a tool body is a few lines of argument checks, one
// engine.Snapshot call and a shape; cmd/cairn's TestOneDefinitionPerTool
// fails when a description or a trimming helper is written again outside
// this package.
//
// # Budget and trimming
//
// MaxBytes (24 KiB) is the one budget: of a page of a list, of an analysis,
// and of any tool result the agent's loop shows its model (Fit). Nothing is
// cut by bytes while it has structure:
//
//   - lists (search hits, definitions, references, callers, callees,
//     implementations, the repository map, entry points) are paged: a page
//     holds at most limit items and at most the budget of JSON (page), and
//     next_cursor continues it. A cursor names the tool, the arguments
//     (without the cursor) and the index generation: with other arguments
//     it is an invalid_argument, after a re-index a stale_index error.
//   - one analysis (trace, impact, package_graph) is trimmed by its own
//     order of trims (fit and halve): trace drops flows, then call paths,
//     then halves reads and writes, then carriers and gaps; impact halves
//     dependents, tests, implementations and untested callers, changed
//     symbols. omitted (package_graph: omitted_to_fit) counts what each list
//     lost.
//   - Fit is the generic fallback for any JSON or text: the largest lists
//     halved (counted under omitted_by_cap by path), then the longest
//     strings shortened with a marker; plain text alone is cut, saying how
//     much.
//
// build_context is bounded by its own token budget (the pack degrades items
// to signatures before dropping them), not by MaxBytes.
//
// # Profiles and cost
//
// Every tool a client lists costs its model the tool's name, description
// and input schema on every turn. Sizes measures that in cl100k tokens;
// bench/serve/TOOLS.md (TestToolSizes) is the table. `cairn serve mcp`
// serves the lean profile by default (Lean: the tools to find and follow
// code, short descriptions); `--tools all` or `--tools a,b,c` serve more,
// fully described (ParseProfile).
//
// Errors are the engine's (engine.Errorf, engine.Classify); each surface
// maps the category once (MCP isError and _meta, HTTP status, the agent's
// error result).
package catalog
