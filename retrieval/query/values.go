package query

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// ValueLink is how sure a value's link to the code is, strongest first: a name
// written as code that a field is named (ArtifactURL); a name written as
// code that no definition has but the text of the code holds (a JSON tag,
// a column, a config key: artifact_url); prose words that joined are a
// field's name ("artifact url"); some of them only ("the link to the build
// output" for OutputURL).
type ValueLink int

const (
	ValueUnlinked ValueLink = iota
	ValuePartial
	ValueProse
	ValueTag
	ValueExact
)

func (l ValueLink) String() string {
	switch l {
	case ValueExact:
		return "exact identifier"
	case ValueTag:
		return "tag, column or key"
	case ValueProse:
		return "prose words joined"
	case ValuePartial:
		return "partial"
	}
	return "none"
}

// Mention is a value the text may talk about, before the index is asked:
// a code-shaped name (artifactUrl, artifact_url, Task.ArtifactURL) or a
// run of prose words ("artifact url", and "output link" read from "the
// link to the build output").
type Mention struct {
	// Name is the name as written, or the prose words joined by spaces.
	Name string
	// Prose: the words were prose, not code; Partial: a part of a run of
	// prose words (a modifier left out) or a synonym of its last word.
	Prose, Partial bool
}

// Value is a mention linked to the code through the index.
type Value struct {
	// Target is what to trace: a field qualified by its type
	// (Task.ArtifactURL) when one type holds it, else the key as spelled
	// in the code (artifact_url).
	Target string
	// Mention is the text's words that linked.
	Mention string
	Link    ValueLink
	// Fields counts the definitions the key named (a key many types hold
	// is weaker evidence of which one the text means).
	Fields int
}

// proseStop are the words a run of prose words breaks at: they name no
// value ("the", "is", "after"). Symptom words break runs too ("missing",
// "gone", "empty"): "missing artifact url" is about "artifact url".
var proseStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the this that these those it its is are was were be been being am
		do does did done has have had having to of for in on at by from with without into onto about as
		and or but not no nor so if then than when while after before since until during again still ever
		never always sometimes only just also too very more most less least all any some each every
		i we you he she they me us him her them my our your their mine ours yours
		can could should would will shall may might must get gets got getting set sets
		fix fixes fixed fixing bug bugs issue problem error errors wrong broken break breaks
		missing missed gone lost loses lose losing empty blank null nil none undefined disappear disappears
		disappeared disappearing dropped drops drop dropping reset resets stale vanish vanishes vanished
		show shows shown showing display displays displayed appear appears appeared
		refresh refreshes refreshed refreshing reload reloads reloaded reloading restart restarts
		restarted restarting page view screen ui app user users work works working happen happens
		instead anymore any more longer saved save saves saving stored store`) {
		proseStop[w] = true
	}
}

// symptomRE: words saying that a value is lost or wrong.
var symptomRE = regexp.MustCompile(`(?i)\b(?:missing|lost|loses?|losing|gone|empty|blank|null|nil|undefined|disappear(?:s|ed|ing)?|vanish(?:es|ed|ing)?|dropp?(?:ed|s|ing)|resets?|stale|not (?:saved|stored|persisted|shown|returned|set|kept|updated)|never (?:saved|stored|persisted|shown|returned|set)|after (?:a |the )?(?:refresh|reload|restart)(?:ing)?)\b`)

// Symptom reports whether the text says a value is lost or wrong
// ("missing", "gone after reload", "is not saved", "null"): a task about
// where a value goes, whose context follows its write and read paths.
func (p Parsed) Symptom() bool {
	t := p.Body
	if len(t) > 2000 {
		t = t[:2000]
	}
	return symptomRE.MatchString(t)
}

// synonyms of the last word of a value's name: the words code and prose
// use for the same thing ("link" in a report, "URL" in the field).
var synonyms = map[string][]string{
	"link": {"url", "href"}, "url": {"link", "href"}, "href": {"url", "link"}, "address": {"url"},
	"identifier": {"id"}, "id": {"identifier"},
}

var proseWordRE = regexp.MustCompile(`[A-Za-z_$][\w$]*|[.,;:!?()]`)

// maxMentions bounds the mentions Mentions returns (each costs a few
// index look-ups to link).
const maxMentions = 24

// Mentions lists the values the parsed text may name: its code-shaped
// identifiers first (as written), then runs of prose words of the title
// and the first lines, joined in the order written and, for "the X of
// (to, for) the Y", as "Y X"; then their parts and synonyms of their last
// word (Partial).
func (p Parsed) Mentions() []Mention {
	var out []Mention
	seen := map[string]bool{}
	add := func(m Mention) {
		k := strings.ToLower(m.Name)
		if len(out) < maxMentions && !seen[k] {
			seen[k] = true
			out = append(out, m)
		}
	}
	for i, id := range p.Identifiers {
		if i >= 8 {
			break
		}
		if looksLikeCode(id.Name) && !strings.Contains(id.Name, "(") {
			add(Mention{Name: id.Name})
		}
	}
	text := urlRE.ReplaceAllString(fenceRE.ReplaceAllString(p.Body, " "), " ")
	if len(text) > 600 {
		text = text[:600]
	}
	// runs of prose words, and for each the stop word that joins it to
	// the run before ("of", "to", "for": "the link to the build output")
	type proseRun struct {
		words []string
		join  string
		prev  int // the run before, -1 if something else came between
	}
	var runs []proseRun
	cur, join, prev := -1, "", -1
	for _, w := range proseWordRE.FindAllString(text, -1) {
		lw := strings.ToLower(w)
		switch {
		case looksLikeCode(w) || !isLetters(lw):
			cur, join, prev = -1, "", -1
		case proseStop[lw]:
			if cur >= 0 {
				prev, join = cur, ""
			}
			cur = -1
			if lw != "the" && lw != "a" && lw != "an" {
				if join == "" {
					join = lw
				} else {
					prev = -1 // two words between: no join
				}
			}
		default:
			if cur < 0 {
				runs = append(runs, proseRun{join: join, prev: prev})
				cur, join, prev = len(runs)-1, "", -1
			}
			runs[cur].words = append(runs[cur].words, lw)
		}
	}
	var joins [][2][]string
	for _, r := range runs {
		if r.prev >= 0 && (r.join == "of" || r.join == "to" || r.join == "for") {
			joins = append(joins, [2][]string{runs[r.prev].words, r.words})
		}
	}
	// "the link to the build output": "build output link"
	for _, j := range joins {
		if len(j[0]) == 0 || len(j[1]) == 0 {
			continue
		}
		head := j[0][len(j[0])-1]
		mod := j[1]
		if len(mod) > 2 {
			mod = mod[len(mod)-2:]
		}
		add(Mention{Name: strings.Join(append(slices.Clone(mod), head), " "), Prose: true})
	}
	for _, pr := range runs {
		r := pr.words
		if len(r) < 2 {
			continue
		}
		if len(r) > 3 {
			r = r[len(r)-3:]
		}
		add(Mention{Name: strings.Join(r, " "), Prose: true})
	}
	// parts and synonyms: the last two words of a longer run, the last
	// word's synonyms
	whole := slices.Clone(out)
	for _, m := range whole {
		if !m.Prose {
			continue
		}
		ws := strings.Fields(m.Name)
		if len(ws) > 2 {
			add(Mention{Name: strings.Join(ws[len(ws)-2:], " "), Prose: true, Partial: true})
		}
		last := ws[len(ws)-1]
		for _, syn := range synonyms[last] {
			ws2 := append(slices.Clone(ws[:len(ws)-1]), syn)
			add(Mention{Name: strings.Join(ws2, " "), Prose: true, Partial: true})
			if len(ws2) > 2 {
				add(Mention{Name: strings.Join(ws2[len(ws2)-2:], " "), Prose: true, Partial: true})
			}
		}
	}
	return out
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return len(s) >= 2
}

// Index is what linking asks of the index: definitions by name (ignoring
// case), and the files whose text holds a whole identifier (a tag, a
// column, a key is no definition); Terms may be nil.
type Index struct {
	Symbols interface {
		SymbolsByName(ctx context.Context, name string) ([]graph.Symbol, error)
	}
	Terms interface {
		FilesWithTerms(ctx context.Context, terms []string) ([]string, error)
	}
	// Files lists a file's definitions (the fields of a type); may be nil.
	Files interface {
		SymbolsInFile(ctx context.Context, path string) ([]graph.Symbol, error)
	}
}

// soleType: the fields all belong to one type.
func soleType(fields []graph.Symbol) bool {
	for _, f := range fields {
		if f.Container != fields[0].Container {
			return false
		}
	}
	return true
}

// fieldsOf counts the fields of f's type (its siblings in its file).
func (ix Index) fieldsOf(ctx context.Context, f graph.Symbol) (int, error) {
	if ix.Files == nil {
		return 0, nil
	}
	ss, err := ix.Files.SymbolsInFile(ctx, f.Path)
	n := 0
	for _, s := range ss {
		if s.Container == f.Container && fieldLike(s) {
			n++
		}
	}
	return n, err
}

// maxFieldsPerKey: a key more definitions hold than this is no value a
// text can single out ("id", "name").
const maxFieldsPerKey = 12

// LinkValues links mentions to the fields, tags, columns and keys of the
// index, strongest link first (by ValueLink, then fewer fields, then the order
// written); each target once. Code-shaped names count when a field is
// named so (ValueExact) or the code's text holds them whole (ValueTag);
// prose when its words joined (camel, snake: any case) name a field.
func LinkValues(ctx context.Context, ix Index, p Parsed) ([]Value, error) {
	ms := p.Mentions()
	words := map[string]bool{}
	for _, w := range tokens.NameWords(p.Body) {
		words[w] = true
	}
	var out []Value
	seen := map[string]bool{}
	for _, m := range ms {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		var names []string
		if m.Prose {
			ws := strings.Fields(m.Name)
			names = []string{strings.Join(ws, ""), strings.Join(ws, "_")}
		} else {
			names = []string{m.Name}
		}
		var fields []graph.Symbol
		for _, n := range names {
			_, base := graph.SplitQualified(n)
			ss, err := ix.Symbols.SymbolsByName(ctx, base)
			if err != nil {
				return out, err
			}
			for _, s := range ss {
				if fieldLike(s) && !s.IsTest {
					fields = append(fields, s)
				}
			}
		}
		if !m.Prose {
			// a name written as code means the fields spelled so
			_, base := graph.SplitQualified(m.Name)
			if same := slices.DeleteFunc(slices.Clone(fields), func(s graph.Symbol) bool { return s.Name != base }); len(same) > 0 {
				fields = same
			}
		}
		v := Value{Mention: m.Name, Fields: len(fields)}
		switch {
		case len(fields) > maxFieldsPerKey:
			continue
		case len(fields) > 0:
			v.Link, v.Target = ValueProse, fields[0].Name
			if !m.Prose {
				v.Link, v.Target = ValueExact, m.Name
			} else if m.Partial {
				v.Link = ValuePartial
			}
			// a name written as code that several types hold is traced
			// as written (the trace finds every type's field); prose is
			// qualified by the type it most likely means
			if !strings.Contains(v.Target, ".") && (m.Prose || soleType(fields)) {
				if c := container(fields, words, func(f graph.Symbol) (int, error) { return ix.fieldsOf(ctx, f) }); c != "" {
					v.Target = c + "." + v.Target
				}
			}
		case !m.Prose && ix.Terms != nil && !strings.Contains(m.Name, "."):
			files, err := ix.Terms.FilesWithTerms(ctx, []string{tokens.Lower(m.Name)})
			if err != nil {
				return out, err
			}
			if len(files) == 0 {
				continue
			}
			v.Link, v.Target = ValueTag, m.Name
		default:
			continue
		}
		if k := strings.ToLower(v.Target); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b Value) int {
		return cmp.Or(cmp.Compare(b.Link, a.Link), cmp.Compare(a.Fields, b.Fields))
	})
	return out, nil
}

// fieldLike: a definition that holds a value (a field, a property, a
// member or module-level variable).
func fieldLike(s graph.Symbol) bool {
	switch s.Kind {
	case graph.KindField, graph.KindProperty:
		return true
	case graph.KindVariable, graph.KindConstant:
		return s.Container != ""
	}
	return false
}

// container is the type to qualify a key by: the one type all fields
// belong to, else the one the text names ("the task's artifact url"),
// else the one with the most fields (then in path order) — a trace follows the
// key into the other types' fields as representations of the value;
// "" for fields outside types.
func container(fields []graph.Symbol, words map[string]bool, countFields func(graph.Symbol) (int, error)) string {
	base := func(c string) string { return c[strings.LastIndexByte(c, '.')+1:] }
	var cs []graph.Symbol
	for _, f := range fields {
		if f.Container == "" {
			return ""
		}
		cs = append(cs, f)
	}
	slices.SortStableFunc(cs, func(a, b graph.Symbol) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), int(a.Range.StartLine)-int(b.Range.StartLine))
	})
	for _, f := range cs {
		named := true
		for _, w := range tokens.NameWords(base(f.Container)) {
			named = named && words[w]
		}
		if named {
			return base(f.Container)
		}
	}
	// the type with the most fields: the model, not a request's
	// one-field envelope
	best, most := "", -1
	for _, f := range cs {
		n, err := countFields(f)
		if err == nil && n > most {
			best, most = base(f.Container), n
		}
	}
	return best
}
