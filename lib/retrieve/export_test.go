package retrieve

import "context"

// DefinesOf is markDefinitions on candidates ids: through the keyword
// index when viaKeywords, else by reading every context.
func (e *Engine) DefinesOf(ctx context.Context, ids []int64, name string, viaKeywords bool) (map[int64]bool, error) {
	list := make([]*candidate, len(ids))
	for i, id := range ids {
		list[i] = &candidate{id: id}
	}
	kw := e.keywords()
	if !viaKeywords {
		kw = nil
	}
	if err := e.markDefinitions(ctx, kw, list, name); err != nil {
		return nil, err
	}
	out := map[int64]bool{}
	for _, c := range list {
		out[c.id] = c.defines
	}
	return out, nil
}
