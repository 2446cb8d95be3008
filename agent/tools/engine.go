package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/catalog"
	"github.com/cairn-dev/cairn/gate/policy"
)

// The engine tools are the catalogue's (engine/catalog): the same names,
// descriptions, input schemas, bounds, paging and answers as the MCP
// tools and the HTTP API, each on a fresh snapshot of the workspace's own
// index. An answer is trimmed by the catalogue to catalog.MaxBytes, the
// model's result cap, so the loop's own bound (catalog.Fit) never has to
// cut it. Base is the workspace's base: impact's working means the changes
// since it (the work is checkpointed as commits).

// engineTools are the catalogue tools the agent has: finding, following
// and reading code (its own read, list and the edit tools work on the
// workspace's files).
var engineTools = []string{"search", "definition", "references", "callers", "callees", "trace", "impact", "build_context"}

// EngineTools are the agent's engine tools over eng; base, when set, is
// the workspace's base commit (impact's working is the changes since it).
// New includes them; other surfaces (the cross-surface test) ask them
// alone.
func EngineTools(eng *engine.Engine, base string) []Tool {
	var out []Tool
	for _, name := range engineTools {
		ct, ok := catalog.Lookup(name)
		if !ok {
			panic("no catalogue tool " + name)
		}
		out = append(out, fromCatalog(eng, ct, catalog.Options{Base: base}))
	}
	return out
}

// fromCatalog wraps one catalogue tool: its input schema is the
// catalogue's, decoded as strictly as every tool's input (fieldsOf), and
// its answer the structured output's JSON.
func fromCatalog(eng *engine.Engine, ct catalog.Tool, opts catalog.Options) Tool {
	info := ct.Info()
	tl := newTool(info.Name, info.Description, fieldsOf(info), nil, func(ctx context.Context, args json.RawMessage) (policy.Result, error) {
		snap, err := eng.Acquire(ctx)
		if err != nil {
			return policy.Result{}, fmt.Errorf("engine snapshot: %w", err)
		}
		defer snap.Release()
		out, _, err := ct.Call(ctx, snap, args, opts)
		if err != nil {
			return engineError(ctx, err)
		}
		return answer(out)
	})
	schema, err := json.Marshal(info.Input)
	if err != nil {
		panic(err)
	}
	tl.schema = schema
	return tl
}

// fieldsOf lists the arguments of a catalogue tool, in the schema's
// order, from its input schema.
func fieldsOf(info catalog.Info) []field {
	var out []field
	for _, name := range info.Input.PropertyOrder {
		p := info.Input.Properties[name]
		typ := p.Type
		for _, x := range p.Types { // ["null", "array"] for a slice
			if typ == "" && x != "null" {
				typ = x
			}
		}
		out = append(out, field{name: name, schema: map[string]any{"type": typ, "description": p.Description},
			required: slices.Contains(info.Input.Required, name)})
	}
	return out
}

// engineError maps an engine error: a category the model can act on is
// an error result naming it (and the candidates of an ambiguous name);
// anything else is a Go error.
func engineError(ctx context.Context, err error) (policy.Result, error) {
	if ctx.Err() != nil {
		return policy.Result{}, err
	}
	var e *engine.Error
	if !errors.As(err, &e) {
		e = engine.Classify(err)
	}
	switch e.Category {
	case engine.NotFound, engine.Ambiguous, engine.InvalidArgument, engine.OutsideRepository, engine.StaleIndex:
	default:
		return policy.Result{}, err
	}
	var b strings.Builder
	b.WriteString(e.Error())
	if len(e.Candidates) > 0 {
		b.WriteString("\nPass one of these symbol_ids as the symbol:")
	}
	for i, c := range e.Candidates {
		if i == 20 {
			fmt.Fprintf(&b, "\n… and %d more", len(e.Candidates)-i)
			break
		}
		fmt.Fprintf(&b, "\n- %s (%s) %s:%d-%d symbol_id=%q", c.QualifiedName, c.Kind, c.Path, c.StartLine, c.EndLine, c.SymbolID)
	}
	return policy.TextResult(b.String(), true), nil
}
