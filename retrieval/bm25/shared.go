package bm25

import (
	"sync"

	"github.com/blevesearch/bleve/v2/document"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/cairn-dev/cairn/retrieval/tokens"
)

// A file's document holds the text of its chunks' documents again (ftext
// is the chunks' bodies joined by newlines), so analysing both tokenises
// every line of code twice. fileAnalysis tokenises each chunk's text once,
// for its body and for the file's ftext: the term frequencies of a file
// are the sums of its chunks' (the tokenizer reads identifiers one by one,
// and no identifier spans the newline between two chunks). Whichever of a
// file's documents bleve analyses first — its analysis workers take the
// documents of a batch in any order, and a file's may fall into two
// batches — does the work for all of them; the others wait for it.
type fileAnalysis struct {
	once   sync.Once
	texts  []string
	mu     sync.Mutex
	chunks []analysed // by chunk, taken once each
	file   analysed
}

// analysed is one field's analysis as bleve records it: the number of
// tokens and each term's frequency.
type analysed struct {
	length int
	freqs  index.TokenFrequencies
}

func newFileAnalysis(texts []string) *fileAnalysis { return &fileAnalysis{texts: texts} }

func (fa *fileAnalysis) run() {
	fa.chunks = make([]analysed, len(fa.texts))
	file := make(index.TokenFrequencies, 256)
	total := 0
	for i, t := range fa.texts {
		freqs := make(index.TokenFrequencies, len(t)/24+1)
		n := 0
		tokens.Code([]byte(t), func(tok tokens.Token) {
			n++
			tf, ok := freqs[tok.Term]
			if !ok {
				tf = &index.TokenFreq{Term: []byte(tok.Term)}
				freqs[tok.Term] = tf
			}
			tf.SetFrequency(tf.Frequency() + 1)
		})
		for term, tf := range freqs {
			ftf, ok := file[term]
			if !ok {
				ftf = &index.TokenFreq{Term: tf.Term}
				file[term] = ftf
			}
			ftf.SetFrequency(ftf.Frequency() + tf.Frequency())
		}
		fa.chunks[i] = analysed{n, freqs}
		total += n
	}
	fa.file = analysed{total, file}
	fa.texts = nil
}

// take returns chunk i's analysis (i < 0: the file's) and lets it go.
func (fa *fileAnalysis) take(i int) analysed {
	fa.once.Do(fa.run)
	fa.mu.Lock()
	defer fa.mu.Unlock()
	var a *analysed
	if i < 0 {
		a = &fa.file
	} else {
		a = &fa.chunks[i]
	}
	out := *a
	*a = analysed{}
	return out
}

// sharedField is a body or ftext field analysed through its file's
// fileAnalysis; everything else is the mapping's text field.
type sharedField struct {
	*document.TextField
	fa *fileAnalysis
	i  int // the chunk, or -1 for the file's ftext
	a  analysed
}

func (f *sharedField) Analyze()                                         { f.a = f.fa.take(f.i) }
func (f *sharedField) AnalyzedLength() int                              { return f.a.length }
func (f *sharedField) AnalyzedTokenFrequencies() index.TokenFrequencies { return f.a.freqs }

// share replaces doc's text field of the mapping analysed through fa —
// chunk i's body, or the file's ftext for i < 0 — by one that takes fa's
// analysis.
func share(doc *document.Document, fa *fileAnalysis, i int) {
	name := "body"
	if i < 0 {
		name = "ftext"
	}
	for k, f := range doc.Fields {
		if tf, ok := f.(*document.TextField); ok && f.Name() == name {
			doc.Fields[k] = &sharedField{TextField: tf, fa: fa, i: i}
			return
		}
	}
}
