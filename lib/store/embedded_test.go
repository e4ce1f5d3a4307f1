package store

import (
	"context"
	"strings"
	"testing"
)

// The chunk ids a model embedded are read when every index run starts:
// from an index, not from the chunks' rows (whose text a full read would
// page through).
func TestEmbeddedIDsReadsOnlyAnIndex(t *testing.T) {
	s, _ := openTest(t)
	rows, err := s.ReadDB().QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+embeddedIDsQuery, "code", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if len(plan) != 1 || !strings.Contains(plan[0], "COVERING INDEX") {
		t.Fatalf("plan %q: want one search of a covering index", plan)
	}
}
