package mcpserver

import (
	"context"
	"mime"
	"net/url"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// URIScheme prefixes resource URIs: dir2mcp:///<rel_path>, with each path
// segment percent-escaped. The empty authority keeps the first path segment
// out of the (case-insensitive) host position.
const URIScheme = "dir2mcp:///"

// fileTemplate lets a client read any file under the root by path, indexed
// or not (subject to the same checks as open_file).
var fileTemplate = &mcp.ResourceTemplate{
	URITemplate: URIScheme + "{+path}",
	Name:        "file",
	Title:       "File by path",
	Description: "Any file under the served directory by its path relative to the root (rel_path). Secret and excluded files are refused.",
}

// ResourceURI is the resource URI of rel_path.
func ResourceURI(rel string) string {
	segs := strings.Split(rel, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return URIScheme + strings.Join(segs, "/")
}

// relFromURI extracts the rel_path of a dir2mcp resource URI.
func relFromURI(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "dir2mcp" || u.Host != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", errcode.FieldError(errcode.InvalidField, "uri", "%q is not a dir2mcp resource URI (want %s<rel_path>)", uri, URIScheme)
	}
	rel := strings.TrimPrefix(u.Path, "/")
	if rel == "" {
		return "", errcode.FieldError(errcode.MissingField, "uri", "%q names no file", uri)
	}
	return rel, nil
}

// catalog mirrors the index's live, non-excluded documents as the MCP
// server's resources. refresh diffs the index against what the server
// lists and adds, replaces or removes resources; the SDK then sends
// notifications/resources/list_changed to connected sessions.
type catalog struct {
	s *Server

	refreshMu sync.Mutex // one refresh at a time
	lastPrint string     // store fingerprint at the last refresh
	mu        sync.RWMutex
	byPath    map[string]*mcp.Resource
	sorted    []string      // rel_paths in order, for completion
	ready     chan struct{} // closed once the first listing is loaded
	started   sync.Once     // the first listing is being loaded
}

func newCatalog(s *Server) *catalog {
	return &catalog{s: s, byPath: map[string]*mcp.Resource{}, ready: make(chan struct{})}
}

// start loads the first resource list in the background unless that has
// begun, and reports whether this call began it. The list is loaded when
// first needed (wait, links, paths, prefixed, the periodic refresh) or
// when the owner asks for it (Server.Warm): a server that is restarting
// over an unchanged index lets its no-op index run finish first.
func (c *catalog) start() bool {
	began := false
	c.started.Do(func() {
		began = true
		go c.load()
	})
	return began
}

// load builds the first resource list (none without a store) and marks
// the catalog ready. A failure is logged; the periodic refresh retries.
func (c *catalog) load() {
	defer close(c.ready)
	if c.s.Store == nil {
		return
	}
	if c.s.catalogHold != nil {
		c.s.catalogHold()
	}
	if err := c.refresh(context.Background(), true); err != nil {
		c.s.log.Warn("listing resources", "err", err)
	}
}

// wait blocks until the first resource list is loaded or ctx ends: a
// client never sees the list of a server that has not read its index yet.
func (c *catalog) wait(ctx context.Context) error {
	c.start()
	select {
	case <-c.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Refresh re-reads the index and updates the resource list (or starts
// loading it, when it was not loaded yet).
func (s *Server) Refresh(ctx context.Context) error {
	s.MCP()
	if s.catalog.start() {
		return nil // the first listing reads the index as it is now
	}
	return s.catalog.refresh(ctx, true)
}

// Warm loads what the server otherwise loads on first use, the resource
// list, and returns once it is loaded. A server that indexes calls it once
// its first index run is done (or has gone on for a while); others right
// after they listen.
func (s *Server) Warm() {
	s.MCP()
	_ = s.catalog.wait(context.Background())
}

// WatchResources refreshes the resource list every interval until ctx
// ends, for a server whose index another process writes. A poll that finds
// the index unchanged costs one aggregate query.
func (s *Server) WatchResources(ctx context.Context, every time.Duration) {
	if s.Store == nil {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.MCP()
			if s.catalog.start() {
				continue // loading the list now
			}
			if err := s.catalog.refresh(ctx, false); err != nil && ctx.Err() == nil {
				s.log.Warn("refreshing resources", "err", err)
			}
		}
	}
}

// refresh updates the resources from the index; unless force is set it
// first compares a cheap fingerprint and stops when nothing changed.
func (c *catalog) refresh(ctx context.Context, force bool) error {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	fp, err := c.s.Store.ListingsFingerprint(ctx)
	if err != nil {
		return err
	}
	if !force && fp == c.lastPrint {
		return nil
	}
	c.lastPrint = fp
	ls, err := c.s.Store.Listings(ctx)
	if err != nil {
		return err
	}
	next := make(map[string]*mcp.Resource, len(ls))
	sorted := make([]string, 0, len(ls))
	for _, l := range ls {
		if !c.s.access.Listable(l.RelPath, l.ErrorCode) {
			continue
		}
		next[l.RelPath] = resourceOf(l)
		sorted = append(sorted, l.RelPath)
	}
	c.mu.RLock()
	prev := c.byPath
	c.mu.RUnlock()
	var added, removed []string
	for rel, r := range next {
		if old, ok := prev[rel]; !ok || !sameResource(old, r) {
			added = append(added, rel)
		}
	}
	for rel := range prev {
		if _, ok := next[rel]; !ok {
			removed = append(removed, ResourceURI(rel))
		}
	}
	c.mu.Lock()
	c.byPath, c.sorted = next, sorted
	c.mu.Unlock()
	if len(removed) > 0 {
		c.s.srv.RemoveResources(removed...)
	}
	for _, rel := range added {
		c.s.srv.AddResource(next[rel], c.s.readResource)
	}
	if len(added)+len(removed) > 0 && len(prev) > 0 {
		c.s.log.Debug("resource list changed", "added_or_updated", len(added), "removed", len(removed), "total", len(next))
	}
	return nil
}

func sameResource(a, b *mcp.Resource) bool {
	return a.Title == b.Title && a.Description == b.Description && a.MIMEType == b.MIMEType && a.Size == b.Size &&
		a.Annotations.LastModified == b.Annotations.LastModified && strings.Join(tagsOf(a), "\n") == strings.Join(tagsOf(b), "\n")
}

func tagsOf(r *mcp.Resource) []string {
	t, _ := r.Meta["tags"].([]string)
	return t
}

// resourceOf describes a document as a resource.
func resourceOf(l store.Listing) *mcp.Resource {
	r := &mcp.Resource{
		URI: ResourceURI(l.RelPath), Name: l.RelPath, Title: l.Title, Description: l.Description,
		MIMEType: mimeType(l.RelPath, l.DocType), Size: l.SizeBytes,
		Annotations: &mcp.Annotations{LastModified: time.Unix(l.MtimeUnix, 0).UTC().Format(time.RFC3339)},
	}
	if r.Title == "" {
		r.Title = path.Base(l.RelPath)
	}
	if r.Description == "" {
		r.Description = fallbackDescription(l)
	}
	if len(l.Tags) > 0 {
		r.Meta = mcp.Meta{"tags": l.Tags}
	}
	return r
}

func fallbackDescription(l store.Listing) string {
	switch {
	case l.Status == record.StatusOK:
		return l.DocType + " file"
	case l.ErrorCode == string(errcode.BinarySkipped):
		return "binary file (not indexed; readable as a base64 blob)"
	case l.ErrorCode != "":
		return l.DocType + " file, not indexed (" + l.ErrorCode + ")"
	}
	return l.DocType + " file, not indexed"
}

// mimeType guesses a file's media type from its extension, falling back on
// its doc_type.
func mimeType(rel, docType string) string {
	ext := strings.ToLower(path.Ext(rel))
	switch ext {
	case ".md", ".markdown":
		return "text/markdown"
	case ".go", ".py", ".rs", ".c", ".h", ".cc", ".cpp", ".java", ".ts", ".tsx", ".jsx", ".rb", ".sh", ".yaml", ".yml", ".toml", ".txt":
		return "text/plain"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	switch docType {
	case record.DocCode, record.DocText, record.DocData:
		return "text/plain"
	case record.DocHTML:
		return "text/html"
	case record.DocMarkdown:
		return "text/markdown"
	case record.DocPDF:
		return "application/pdf"
	}
	return "application/octet-stream"
}

// links returns resource_link content items for up to n of files that are
// resources, in order.
func (c *catalog) links(files []string, n int) []mcp.Content {
	c.start()
	<-c.ready
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []mcp.Content
	for _, f := range files {
		r, ok := c.byPath[f]
		if !ok {
			continue
		}
		size := r.Size
		out = append(out, &mcp.ResourceLink{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description,
			MIMEType: r.MIMEType, Size: &size})
		if len(out) == n {
			break
		}
	}
	return out
}

// paths returns up to limit resource paths accepted by match, and how many
// matched in all.
func (c *catalog) paths(match func(string) bool, limit int) ([]string, int) {
	c.start()
	<-c.ready
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []string
	total := 0
	for _, p := range c.sorted {
		if match(p) {
			total++
			if len(out) < limit {
				out = append(out, p)
			}
		}
	}
	return out, total
}

// prefixed returns the resource paths starting with prefix that scope
// allows, using the sorted index.
func (c *catalog) prefixed(prefix string, scope *corpus.Scope, limit int) ([]string, int) {
	c.start()
	<-c.ready
	c.mu.RLock()
	defer c.mu.RUnlock()
	i := sort.SearchStrings(c.sorted, prefix)
	var out []string
	total := 0
	for ; i < len(c.sorted) && strings.HasPrefix(c.sorted[i], prefix); i++ {
		if !scope.AllowsPath(c.sorted[i]) {
			continue
		}
		total++
		if len(out) < limit {
			out = append(out, c.sorted[i])
		}
	}
	return out, total
}
