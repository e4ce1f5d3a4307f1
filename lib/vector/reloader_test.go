package vector

import (
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// versionIndex returns an index whose labels all encode version v.
func versionIndex(t testing.TB, v, n, dim int) *Index {
	t.Helper()
	r := rand.New(rand.NewSource(int64(v)))
	ix, err := New("m", dim)
	must(t, err)
	for i := 0; i < n; i++ {
		must(t, ix.Upsert(int64(v*100000+i), unit(r, dim)))
	}
	return ix
}

// eventually polls cond until it holds or a generous deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestReloaderMissingThenAppears(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName("text"))
	r := NewReloader(path, ReloaderOptions{})
	defer r.Close()
	<-r.Ready()
	if r.Current() != nil {
		t.Fatal("Current non-nil for a missing file")
	}
	if st := r.Status(); st.Loaded || st.Err != nil {
		t.Fatalf("status for missing file: %+v", st)
	}
	must(t, versionIndex(t, 1, 10, 8).WriteFile(path))
	must(t, r.Refresh())
	ix := r.Current()
	if ix.Len() != 10 || !ix.Has(100000) {
		t.Fatalf("after Refresh Current has %d vectors", ix.Len())
	}
	st := r.Status()
	if !st.Loaded || st.LoadedAt.IsZero() || st.Len != 10 || st.Dim != 8 || st.Model != "m" {
		t.Fatalf("status after load: %+v", st)
	}
	// Removing the file empties the snapshot.
	must(t, os.Remove(path))
	must(t, r.Refresh())
	if r.Current() != nil || r.Status().Loaded {
		t.Fatal("snapshot survived removal of the file")
	}
}

func TestReloaderPicksUpNewFileOnAccess(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName("text"))
	must(t, versionIndex(t, 1, 5, 4).WriteFile(path))
	r := NewReloader(path, ReloaderOptions{CheckInterval: time.Millisecond})
	defer r.Close()
	eventually(t, "first load", func() bool { return r.Current().Has(100000) })
	must(t, versionIndex(t, 2, 7, 4).WriteFile(path))
	// No Refresh and no poller: Current alone must trigger the reload.
	eventually(t, "reload on access", func() bool { return r.Current().Has(200000) })
	if r.Current().Len() != 7 {
		t.Fatalf("new snapshot has %d vectors, want 7", r.Current().Len())
	}
}

func TestReloaderPolls(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName("code"))
	var loads atomic.Int32
	r := NewReloader(path, ReloaderOptions{
		CheckInterval: time.Hour,
		PollInterval:  time.Millisecond,
		OnLoad:        func(s Status) { loads.Add(1) },
	})
	defer r.Close()
	<-r.Ready()
	must(t, versionIndex(t, 3, 5, 4).WriteFile(path))
	eventually(t, "poller load", func() bool { return r.Status().Len == 5 })
	if loads.Load() == 0 {
		t.Fatal("OnLoad not called")
	}
	if !r.Current().Has(300000) {
		t.Fatal("Current does not return the polled snapshot")
	}
}

func TestReloaderKeepsOldSnapshotOnCorruptFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName("text"))
	must(t, versionIndex(t, 1, 5, 4).WriteFile(path))
	r := NewReloader(path, ReloaderOptions{CheckInterval: time.Hour})
	defer r.Close()
	must(t, r.Refresh())
	old := r.Current()

	// A corrupt file replaces the good one (by rename, as a broken writer
	// would).
	must(t, versionIndex(t, 2, 5, 4).WriteFile(path+".new"))
	b, err := os.ReadFile(path + ".new")
	must(t, err)
	b[len(b)-20] ^= 1
	must(t, os.WriteFile(path+".bad", b, 0o600))
	must(t, os.Rename(path+".bad", path))

	err = r.Refresh()
	if errcode.Of(err) != errcode.StoreCorrupt {
		t.Fatalf("Refresh on corrupt file = %v, want STORE_CORRUPT", err)
	}
	if r.Current() != old {
		t.Fatal("corrupt file replaced the good snapshot")
	}
	if st := r.Status(); errcode.Of(st.Err) != errcode.StoreCorrupt || !st.Loaded {
		t.Fatalf("status = %+v", st)
	}
	// The next good file loads and clears the error.
	must(t, os.Rename(path+".new", path))
	must(t, r.Refresh())
	if !r.Current().Has(200000) || r.Status().Err != nil {
		t.Fatal("good file after a corrupt one did not load")
	}
}

// TestReloaderAtomicReplaceUnderLoad replaces the file while many readers
// search; every search must see exactly one complete version.
func TestReloaderAtomicReplaceUnderLoad(t *testing.T) {
	const n, dim, versions = 300, 32, 12
	path := filepath.Join(t.TempDir(), FileName("text"))
	must(t, versionIndex(t, 1, n, dim).WriteFile(path))
	r := NewReloader(path, ReloaderOptions{CheckInterval: 100 * time.Microsecond, PollInterval: time.Millisecond})
	defer r.Close()

	var stop atomic.Bool
	var wg sync.WaitGroup
	var seen sync.Map
	errs := make(chan string, 16)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g)))
			for !stop.Load() {
				ix := r.Current()
				if ix == nil {
					continue
				}
				hits, err := ix.Search(unit(rng, dim), n, nil)
				if err != nil {
					errs <- err.Error()
					return
				}
				if len(hits) != n {
					errs <- "partial snapshot"
					return
				}
				v := hits[0].Label / 100000
				for _, h := range hits {
					if h.Label/100000 != v {
						errs <- "one search mixed two versions"
						return
					}
				}
				seen.Store(v, true)
			}
		}(g)
	}
	for v := 2; v <= versions; v++ {
		must(t, versionIndex(t, v, n, dim).WriteFile(path))
		time.Sleep(3 * time.Millisecond)
	}
	eventually(t, "last version", func() bool { return r.Current().Has(versions * 100000) })
	// The readers see it once their next search starts.
	eventually(t, "readers on the last version", func() bool { _, ok := seen.Load(int64(versions)); return ok })
	stop.Store(true)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if err := r.Status().Err; err != nil {
		t.Fatalf("a reload failed: %v", err)
	}
}

func TestReloaderCloseKeepsSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName("text"))
	must(t, versionIndex(t, 1, 3, 4).WriteFile(path))
	r := NewReloader(path, ReloaderOptions{})
	<-r.Ready()
	must(t, r.Close())
	must(t, r.Close())
	if r.Current().Len() != 3 {
		t.Fatal("snapshot lost after Close")
	}
}

func TestReloaderReadyAfterEarlyClose(t *testing.T) {
	for i := 0; i < 50; i++ {
		r := NewReloader(filepath.Join(t.TempDir(), "x.flat"), ReloaderOptions{})
		must(t, r.Close())
		<-r.Ready() // must not block
	}
}

// A Deferred reloader loads nothing, and its poll ticker stays idle, until
// Start (or a search's Current); then it loads as any other.
func TestReloaderDeferredLoadsOnStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName("text"))
	must(t, versionIndex(t, 1, 10, 8).WriteFile(path))
	var loads atomic.Int32
	r := NewReloader(path, ReloaderOptions{Deferred: true, PollInterval: time.Millisecond,
		OnLoad: func(Status) { loads.Add(1) }})
	defer r.Close()
	select {
	case <-r.Ready():
		t.Fatal("a deferred reloader checked the file before Start")
	case <-time.After(50 * time.Millisecond): // many poll ticks
	}
	if n := loads.Load(); n != 0 || r.Status().Loaded {
		t.Fatalf("loaded %d times before Start", n)
	}
	r.Start()
	<-r.Ready()
	if ix := r.Current(); ix.Len() != 10 {
		t.Fatalf("after Start Current has %d vectors", ix.Len())
	}

	// Without Start, the first Current asks for the load (and sees the
	// empty snapshot meanwhile).
	r2 := NewReloader(path, ReloaderOptions{Deferred: true})
	defer r2.Close()
	if r2.Current() != nil {
		t.Fatal("Current of a deferred reloader returned a snapshot before any load")
	}
	<-r2.Ready()
	if ix := r2.Current(); ix.Len() != 10 {
		t.Fatalf("after the first Current, %d vectors", ix.Len())
	}
}
