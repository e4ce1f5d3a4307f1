package grep

import (
	"context"
	"sync"
	"sync/atomic"
)

// MaxResident bounds the memory the Index keeps (text bytes plus trigram
// sets). Documents past it stay cold: no trigrams, their text loaded from
// the Source each time a search reaches them.
const MaxResident = 1 << 30

// Ref is a version of a document a Source offers.
type Ref struct {
	RelPath string
	DocType string
	// Key changes whenever the document's text does.
	Key string
	// ID and Kind are the Source's handle on the text.
	ID   int64
	Kind string
}

// Source supplies the documents to search.
type Source interface {
	// Generation changes whenever the set of documents or a text changes.
	Generation(ctx context.Context) (int64, error)
	// Refs lists the searchable documents in rel_path order.
	Refs(ctx context.Context) ([]Ref, error)
	// Load calls fn with the text of each of refs it can read, in order;
	// a document it cannot read (gone, refused) is skipped.
	Load(ctx context.Context, refs []Ref, fn func(Ref, Text) error) error
}

// Doc is a searchable document.
type Doc struct {
	Ref
	text Text
	tris []trigram
	// cold documents keep neither text nor trigrams.
	cold bool
}

// cost is what a resident document weighs against MaxResident.
func (d *Doc) cost() int {
	return len(d.text.Body) + 4*len(d.tris) + 24*len(d.text.Map) + 24*len(d.text.Times)
}

type snapshot struct {
	gen  int64
	docs []*Doc
}

// Index is the in-memory text of a Source's documents. It is safe for
// concurrent use; searches read an immutable snapshot.
type Index struct {
	src  Source
	mu   sync.Mutex // serializes refreshes
	snap atomic.Pointer[snapshot]
	seen []uint64 // trigram dedup bitmap, under mu
	buf  []byte
	// budget is the resident memory allowed (MaxResident).
	budget int
}

// NewIndex returns an empty Index over src; the first search loads it.
func NewIndex(src Source) *Index { return &Index{src: src, budget: MaxResident} }

// loadBatch is how many documents one Load call reads.
const loadBatch = 256

// refresh brings the snapshot up to the Source's generation, reloading
// only documents whose key changed. Cancelled midway, it keeps what it
// loaded (and refreshes again next time).
func (ix *Index) refresh(ctx context.Context) (*snapshot, error) {
	gen, err := ix.src.Generation(ctx)
	if err != nil {
		return nil, err
	}
	if cur := ix.snap.Load(); cur != nil && cur.gen == gen {
		return cur, nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	cur := ix.snap.Load()
	if cur != nil && cur.gen == gen {
		return cur, nil
	}
	refs, err := ix.src.Refs(ctx)
	if err != nil {
		return nil, err
	}
	old := map[string]*Doc{}
	if cur != nil {
		for _, d := range cur.docs {
			old[d.RelPath] = d
		}
	}
	next := make([]*Doc, len(refs))
	at := map[string]int{}
	var load []Ref
	resident := 0
	for i, r := range refs {
		if d := old[r.RelPath]; d != nil && d.Key == r.Key {
			next[i] = d
			if !d.cold {
				resident += d.cost()
			}
			continue
		}
		at[r.RelPath] = i
		load = append(load, r)
	}
	if ix.seen == nil {
		ix.seen = newSeen()
	}
	for len(load) > 0 && err == nil {
		batch := load[:min(len(load), loadBatch)]
		load = load[len(batch):]
		if resident >= ix.budget {
			for _, r := range batch {
				next[at[r.RelPath]] = &Doc{Ref: r, cold: true}
			}
			continue
		}
		err = ix.src.Load(ctx, batch, func(r Ref, t Text) error {
			d := &Doc{Ref: r, text: t}
			d.tris, ix.buf = trigramSet(t.Body, ix.seen, ix.buf)
			if resident+d.cost() > ix.budget {
				d = &Doc{Ref: r, cold: true}
			} else {
				resident += d.cost()
			}
			next[at[r.RelPath]] = d
			return nil
		})
	}
	docs := next[:0]
	for _, d := range next {
		if d != nil {
			docs = append(docs, d)
		}
	}
	s := &snapshot{gen: gen, docs: docs}
	if err != nil {
		s.gen = -1 // partial: refresh again next time
	}
	ix.snap.Store(s)
	if err != nil {
		return nil, err
	}
	return s, nil
}
