package engine

import (
	"cmp"
	"context"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/indexer"
	"github.com/cairn-dev/cairn/indexer/resolve"
)

// Bounds of PackageGraph.
const (
	DefaultPackageLimit = 40
	MaxPackageLimit     = 1000
	MaxPackageDepth     = 32
)

// PackageGraphOptions ask how the project's own packages depend on each
// other.
type PackageGraphOptions struct {
	// Under keeps the directories under this one; one the index holds no
	// file under is not_found.
	Under string
	// Depth collapses every directory to its first Depth path elements
	// below Under (1 to MaxPackageDepth); 0 chooses the deepest at which
	// the graph has at most Limit nodes.
	Depth int
	// Limit is the most nodes, 1 to MaxPackageLimit (default
	// DefaultPackageLimit); past it the nodes with the fewest files are
	// left out, counted in Omitted.
	Limit int
}

// PackageNode is a directory of the project's own code (tests, vendored
// code and docs left out), or, collapsed, every such directory under it.
type PackageNode struct {
	Path      string   `json:"path" jsonschema:"the directory, repository-relative (. is the root)"`
	Files     int      `json:"files"`
	Lines     int      `json:"lines" jsonschema:"lines of its files"`
	Languages []string `json:"languages"`
	// Packages are the packages or modules its files declare, as the
	// language names them (at most 5).
	Packages []string `json:"packages,omitempty"`
	// Collapsed counts the directories folded into this node (collapsed
	// by Depth), itself included; 0 is a directory on its own.
	Collapsed int `json:"collapsed,omitempty"`
}

// PackageEdge says From's files import To's.
type PackageEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Imports counts the import statements behind it.
	Imports int `json:"imports"`
}

// PackageGraphResult is the package dependency graph of the project's own
// code: nodes in path order, edges by From then To.
type PackageGraphResult struct {
	Packages []PackageNode `json:"packages"`
	Imports  []PackageEdge `json:"imports"`
	// Depth is the depth nodes were collapsed to (0: not collapsed).
	Depth int `json:"depth"`
	// Directories counts the code directories before collapsing;
	// Omitted the nodes left out past Limit, OmittedImports their edges.
	Directories    int `json:"directories"`
	Omitted        int `json:"omitted,omitempty"`
	OmittedImports int `json:"omitted_imports,omitempty"`
	// External counts the import statements of something outside the
	// index (libraries, the standard library), which the graph leaves out.
	External int `json:"external_imports"`
}

// dirFacts is what the package graph knows of one directory.
type dirFacts struct {
	files, lines int
	langs, pkgs  map[string]bool
}

// packageFacts is the uncollapsed graph, computed once per generation.
type packageFacts struct {
	dirs     map[string]*dirFacts
	edges    map[[2]string]int
	external int
}

// PackageGraph draws the project's own package dependency graph: a node
// per directory of code files, an edge where a file of one imports a
// file of another, mapped by the resolver's own rules
// (resolve.Index.ImportedDirs). Imports of anything outside the index are
// counted, not drawn.
func (s *Snapshot) PackageGraph(ctx context.Context, o PackageGraphOptions) (*PackageGraphResult, error) {
	limit, err := bounded("limit", o.Limit, DefaultPackageLimit, 1, MaxPackageLimit)
	if err != nil {
		return nil, err
	}
	if o.Depth < 0 || o.Depth > MaxPackageDepth {
		return nil, Errorf(InvalidArgument, "depth must be between 0 (automatic) and %d (got %d)", MaxPackageDepth, o.Depth)
	}
	under, err := cleanUnder(o.Under)
	if err != nil {
		return nil, err
	}
	v, err := s.Memo("packages", func() (any, error) { return s.packageFacts(ctx) })
	if err != nil {
		return nil, Classify(err)
	}
	pf := v.(*packageFacts)
	var dirs []string
	for d := range pf.dirs {
		if inUnder(d, under) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 && under != "" {
		if err := s.indexedUnder(ctx, under); err != nil {
			return nil, err
		}
	}
	slices.Sort(dirs)
	res := &PackageGraphResult{Packages: []PackageNode{}, Imports: []PackageEdge{}, Directories: len(dirs), External: pf.external}
	depth := o.Depth
	if depth == 0 {
		// the deepest collapse with at most limit nodes (the shallowest
		// when none fits)
		depth = 1
		for d := MaxPackageDepth; d >= 1; d-- {
			if len(collapseDirs(dirs, under, d)) <= limit {
				depth = d
				break
			}
		}
		if len(collapseDirs(dirs, under, MaxPackageDepth)) <= limit {
			depth = 0
		}
	}
	key := func(d string) string { return d }
	if depth > 0 {
		key = func(d string) string { return collapseDir(d, under, depth) }
	}
	res.Depth = depth
	nodes := map[string]*PackageNode{}
	langs, pkgs := map[string]map[string]bool{}, map[string]map[string]bool{}
	for _, d := range dirs {
		k := key(d)
		n := nodes[k]
		if n == nil {
			n = &PackageNode{Path: k}
			nodes[k] = n
			langs[k], pkgs[k] = map[string]bool{}, map[string]bool{}
		}
		f := pf.dirs[d]
		n.Files += f.files
		n.Lines += f.lines
		n.Collapsed++
		for l := range f.langs {
			langs[k][l] = true
		}
		for p := range f.pkgs {
			pkgs[k][p] = true
		}
	}
	var keys []string
	for k, n := range nodes {
		keys = append(keys, k)
		n.Languages = sortedSet(langs[k], 0)
		n.Packages = sortedSet(pkgs[k], 5)
		if n.Collapsed == 1 && n.Path == firstDir(dirs, k) {
			n.Collapsed = 0
		}
	}
	// the nodes with the most files are kept
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(nodes[b].Files-nodes[a].Files, strings.Compare(a, b)) })
	if len(keys) > limit {
		res.Omitted = len(keys) - limit
		keys = keys[:limit]
	}
	kept := map[string]bool{}
	for _, k := range keys {
		kept[k] = true
	}
	slices.Sort(keys)
	for _, k := range keys {
		res.Packages = append(res.Packages, *nodes[k])
	}
	edges := map[[2]string]int{}
	for e, n := range pf.edges {
		if !inUnder(e[0], under) || !inUnder(e[1], under) {
			continue
		}
		a, b := key(e[0]), key(e[1])
		if a == b {
			continue
		}
		if !kept[a] || !kept[b] {
			res.OmittedImports += n
			continue
		}
		edges[[2]string{a, b}] += n
	}
	for e, n := range edges {
		res.Imports = append(res.Imports, PackageEdge{From: e[0], To: e[1], Imports: n})
	}
	slices.SortFunc(res.Imports, func(a, b PackageEdge) int {
		return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
	})
	return res, nil
}

// firstDir is k when k is itself one of dirs (sorted), else "".
func firstDir(dirs []string, k string) string {
	if _, ok := slices.BinarySearch(dirs, k); ok {
		return k
	}
	return ""
}

// collapseDir keeps the first depth path elements of d below under.
func collapseDir(d, under string, depth int) string {
	rest := d
	prefix := ""
	if under != "" {
		rest = strings.TrimPrefix(strings.TrimPrefix(d, under), "/")
		prefix = under
	}
	if rest == "" || rest == "." {
		return cmp.Or(prefix, ".")
	}
	parts := strings.Split(rest, "/")
	if len(parts) > depth {
		parts = parts[:depth]
	}
	if prefix != "" {
		return prefix + "/" + strings.Join(parts, "/")
	}
	return strings.Join(parts, "/")
}

func collapseDirs(dirs []string, under string, depth int) map[string]bool {
	out := map[string]bool{}
	for _, d := range dirs {
		out[collapseDir(d, under, depth)] = true
	}
	return out
}

func sortedSet(m map[string]bool, most int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	if most > 0 && len(out) > most {
		out = out[:most]
	}
	return out
}

// packageFacts reads every code file's imports once and maps them to
// directories.
func (s *Snapshot) packageFacts(ctx context.Context) (*packageFacts, error) {
	files, err := s.R.Files(ctx)
	if err != nil {
		return nil, err
	}
	var code []graph.File
	goDirs := map[string]bool{}
	for _, f := range files {
		if f.Category != 0 || !f.Status.Analysed() {
			continue
		}
		code = append(code, f)
		if f.Lang == graph.LangGo {
			goDirs[path.Dir(f.Path)] = true
		}
	}
	// the go.mod files that may claim a Go directory: its own and its
	// ancestors'
	var mods []string
	seen := map[string]bool{}
	for d := range goDirs {
		for {
			if !seen[d] {
				seen[d] = true
				mods = append(mods, path.Join(d, "go.mod"))
			}
			if d == "." || d == "/" || d == "" {
				break
			}
			d = path.Dir(d)
		}
	}
	x := resolve.NewIndex(ctx, s.R, files)
	x.SetGoModules(indexer.GoModules(s.Root, mods))
	imports := make([][]graph.Import, len(code))
	errs := make([]error, len(code))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(4, max(1, runtime.GOMAXPROCS(0))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				imports[i], errs[i] = graph.FileImports(ctx, s.R, code[i].Path)
			}
		}()
	}
	for i := range code {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pf := &packageFacts{dirs: map[string]*dirFacts{}, edges: map[[2]string]int{}}
	for i, f := range code {
		if errs[i] != nil {
			return nil, errs[i]
		}
		d := path.Dir(f.Path)
		df := pf.dirs[d]
		if df == nil {
			df = &dirFacts{langs: map[string]bool{}, pkgs: map[string]bool{}}
			pf.dirs[d] = df
		}
		df.files++
		df.lines += f.Lines
		df.langs[f.Lang.String()] = true
		if f.Package != "" {
			df.pkgs[f.Package] = true
		}
	}
	for i, f := range code {
		from := path.Dir(f.Path)
		for _, im := range imports[i] {
			tos := x.ImportedDirs(&code[i], im)
			internal := false
			for _, to := range tos {
				if _, ok := pf.dirs[to]; ok {
					internal = true
					if to != from {
						pf.edges[[2]string{from, to}]++
					}
				}
			}
			if !internal && len(tos) == 0 {
				pf.external++
			}
		}
	}
	return pf, nil
}
