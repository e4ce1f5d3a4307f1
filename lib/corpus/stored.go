package corpus

import (
	"context"

	"github.com/dir2mcp/dir2mcp/lib/archive"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// OpenStored is Open for a file that is not under this host's root but
// whose bytes the index keeps (a serve replica's stored copy, see
// docs/scaling.md): the same path, config-file, exclude, scope and
// security checks, without the file. ok is false when no copy is stored.
func (a *Access) OpenStored(ctx context.Context, rel string) (t Target, data []byte, ok bool, err error) {
	if _, _, isMember := archive.Split(rel); isMember {
		return t, nil, false, nil
	}
	clean, err := a.Root.Name(rel)
	if err != nil {
		return t, nil, false, err
	}
	if clean == config.DefaultFileName {
		return t, nil, false, errcode.FieldError(errcode.Forbidden, "rel_path", "%s is dir2mcp's config file, which may hold credentials, and is never served", clean)
	}
	if err := a.excluded(clean, clean); err != nil {
		return t, nil, false, err
	}
	if t, err = a.lookup(ctx, Target{Rel: clean}); err != nil || !t.Known {
		return t, nil, false, err
	}
	data, ok, err = a.Store.StreamSource(ctx, clean)
	return t, data, ok && err == nil, err
}
