package catalog

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/cairn-dev/cairn/engine"
)

// MaxBytes is the budget of one answer: the bytes of JSON a model is shown
// for one tool call (24 KiB, about 6k tokens — well under the 25k tokens at
// which some clients cut tool output, even counting a structured result and
// its text copy). Every tool pages or trims its answer to it by structure,
// and the agent's loop bounds every tool result to it with Fit: one number,
// so no answer is trimmed by its tool to one size and cut by a caller at
// another.
const MaxBytes = 24 << 10

// MaxArguments bounds the JSON of one call's arguments. Issue texts and
// stack traces fit many times over; a 5 MB task would keep a heavy slot
// busy for minutes.
const MaxArguments = 1 << 20

// Options are what a surface sets for every call it makes.
type Options struct {
	// MaxBytes is the budget of one answer; 0 is MaxBytes (the HTTP API,
	// whose reader is a program, gives a larger one).
	MaxBytes int
	// Base, in an agent's workspace, is the task's base commit: there the
	// work is checkpointed as commits, so impact's working means the
	// changes since Base rather than since HEAD.
	Base string
}

func (o Options) maxBytes() int { return cmp.Or(o.MaxBytes, MaxBytes) }

// Info describes a tool to a surface: its stable name, a title, the
// description a model reads (Short, when set, is the lean profile's),
// whether it is heavy (long-running: servers bound how many run at once)
// and the JSON Schemas of its input and output.
type Info struct {
	Name, Title, Description, Short string
	Heavy                           bool
	Input, Output                   *jsonschema.Schema
}

// Describe is the description the profile shows: Short in the lean
// profile (when the tool has one), else Description.
func (i Info) Describe(lean bool) string {
	if lean && i.Short != "" {
		return i.Short
	}
	return i.Description
}

// Tool is one catalogue entry.
type Tool interface {
	Info() Info
	// Call decodes args (a JSON object; unknown members are an
	// invalid_argument), checks them and asks the engine on snap. out is
	// the structured answer (its JSON is the output schema's), text the
	// rendering for a reader of text ("" when it is out's JSON). Errors
	// are the engine's: engine.Classify gives the category.
	Call(ctx context.Context, snap *engine.Snapshot, args json.RawMessage, o Options) (out any, text string, err error)
}

// call is what a tool's body works with: the request's context, the
// snapshot it reads and the surface's options.
type call struct {
	ctx  context.Context
	snap *engine.Snapshot
	opts Options
	tool string
}

// def is a tool: its description and its one engine call over a typed
// input In answering Out.
type def[In, Out any] struct {
	info Info
	run  func(c *call, in In) (Out, string, error)
}

func (d *def[In, Out]) Info() Info { return d.info }

func (d *def[In, Out]) Call(ctx context.Context, snap *engine.Snapshot, args json.RawMessage, o Options) (any, string, error) {
	var in In
	if len(args) > MaxArguments {
		return nil, "", engine.Errorf(engine.InvalidArgument, "the arguments are %d bytes; at most %d are accepted", len(args), MaxArguments)
	}
	if len(bytes.TrimSpace(args)) > 0 && string(bytes.TrimSpace(args)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return nil, "", engine.Errorf(engine.InvalidArgument, "arguments of %s: %v", d.info.Name, err)
		}
	}
	out, text, err := d.run(&call{ctx: ctx, snap: snap, opts: o, tool: d.info.Name}, in)
	if err != nil {
		return nil, "", err
	}
	return out, text, nil
}

// tool makes a catalogue entry; the output schema is Out's unless out is
// given (build_context's is the published pack schema).
func tool[In, Out any](name, title, desc, short string, heavy bool, out *jsonschema.Schema, run func(c *call, in In) (Out, string, error)) Tool {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("input schema of %s: %v", name, err))
	}
	if out == nil {
		if out, err = jsonschema.For[Out](nil); err != nil {
			panic(fmt.Sprintf("output schema of %s: %v", name, err))
		}
	}
	return &def[In, Out]{info: Info{Name: name, Title: title, Description: desc, Short: short, Heavy: heavy, Input: in, Output: out}, run: run}
}

// All lists the catalogue's tools in a stable order (the order surfaces
// list them in).
func All() []Tool { return slices.Clone(all) }

// Lookup finds a tool by name.
func Lookup(name string) (Tool, bool) {
	i := slices.IndexFunc(all, func(t Tool) bool { return t.Info().Name == name })
	if i < 0 {
		return nil, false
	}
	return all[i], true
}

// Descriptions are every tool's descriptions, long and short (the
// one-definition test looks for copies of them elsewhere).
func Descriptions() []string {
	var out []string
	for _, t := range all {
		i := t.Info()
		out = append(out, i.Description)
		if i.Short != "" {
			out = append(out, i.Short)
		}
	}
	return out
}

var all = []Tool{
	searchTool, definitionTool, referencesTool, callersTool, calleesTool, implementationsTool,
	traceTool, impactTool, contextTool, readSpanTool, repoMapTool, entryPointsTool, packageGraphTool, statusTool,
}
