package streamstage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/nats-io/nats.go/jetstream"
)

// Replica materializes an index in its own state dir from the records on a
// chunks subject: representation records (documents, representations,
// chunks, through the same writer as an in-process extract) and vector
// records (attached to every pending chunk with the same embedder input).
// The last applied stream sequence is stored in the same transaction as the
// data, so after a restart the replica resumes after it and reads nothing it
// already applied.
type Replica struct {
	Conn      *stream.Conn
	Subject   string // the chunks subject extract publishes on
	Store     *store.Store
	Dir       state.Dir
	Extractor *indexer.Extractor        // its Store is Store
	Embedders map[string]embed.Embedder // the configured models (IDs of the vectors to take)
	Events    *events.Emitter
	// Changed, if set, is called before the replica reports itself caught
	// up when it applied records since the last call: an in-process server
	// loads its vector and keyword snapshots then, so searches answer from
	// everything applied once it says it is caught up.
	Changed func()

	stream   string
	applied  atomic.Uint64 // last stream sequence applied
	lag      atomic.Uint64 // records on the stream not yet applied
	reread   atomic.Int64  // records received at or below the stored position
	received atomic.Int64
	caught   atomic.Bool
	foreign  map[string]bool // vector models seen that are not the configured ones
	// dirty are the documents applied since the last attach.
	dirty      map[string]bool
	lastAttach time.Time
	attachCost time.Duration
	// unsynced: applied records the keyword index may not hold yet.
	unsynced bool
	// told: Changed was called after the last applied record.
	told  bool
	emb   *indexer.Embedding
	cache map[string]*stored
}

// Status is what stats reports about a replica.
type Status struct {
	Source     string `json:"source"`      // the subject
	Stream     string `json:"stream"`      // the stream it is stored in
	AppliedSeq uint64 `json:"applied_seq"` // last stream sequence applied
	Lag        uint64 `json:"lag"`         // records not yet applied
	Reread     int64  `json:"reread"`      // records received that were already applied (0 unless the position was lost)
	Received   int64  `json:"received"`    // records received since start
	CaughtUp   bool   `json:"caught_up"`
}

// Status reports the replica's position and lag.
func (r *Replica) Status() Status {
	return Status{Source: r.Subject, Stream: r.stream, AppliedSeq: r.applied.Load(), Lag: r.lag.Load(),
		Reread: r.reread.Load(), Received: r.received.Load(), CaughtUp: r.caught.Load()}
}

func seqKey(stream string) string { return "stream_seq:" + stream }

// Open finds the stream and the stored position.
func (r *Replica) Open(ctx context.Context) error {
	name, err := r.Conn.Ensure(ctx, r.Subject)
	if err != nil {
		return err
	}
	r.stream = name
	if err := r.Store.EnsureStreamTables(ctx); err != nil {
		return err
	}
	v, err := r.Store.Setting(ctx, seqKey(name))
	if err != nil {
		return err
	}
	if v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return errcode.New(errcode.StoreCorrupt, "setting %s = %q is not a sequence", seqKey(name), v)
		}
		r.applied.Store(n)
	}
	r.cache = map[string]*stored{}
	embs := map[string]embed.Embedder{}
	for kind, e := range r.Embedders {
		r.cache[kind] = &stored{model: e, vecs: map[string][]float32{}}
		embs[kind] = r.cache[kind]
	}
	r.emb = &indexer.Embedding{Store: r.Store, Dir: r.Dir, Embedders: embs, Events: r.Events}
	r.Extractor.Store = r.Store
	return r.attach(ctx, nil)
}

// Run applies records until ctx ends, reconnecting its consumer after a
// lost server.
func (r *Replica) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		err := r.follow(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errcode.Of(err) == errcode.StoreCorrupt || errcode.Of(err) == errcode.IndexLocked {
			return err
		}
		r.Events.Emit(events.Warn, record.EvNotice, map[string]any{"kind": "replica", "message": "replica: " + err.Error() + "; retrying"})
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	return nil
}

// follow reads from the position after the last applied record.
func (r *Replica) follow(ctx context.Context) error {
	// One wildcard filter rather than two subjects: servers before 2.10
	// (Debian's nats-server) take a single filter.
	cfg := jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{r.Subject + ".*"},
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	}
	if n := r.applied.Load(); n > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, n+1
	}
	cons, err := r.Conn.JS.OrderedConsumer(ctx, r.stream, cfg)
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		b, err := cons.Fetch(512, jetstream.FetchMaxWait(500*time.Millisecond))
		if err != nil {
			return err
		}
		var msgs []jetstream.Msg
		for m := range b.Messages() {
			msgs = append(msgs, m)
		}
		if err := b.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && len(msgs) == 0 {
			return err
		}
		if err := r.apply(ctx, msgs); err != nil {
			return err
		}
		if err := r.attachDirty(ctx, len(msgs) == 0); err != nil {
			return err
		}
		// Idle: what was applied becomes searchable by keyword before the
		// replica reports itself caught up.
		if len(msgs) == 0 && r.unsynced {
			if err := r.Store.SyncPostings(ctx); err != nil {
				return err
			}
			r.unsynced = false
		}
		if info := cons.CachedInfo(); info != nil {
			r.lag.Store(info.NumPending)
			caught := info.NumPending == 0 && len(msgs) == 0 && len(r.dirty) == 0 && !r.unsynced
			if caught && !r.told {
				if r.Changed != nil {
					r.Changed()
				}
				r.told = true
			}
			r.caught.Store(caught)
		}
	}
	return nil
}

// apply stores one batch and its position in one transaction, then attaches
// vectors to the chunks that wait for them.
func (r *Replica) apply(ctx context.Context, msgs []jetstream.Msg) error {
	var preps []indexer.Prepared
	var vecs []record.Vector
	last := r.applied.Load()
	for _, m := range msgs {
		md, err := m.Metadata()
		if err != nil {
			return err
		}
		seq := md.Sequence.Stream
		if seq <= r.applied.Load() {
			r.reread.Add(1)
			continue
		}
		r.received.Add(1)
		last = seq
		if err := r.decode(ctx, m, &preps, &vecs); errcode.Of(err) == errcode.StreamUnavailable {
			return err // nothing is committed: the batch is read again
		} else if err != nil {
			r.Events.Emit(events.Error, record.EvRecordParked, map[string]any{
				"code": string(errcode.RecordInvalid), "message": err.Error(), "subject": m.Subject(), "stream_seq": seq,
				"dead_letter_subject": "", "action": "skipped by the replica"})
		}
	}
	if last == r.applied.Load() {
		return nil
	}
	r.checkModels(vecs)
	sources, err := r.sources(ctx, preps)
	if err != nil {
		return err
	}
	inTx := func(tx *store.Tx) error {
		for rel, data := range sources {
			if err := tx.PutStreamSource(rel, data); err != nil {
				return err
			}
		}
		for _, v := range vecs {
			if err := tx.PutStreamVector(v.Key, v.Model, v.Vector); err != nil {
				return err
			}
		}
		return tx.SetSetting(seqKey(r.stream), strconv.FormatUint(last, 10))
	}
	if len(preps) > 0 {
		r.Extractor.InCommit = inTx
		err = r.Extractor.Apply(ctx, preps)
	}
	if err == nil {
		err = r.storePosition(ctx, last, inTx)
	}
	if err != nil {
		return err
	}
	r.applied.Store(last)
	r.unsynced, r.told = true, false
	if r.dirty == nil {
		r.dirty = map[string]bool{}
	}
	for _, v := range vecs {
		r.dirty[v.RelPath] = true
	}
	for _, p := range preps {
		addPaths(r.dirty, p)
	}
	return nil
}

// attachDirty attaches the vectors of the documents applied since the last
// time, at most every attachEvery (or ten times as long as the last attach
// took: each one rewrites the vector files), and at once when idle.
func (r *Replica) attachDirty(ctx context.Context, idle bool) error {
	if len(r.dirty) == 0 || (!idle && time.Since(r.lastAttach) < max(attachEvery, 10*r.attachCost)) {
		return nil
	}
	start := time.Now()
	if err := r.attach(ctx, r.dirty); err != nil {
		return err
	}
	r.dirty, r.lastAttach, r.attachCost = nil, time.Now(), time.Since(start)
	return nil
}

// attachEvery is the shortest interval between two attaches while records
// keep arriving.
const attachEvery = 2 * time.Second

// addPaths adds the paths of a prepared document and its members.
func addPaths(paths map[string]bool, p indexer.Prepared) {
	paths[p.Document.RelPath] = true
	for _, m := range p.Members {
		addPaths(paths, m)
	}
}

// checkModels warns once per model when vectors arrive from an embedder
// other than the one this replica is configured with: they are kept, but
// no chunk takes them (vectors of different models are never mixed).
func (r *Replica) checkModels(vecs []record.Vector) {
	for _, v := range vecs {
		c := r.cache[v.IndexKind]
		if c == nil || c.ID() == v.Model || r.foreign[v.Model] {
			continue
		}
		if r.foreign == nil {
			r.foreign = map[string]bool{}
		}
		r.foreign[v.Model] = true
		r.Events.Emit(events.Warn, record.EvNotice, map[string]any{"kind": v.IndexKind, "message": fmt.Sprintf(
			"replica: the embed workers publish %s vectors but this replica searches with %s: its %s chunks stay pending until the configurations agree",
			v.Model, c.ID(), v.IndexKind)})
	}
}

// storePosition commits inTx unless the batch's transaction already
// stored position last (it did not when a document failed and the batch
// was stored one document at a time).
func (r *Replica) storePosition(ctx context.Context, last uint64, inTx func(*store.Tx) error) error {
	v, err := r.Store.Setting(ctx, seqKey(r.stream))
	if err != nil || v == strconv.FormatUint(last, 10) {
		return err
	}
	return r.Store.Update(ctx, inTx)
}

// sources fetches the bytes of the documents a batch replaces (nil for
// the ones it removes), to store with them.
func (r *Replica) sources(ctx context.Context, preps []indexer.Prepared) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, p := range preps {
		switch {
		case p.Object != "":
			b, err := r.Conn.OpenObject(ctx, p.Object)
			if errcode.Of(err) == errcode.FileNotFound {
				continue // purged from the bucket: open_file will say the file is not here
			}
			if err != nil {
				return nil, err
			}
			if b == nil {
				b = []byte{}
			}
			out[p.Document.RelPath] = b
		case p.Action != "touch":
			out[p.Document.RelPath] = nil
		}
	}
	return out, nil
}

func (r *Replica) decode(ctx context.Context, m jetstream.Msg, preps *[]indexer.Prepared, vecs *[]record.Vector) error {
	switch m.Subject() {
	case VectorSubject(r.Subject):
		v := record.NewVector()
		if err := record.Decode(m.Data(), record.TypeVector, &v); err != nil {
			return err
		}
		*vecs = append(*vecs, v)
	case RepSubject(r.Subject):
		var p indexer.Prepared
		if err := record.Decode(m.Data(), record.TypeRepresentation, &p); err != nil {
			return err
		}
		if p.Ref != "" { // too large for a message: the full record is an object
			b, err := r.Conn.OpenObject(ctx, p.Ref)
			if err != nil {
				return err
			}
			p = indexer.Prepared{}
			if err := record.Decode(b, record.TypeRepresentation, &p); err != nil {
				return err
			}
		}
		*preps = append(*preps, p)
	}
	// Anything else under the subject (its dead letters) is not the replica's.
	return nil
}

// attach embeds, from the received vectors, every pending chunk of the
// documents at paths (nil: of all documents, once at start, for a batch
// committed just before a stop) whose embedder input has one.
func (r *Replica) attach(ctx context.Context, paths map[string]bool) error {
	pending, err := r.pending(ctx, paths)
	if err != nil {
		return err
	}
	for kind, c := range r.cache {
		var keys []string
		var chunks []record.Chunk
		for _, p := range pending {
			if p.IndexKind != kind {
				continue
			}
			ch := record.NewChunk()
			ch.ChunkID, ch.Text, ch.Context, ch.IndexKind, ch.RelPath, ch.DocType, ch.Lang =
				p.ChunkID, p.Text, p.Context, p.IndexKind, p.RelPath, p.DocType, p.Lang
			chunks, keys = append(chunks, ch), append(keys, indexer.VectorKey(indexer.EmbedInput(ch)))
		}
		if len(keys) == 0 {
			continue
		}
		found, err := r.Store.StreamVectors(ctx, c.ID(), keys)
		if err != nil {
			return err
		}
		m := map[string][]float32{}
		in := make(chan record.Chunk, len(chunks))
		for i, k := range keys {
			if v, ok := found[k]; ok && len(v) == c.Dim() {
				m[k] = v
				in <- chunks[i]
			}
		}
		close(in)
		if len(m) == 0 {
			continue
		}
		c.put(m)
		if err := r.emb.RunRecords(ctx, in); err != nil {
			return fmt.Errorf("attach vectors: %w", err)
		}
	}
	return nil
}

// pending lists the pending chunks of the documents at paths, or of all
// documents when paths is nil.
func (r *Replica) pending(ctx context.Context, paths map[string]bool) ([]store.PendingChunk, error) {
	if paths != nil {
		list := make([]string, 0, len(paths))
		for p := range paths {
			list = append(list, p)
		}
		return r.Store.PendingChunksOf(ctx, list)
	}
	var out []store.PendingChunk
	for kind := range r.cache {
		for after := int64(0); ; {
			pcs, err := r.Store.PendingChunks(ctx, kind, after, 2048)
			if err != nil {
				return nil, err
			}
			if len(pcs) == 0 {
				break
			}
			out = append(out, pcs...)
			after = pcs[len(pcs)-1].ChunkID
		}
	}
	return out, nil
}

// String is the replica line of the stats summary.
func (s Status) String() string {
	return fmt.Sprintf("replica of %s (stream %s): applied through sequence %d, lag %d records, caught up %v",
		s.Source, s.Stream, s.AppliedSeq, s.Lag, s.CaughtUp)
}
