// Package trace answers "who writes this value and who reads it back,
// through which call paths, and where does its path break?" for a field,
// a database column, a JSON or map key, a config key or a variable.
//
// A value has several representations, which this package calls carriers:
// the struct field Task.ArtifactURL, the column tasks.artifact_url, the
// JSON key "artifact_url" of a response type, the TypeScript member
// TaskDTO.artifact_url, the client-side TaskState.artifactUrl. They are
// found by one normalized key (the words of the name, so every casing
// convention meets) among the indexed definitions, plus tags (json, db,
// gorm) read from the field's line. The key as the target spells it
// (_AuthToken) is searched for too (the text index keeps an identifier
// whole), and a site spelled otherwise (auth_token) is marked Normalized
// and listed after the sites spelled as written: normalization adds
// candidates, it never replaces the exact key. Sites come from two sources:
//
//   - the index's occurrences of each carrier, with their roles (writes
//     include assignments, compound assignments, struct and object literal
//     keys; a field whose address is passed to a call is written through
//     the pointer, and Scan(&t.F) is a load from the query result), and
//     calls of setters, getters and builder steps named after the key;
//   - a scan of the files whose text holds the key (the text index says
//     which; without one every file is read) for SQL statements (UPDATE …
//     SET, INSERT INTO … (cols), ON CONFLICT DO UPDATE, SELECT lists and
//     WHERE clauses, CREATE TABLE and ALTER TABLE ADD COLUMN), map and dict
//     keys, query-builder and ORM calls (Set("col"), .update(col=…),
//     objects.create(col=…)) and config file entries (YAML nesting
//     followed through indentation). Key scans read only the text around
//     mentions that can be keys (a whole quoted string, a Python keyword
//     argument); a file's text sites of one kind are listed up to 20 and
//     the rest counted on the last one listed (Site.Alike), so a generated
//     file holding the key ten thousand times costs one entry, not ten
//     thousand.
//
// Each site gets the call paths that reach it from entry points: found by a
// breadth-first walk up the call graph, an entry being an HTTP route (a
// registration such as mux.HandleFunc("GET /x", h.F) whose pattern is a
// URL path, a decorator or annotation, a Go function taking an
// http.ResponseWriter or a framework's context — not one returning an
// *http.Response, a client), main, a CLI command (a decorator, or bound by RunE:,
// Action: or set_defaults(func=…)), a job (a decorator, or bound by a
// scheduler call: AddFunc, add_job, schedule, every(…).do), a test, a UI
// event handler or a route loader, or a function nothing calls.
// EntryPoints (entries.go) lists a repository's entry points by the same
// rules, asking them only of the functions the index says may be ones: those
// referenced on registration lines, decorated ones, Go handlers by signature
// and mains. Routes bound to closures (Ktor's routing { get("/x") { … } },
// Vapor's app.get("x") { req in … }) have no function of their own: a
// trace starts at the function the closure is written in, and EntryPoints
// lists each route with that function and its binding line (entrylang.go).
// The walk crosses from an HTTP
// handler to the client code whose fetch/axios request matches its route
// (method and path, parameters as wildcards), so a path can start at a
// button in the front end and end at a SQL SELECT in the back end.
//
// Flows are then walked down from each entry in call order, keeping the
// functions that touch the value or lead to one that does; flows that only
// lead into another's entry, or cover the same functions from a less
// specific entry, are folded into it. Gaps are found by four rules:
//
//   - dropped: a mapper reads fields of one carrier's type and writes the
//     same-named fields of another's, but not this one; or writes at least
//     two same-named fields of a type that has no field for the key at all
//     (a response built without it) — the gap marks the mapper, so it is a
//     step of the read flow, not only a gap. A TypeScript mapper's object
//     literal names no type, so its keys reach no field: there the view is
//     the type the literal is given — the function's declared result (an
//     arrow's too) when it returns a literal, a variable's annotation
//     (const v: TaskView = {…}), satisfies or as — and a function that
//     reads fields of a carrier's type and sets same-named keys of such a
//     view, which has a field for the key in any spelling, but sets that
//     key nowhere (no literal key, member assignment or quoted key, and no
//     spread or Object.assign) drops it (literals.go);
//   - not-persisted: a field of a type stored in a table is set in memory
//     (not loaded) and no write of the column, nor a whole-object save, can
//     run with the writer on the stack (its callers and what they call);
//     or the writer stores the value itself (it calls what writes the
//     column, or saves an object) but only before the write, or only on
//     other values: within a function order and aliasing count, so a field
//     set after the only save, or on a copy (done := *task, copy.copy)
//     that no save is given, is a gap at the writer, whatever other paths
//     store;
//   - never-written: a column is read and nothing writes it, or a client
//     reads a wire field whose server-side producer is never set;
//   - never-read: a field is written and nothing reads or serializes it.
//
// The mapper of a dropped gap is also listed among the reads
// (Site.Drops): a function that builds the output without the value is
// where the read side loses it, and a reader of the read side must not
// have to look in the gaps to find it. Sites that spell a bare key
// otherwise than the target (fill_value, set_fill_value(…) for
// _FillValue) are variants (Site.Variant): listed after every site that
// spells it as written, and labelled so in the text and the JSON.
//
// Evidence turns a result into the functions a task's context needs, by
// role, each once and with its reason ("read path of Task.ArtifactURL:
// ToResponse drops it → gap"): the dropped and not-persisted gaps' functions
// first (never-read and never-written gaps follow from such a break),
// then one write site (a read on a write-only flow is where the value
// comes in), one persistence write, one read query (a SQL read, a load
// from a row), one mapper (a function only read flows reach that reads
// one carrier and writes another) and one consumer, then the rest in
// that order. The engine gives them to search (fuse.GenValue) and to
// context packs.
//
// A target that names a type or table (zzqq.yy) of which nothing found is
// a carrier is traced as the bare key, and Result.Unresolved says so: that
// the index holds no such type or table, or that the type has no field of
// that spelling; when nothing spells the key either, the ErrNoTarget says
// which of the two is missing.
//
// Sources are read through Options.Files, the repository boundary
// (internal/repofs), and every snippet shown is redacted (internal/redact).
//
// Cost: the files the text index names for the key are read (and their
// ASCII lower-cased copies made) by background goroutines while the symbol
// side queries the index; callers, callees and paths are read once per
// function.
//
// Every site, hop and gap carries a confidence or certainty; when files
// that mention the key could not be analysed (parse failures, files left
// out for size), the gaps say "unknown" rather than claiming "none".
//
// Every location is a Loc, the shape of graph.Citation (a position: start
// and end line equal, the column where it starts), its revision given by
// Options.Cite.
//
// # Files
//
// trace.go runs a trace (Trace) and holds the tracer's state; carriers.go
// finds the carriers (fields, columns, keys) and keeps those linked to
// the target; symbolsites.go lists the sites the index resolves, and
// textsites.go those only the text shows (scan.go's scanners over the
// files the text index names); entry.go finds a site's entry points and
// the call paths from them (entries.go lists a repository's), flow.go
// walks the flows and gaps.go applies the gap rules (literals.go the
// dropped rule for TypeScript's typed object literals).
package trace
