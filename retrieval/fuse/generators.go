package fuse

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/graph"
	"github.com/cairn-dev/cairn/retrieval/bm25"
	"github.com/cairn-dev/cairn/retrieval/internal/ties"
	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// text: BM25 over chunks, and over whole files; and the same for the
// query's title alone.
func (s *search) text() error {
	if s.e.Text == nil {
		return nil
	}
	title := s.on[GenTitle] && s.q.Title != ""
	if !(s.on[GenText] || s.on[GenFile] || title) {
		return nil
	}
	var boosted []string
	for i, id := range s.q.Identifiers {
		if i >= 12 {
			break
		}
		_, base := graph.SplitQualified(id.Name)
		boosted = append(boosted, tokens.Lower(base))
	}
	text := s.q.Body
	if len(text) > 6000 {
		text = text[:6000]
	}
	// How deep the text rankings go: an identifier search's first
	// definitions and uses are in its first hundred chunks (its answer
	// is the definitions, then the text that holds the name), and
	// resolving every hit to a live chunk was a fifth of its time.
	chunkK, fileK := 300, 100
	const titleChunkK, titleFileK = 100, 50
	if s.q.Identifier != "" {
		chunkK, fileK = 100, 50
	}
	// The whole-file searches and the title's run beside the chunk search
	// of the whole text, the longest. The title: an issue's shortest
	// statement of the problem, searched alone so that its words are not
	// outweighed by a long body's.
	type side struct {
		files, titleFiles, titleChunks []bm25.Hit
		err                            error
	}
	sideHits := make(chan side, 1)
	go func() {
		var r side
		if s.on[GenFile] {
			r.files, r.err = s.e.Text.SearchFiles(s.ctx, bm25.Query{Text: text, Name: s.q.Identifier, Ties: true}, fileK)
		}
		if title && r.err == nil {
			r.titleChunks, r.err = s.e.Text.Search(s.ctx, bm25.Query{Text: s.q.Title, Ties: true}, titleChunkK)
		}
		if title && r.err == nil {
			r.titleFiles, r.err = s.e.Text.SearchFiles(s.ctx, bm25.Query{Text: s.q.Title, Ties: true}, titleFileK)
		}
		sideHits <- r
	}()
	if s.on[GenText] {
		hits, err := s.e.Text.Search(s.ctx, bm25.Query{Text: text, Boosted: boosted, Name: s.q.Identifier, Ties: true}, chunkK)
		if err != nil {
			return err
		}
		s.holds = wholeHits(hits)
		if err := s.addChunks(GenText, hits, chunkK, "BM25"); err != nil {
			return err
		}
	}
	r := <-sideHits
	if r.err != nil {
		return r.err
	}
	if err := s.addChunks(GenTitle, r.titleChunks, titleChunkK, "title BM25"); err != nil {
		return err
	}
	whole := wholeHits(r.files)
	if err := s.addFiles(GenFile, r.files, fileK, "file BM25"); err != nil {
		return err
	}
	if whole != nil {
		s.holdsFiles = map[string]bool{}
		for p, first := range s.firstOf { // a file hit is filed under its first chunk
			if whole[first.ID] {
				s.holdsFiles[p] = true
			}
		}
	}
	return s.addFiles(GenTitle, r.titleFiles, titleFileK, "file BM25 of the title")
}

// wholeHits returns the hits of a Name query that hold the name whole
// (bm25.WholeName), nil when none does, and gives them back their BM25
// score: the name's uses rank after its definitions by holding it (the
// sort in result), while the generator's ranking stays BM25's, so that
// the definitions keep their order among themselves.
func wholeHits(hits []bm25.Hit) map[int64]bool {
	var out map[int64]bool
	for i, h := range hits {
		if h.Score >= bm25.WholeName {
			if out == nil {
				out = map[int64]bool{}
			}
			out[h.ChunkID] = true
			hits[i].Score -= bm25.WholeName
		}
	}
	return out
}

// live resolves hits (BM25's, or embeddings' as scored chunk ids) to the
// live chunks they stand for, best first.
func (s *search) live(hits []bm25.Hit) ([]scoredRef, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	refs, err := s.e.R.ChunksByID(s.ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]graph.ChunkRef, len(refs))
	for _, r := range refs {
		byID[r.ID] = r
	}
	var live []scoredRef
	for _, h := range hits {
		if ref, ok := byID[h.ChunkID]; ok { // else a document of a replaced chunk
			live = append(live, scoredRef{ref, h.Score})
		}
	}
	return byScoreThenPlace(live), nil
}

// addChunks adds the first k chunk hits as gen's ranking. The hits may
// hold more than k (bm25.Query.Ties): those tied with the k-th are cut
// by path and position, as every store orders them.
func (s *search) addChunks(gen string, hits []bm25.Hit, k int, why string) error {
	live, err := s.live(hits)
	live = live[:min(k, len(live))]
	for i, h := range live {
		s.add(gen, h.ref, i+1, fmt.Sprintf("%s #%d", why, i+1))
	}
	return err
}

// addFiles adds whole-file hits (each filed under the id of the file's
// first chunk) as gen's file ranking, the first k as addChunks cuts them.
func (s *search) addFiles(gen string, hits []bm25.Hit, k int, why string) error {
	live, err := s.live(hits)
	live = live[:min(k, len(live))]
	for i, h := range live {
		s.firstOf[h.ref.Path] = h.ref
		s.addFile(gen, h.ref.Path, i+1, fmt.Sprintf("%s #%d", why, i+1))
	}
	return err
}

// scoredRef is a generator's hit.
type scoredRef struct {
	ref   graph.ChunkRef
	score float64
}

// byScoreThenPlace orders hits by score, breaking ties by path and
// position rather than by chunk id: ids depend on the order a store wrote
// chunks in, so id order would make rankings differ between runs and
// between stores.
func byScoreThenPlace(hs []scoredRef) []scoredRef {
	slices.SortStableFunc(hs, func(a, b scoredRef) int {
		return cmp.Or(ties.Compare(b.score, a.score), comparePlace(a.ref, b.ref))
	})
	return hs
}

func comparePlace(a, b graph.ChunkRef) int {
	return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Range.StartByte, b.Range.StartByte), cmp.Compare(a.Kind, b.Kind))
}

// vector: embedding similarity.
func (s *search) vector() error {
	if s.e.Vectors == nil || !s.on[GenVector] {
		return nil
	}
	v := <-s.vec
	if v.err != nil {
		return v.err
	}
	var similar []bm25.Hit
	for _, h := range v.hits {
		if h.Score < 0.1 {
			break // not similar at all (the hits come best first)
		}
		similar = append(similar, bm25.Hit{ChunkID: h.ChunkID, Score: float64(h.Score)})
	}
	live, err := s.live(similar)
	if err != nil {
		return err
	}
	for i, h := range live {
		s.add(GenVector, h.ref, i+1, fmt.Sprintf("embedding #%d (cos %.2f)", i+1, h.score))
	}
	return nil
}

// symbols: definitions of identifiers the query names.
func (s *search) symbols() error {
	if !s.on[GenSymbol] {
		return nil
	}
	type found struct {
		ref  graph.ChunkRef
		name string
		w    float64
	}
	var all []found
	seen := map[int64]bool{}
	for i, id := range s.q.Identifiers {
		if i >= 30 {
			break
		}
		defs, err := s.definitions(id.Name)
		if err != nil {
			return err
		}
		if len(defs) == 0 && id.Name == s.q.Identifier {
			s.undefined = true
		}
		if len(defs) == 0 || len(defs) > 12 {
			continue // unknown, or too common a name to mean one place
		}
		if id.Name == s.q.Identifier && s.pinned == nil {
			s.pinned, s.pinnedFiles = map[int64]bool{}, map[string]bool{}
			for _, d := range defs {
				if ref, ok := s.chunkOf(&d); ok {
					s.pinned[ref.ID], s.pinnedFiles[ref.Path] = true, true
				}
			}
		}
		w := id.Weight / float64(len(defs))
		if _, base := graph.SplitQualified(id.Name); defs[0].Name != base && !id.Spelled {
			// only a spelling in another case: "POST" in an issue is an
			// HTTP method more often than the function post
			w *= foldedCase
		}
		for _, d := range defs {
			if d.IsTest {
				w *= 0.5
			}
			if ref, ok := s.chunkOf(&d); ok && !seen[ref.ID] {
				seen[ref.ID] = true
				all = append(all, found{ref, id.Name, w})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b found) int { return cmp.Compare(b.w, a.w) })
	for i, f := range all {
		s.add(GenSymbol, f.ref, i+1, "defines "+f.name+", named in the query")
	}
	return nil
}

// definitions finds a name's definitions once per search.
func (s *search) definitions(name string) ([]graph.Symbol, error) {
	if d, ok := s.defs[name]; ok {
		return d, nil
	}
	d, err := graph.FindDefinitions(s.ctx, s.e.R, name)
	if err != nil {
		return nil, err
	}
	if s.defs == nil {
		s.defs = map[string][]graph.Symbol{}
	}
	s.defs[name] = d
	return d, nil
}

// matchFile resolves a path as written (absolute, relative, or a bare file
// name) to indexed files, by the longest common suffix of path elements.
func (s *search) matchFile(p string) []string {
	p = strings.ReplaceAll(p, `\`, "/")
	parts := strings.Split(strings.Trim(p, "/"), "/")
	best, bestN := []string(nil), 0
	for f := range s.e.pathSet() {
		n := 0
		for rest := f; n < len(parts); n++ {
			i := strings.LastIndexByte(rest, '/')
			if rest[i+1:] != parts[len(parts)-1-n] {
				break
			}
			if i < 0 {
				n++
				break
			}
			rest = rest[:i]
		}
		if n == 0 {
			continue
		}
		switch {
		case n > bestN:
			best, bestN = []string{f}, n
		case n == bestN:
			best = append(best, f)
		}
	}
	if len(best) > 5 {
		return nil // a name too common to pick
	}
	slices.Sort(best) // in path order, whatever the map's
	return best
}

// paths: files the query names, and frames of its stack traces.
func (s *search) paths() error {
	if !s.on[GenPath] {
		return nil
	}
	rank, frank := 0, 0
	// A callable a signature error names: the traceback ends in its
	// caller, the definition is what does not accept the call.
	for _, name := range s.q.Callees {
		defs, err := s.definitions(name)
		if err != nil {
			return err
		}
		if len(defs) == 0 || len(defs) > 3 {
			continue
		}
		for _, d := range defs {
			if c, ok := s.chunkOf(&d); ok {
				rank++
				frank++
				why := "does not accept the call a signature error reports: " + name
				s.add(GenPath, c, rank, why)
				s.addFile(GenPath, c.Path, frank, why)
			}
		}
	}
	// Frames: the innermost frames of a traceback come last.
	for i := len(s.q.Frames) - 1; i >= 0; i-- {
		f := s.q.Frames[i]
		for _, p := range s.matchFile(f.Path) {
			if c, ok := s.chunkAt(p, uint32(f.Line)); ok {
				rank++
				s.add(GenPath, c, rank, fmt.Sprintf("stack frame %s:%d", path.Base(f.Path), f.Line))
			}
		}
	}
	// Links to lines of code: the reporter points at the place.
	linked := s.resolveLinks()
	for i, l := range s.q.Links {
		if linked[i] == "" || l.Line == 0 {
			continue
		}
		if c, ok := s.chunkAt(linked[i], uint32(l.Line)); ok {
			rank++
			s.add(GenPath, c, rank, fmt.Sprintf("linked in the query: %s#L%d", linked[i], l.Line))
		}
	}
	// Files: those of a traceback's frames first, innermost first (the
	// outer frames are the dispatch every failure passes through), then
	// the files linked, then the other paths named, in order.
	named := map[string]bool{}
	name := func(mention, why string) {
		if named[mention] {
			return
		}
		named[mention] = true
		for _, p := range s.matchFile(mention) {
			frank++
			s.addFile(GenPath, p, frank, why+mention)
		}
	}
	for i := len(s.q.Frames) - 1; i >= 0; i-- {
		name(s.q.Frames[i].Path, "file of a stack frame: ")
	}
	for i := range s.q.Links {
		if p := linked[i]; p != "" && !named[p] {
			named[p] = true
			frank++
			s.addFile(GenPath, p, frank, "file linked in the query: "+p)
		}
	}
	for _, mention := range s.q.Paths {
		name(mention, "file named in the query: ")
	}
	return nil
}

// resolveLinks finds the indexed file each of the query's links points at
// ("" for none): a link's ref is a revision followed by a path, so the
// longest tail of it that is exactly an indexed path is the file. A link
// into another repository names no file here unless this one has the same
// path.
func (s *search) resolveLinks() []string {
	if len(s.q.Links) == 0 {
		return nil
	}
	have := s.e.pathSet()
	out := make([]string, len(s.q.Links))
	for i, l := range s.q.Links {
		for ref := l.Ref; ref != ""; {
			if _, ok := have[ref]; ok {
				out[i] = ref
				break
			}
			_, rest, ok := strings.Cut(ref, "/")
			if !ok {
				break
			}
			ref = rest
		}
	}
	return out
}

// graphAndRank: neighbours of the strongest hits, and centrality.
func (s *search) graphAndRank() error {
	top := s.fuse(8)
	var ids []graph.SymbolID
	seen := map[graph.SymbolID]bool{}
	for _, h := range top {
		if h.SymbolID != "" && !seen[h.SymbolID] {
			seen[h.SymbolID] = true
			ids = append(ids, h.SymbolID)
		}
	}
	if s.on[GenGraph] && len(ids) > 0 {
		rank := 0
		for _, dir := range []graph.Direction{graph.In, graph.Out} {
			edges, err := s.e.R.Edges(s.ctx, ids, dir, graph.EdgeCalls)
			if err != nil {
				return err
			}
			// the definitions of as many neighbours as are likely to be
			// admitted, at once; the rest one by one
			defsOf, err := graph.SymbolsByIDs(s.ctx, s.e.R, graph.Neighbours(edges, dir, seen, 2*maxGraphHits))
			if err != nil {
				return err
			}
			for _, e := range edges {
				other, via := e.From, e.To
				if dir == graph.Out {
					other, via = e.To, e.From
				}
				if seen[other] || e.Ambiguous {
					continue
				}
				seen[other] = true
				defs, ok := defsOf[other]
				if !ok { // beyond the batch
					if defs, err = s.e.R.SymbolsByID(s.ctx, other); err != nil {
						return err
					}
				}
				if len(defs) == 0 {
					continue
				}
				if ref, ok := s.chunkOf(&defs[0]); ok {
					rank++
					rel := "called by"
					if dir == graph.In {
						rel = "calls"
					}
					s.add(GenGraph, ref, rank, rel+" "+via.Display())
				}
				if rank >= maxGraphHits {
					break
				}
			}
		}
	}
	if s.on[GenRank] {
		var syms []graph.SymbolID
		for _, c := range s.cands {
			if c.ref.Symbol != "" {
				syms = append(syms, c.ref.Symbol)
			}
		}
		ranks, err := s.e.R.Ranks(s.ctx, syms)
		if err != nil {
			return err
		}
		type rc struct {
			c *cand
			r float64
		}
		var list []rc
		for _, c := range s.cands {
			if r := ranks[c.ref.Symbol]; r > 0 {
				list = append(list, rc{c, r})
			}
		}
		slices.SortFunc(list, func(a, b rc) int { return cmp.Or(ties.Compare(b.r, a.r), comparePlace(a.c.ref, b.c.ref)) })
		for i, x := range list {
			s.add(GenRank, x.c.ref, i+1, fmt.Sprintf("central (rank %.1f)", x.r))
		}
	}
	return nil
}

// foldedCase scales the evidence of a definition whose name matches the
// query's identifier only when case is ignored (the languages cairn reads
// are case-sensitive): such a hit ranks below the exact ones. Not for a
// name the query spells for a flag or key (query.Ident.Spelled): its case
// is the query parser's guess.
const foldedCase = 0.25

// maxGraphHits bounds the graph generator's hits per direction.
const maxGraphHits = 40
