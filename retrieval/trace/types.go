package trace

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn/graph"
)

// TextFinder narrows the files worth reading for a key: those whose text
// holds any of the terms (lower-case identifiers, whole). The text index
// implements it; without one, Trace reads every indexed file.
type TextFinder interface {
	FilesWithTerms(ctx context.Context, terms []string) ([]string, error)
}

// Options tune a trace.
type Options struct {
	Texts TextFinder
	// Depth bounds call paths, up from sites to entry points and down
	// from entry points (default 8).
	Depth int
	// Paths is the number of call paths kept per site (default 3).
	Paths int
	// Files reads the worktree's sources (repository-relative paths);
	// default: the repository boundary (internal/repofs) over Root.
	Files Files
	// Root is the worktree (default: the root the index was built from).
	Root string
	// Cite gives the revision of a cited file; nil cites none.
	Cite graph.CiteFunc
	// Deadline, when set, bounds the trace's longest part: past it the
	// call paths of the remaining sites are not followed and flows are
	// not joined. Carriers, sites and gaps are whole either way, and
	// Result.Partial says what was cut — an answer in time that says so,
	// not a timeout that says nothing.
	Deadline time.Time
}

// Files reads repository files; internal/repofs implements it, refusing paths
// and links out of the repository.
type Files interface {
	ReadFile(rel string) ([]byte, error)
}

// Loc is a place in the repository: a position (StartLine = EndLine, and
// the Column where it starts), cited as every location is (graph.Citation:
// the revision of its file through Options.Cite; stale when the file
// changed after it was indexed).
type Loc graph.Citation

// Func is a function or method (or a file's top-level code when Name is
// the file).
type Func struct {
	Name string         `json:"name"`
	ID   graph.SymbolID `json:"symbol,omitempty"`
	Loc
}

// Carrier is one representation of the traced value: a field or property
// of a type, a database column, a map or JSON key, a config entry.
type Carrier struct {
	Kind string `json:"kind"` // field, column, key, config, variable, accessor
	Name string `json:"name"` // Task.ArtifactURL, tasks.artifact_url
	Lang string `json:"lang,omitempty"`
	Loc
	Symbol graph.SymbolID `json:"symbol,omitempty"`
	// Primary: what the target named (the others carry the same value
	// under another spelling or representation).
	Primary bool `json:"primary,omitempty"`
	// Wire is the JSON key the field is serialized as; Column the
	// database column it maps to (from tags).
	Wire   string `json:"wire,omitempty"`
	Column string `json:"column,omitempty"`
	// Table is the table of a column, or the table a type's values are
	// loaded from and stored to.
	Table string `json:"table,omitempty"`

	container string
	of        []*Carrier // the candidates an unresolved spelling may be
}

// Site is one place that writes or reads the value.
type Site struct {
	Access  string `json:"access"` // write, read
	Carrier string `json:"carrier"`
	How     string `json:"how"` // assignment, struct literal, SQL UPDATE tasks, …
	Loc
	Snippet    string `json:"snippet"`
	Func       *Func  `json:"function,omitempty"`
	Confidence string `json:"confidence"`
	// Load: a write that stores what was read from persistence (a row
	// scanned into a struct); it does not need persisting again.
	Load bool `json:"load,omitempty"`
	// Persist: a write to the database (SQL, ORM).
	Persist bool `json:"persist,omitempty"`
	// Normalized: the site spells the key otherwise than the target
	// (auth_token for _AuthToken) and matched only by its words; such
	// sites are listed after those spelled as the target is.
	Normalized bool `json:"normalized,omitempty"`
	// Variant is how a Normalized site spells the key (fill_value for
	// _FillValue): a spelling variant, labelled as such.
	Variant string `json:"variant,omitempty"`
	// Alike counts the further sites of the same kind in the same file
	// that are not listed (a generated rule file holding the key ten
	// thousand times is one file to read, not ten thousand sites).
	Alike int `json:"alike,omitempty"`
	// Drops: a read-side function that builds the output without the
	// value (the mapper of a dropped gap): the read path loses it here.
	Drops bool       `json:"drops,omitempty"`
	Paths []CallPath `json:"paths,omitempty"`

	carrier *Carrier
	spelled string // the key as the site spells it
}

// Entry is where a call path starts: an HTTP route, main, a CLI command,
// a job, a test, a UI event handler or route loader, or a function nothing
// calls ("root").
type Entry struct {
	Kind  string `json:"kind"` // http, main, cli, job, test, ui, loader, root
	Label string `json:"label"`
	Func  Func   `json:"function"`
	// Registered is where a route or command is bound to the function.
	Registered *Loc `json:"registered,omitempty"`
}

// Hop is one step of a call path.
type Hop struct {
	Func
	// Via says how the previous hop reaches this one: "call" or "http GET
	// /tasks/{id}" (a client request served by this handler).
	Via        string `json:"via"`
	At         *Loc   `json:"at,omitempty"` // the call site
	Confidence string `json:"confidence"`
}

// CallPath leads from an entry point to a site's function.
type CallPath struct {
	Entry Entry `json:"entry"`
	Hops  []Hop `json:"hops"` // entry function first, the site's function last
}

// Step is one function of a flow and what it does with the value.
type Step struct {
	Hop
	Depth int `json:"depth"`
	// Entry is set when the step is an entry point itself (a route the
	// flow reaches through a client request, a loader it calls).
	Entry string   `json:"entry,omitempty"`
	Does  []string `json:"does,omitempty"`
	Gap   string   `json:"gap,omitempty"`
}

// Flow is the path the value takes from one entry point: the functions
// reached, in call order, that touch it or lead to one that does.
type Flow struct {
	Kind     string  `json:"kind"` // write, read
	Entry    Entry   `json:"entry"`
	AlsoFrom []Entry `json:"also_from,omitempty"`
	Steps    []Step  `json:"steps"`
}

// Gap is a break in the value's path.
type Gap struct {
	// Kind: dropped (a mapper copies sibling fields but not this one),
	// not-persisted (written in memory, never stored), never-written (read
	// where nothing writes it), never-read (written, never read).
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Loc
	Func     *Func `json:"function,omitempty"`
	Evidence []Loc `json:"evidence,omitempty"`
	// Certainty is "certain" or "unknown" (some files that mention the
	// key could not be analysed).
	Certainty string `json:"certainty"`

	carrier *Carrier // dropped: the carrier the mapper reads from
	into    string   // dropped: the type it builds without the value
}

// Result is a trace.
type Result struct {
	Target   string    `json:"target"`
	Key      string    `json:"key"`
	Revision string    `json:"revision"`
	Dirty    bool      `json:"dirty"`
	Carriers []Carrier `json:"carriers"`
	Writes   []Site    `json:"writes"`
	Reads    []Site    `json:"reads"`
	Flows    []Flow    `json:"flows"`
	Gaps     []Gap     `json:"gaps"`
	// Unknown lists files that mention the key but could not be
	// analysed, and what was not searched at all.
	Unknown  []string `json:"unknown,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Unresolved says what the target named that the index does not hold
	// and what was traced instead: "no type or table zzqq in the index:
	// traced the key yy wherever it is spelled".
	Unresolved string `json:"unresolved,omitempty"`
	// Partial says what Options.Deadline cut: "call paths followed for
	// 12 of 40 sites; flows not joined".
	Partial string `json:"partial,omitempty"`
}
