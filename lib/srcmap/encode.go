package srcmap

import (
	"encoding/json"
	"fmt"
)

// MarshalJSON writes the map compactly, one array of integers per line:
// [first, last, from, to, kind, from, to, kind, ...].
func (m Map) MarshalJSON() ([]byte, error) {
	rows := make([][]int, len(m))
	for i, l := range m {
		row := make([]int, 2, 2+3*len(l.Marks))
		row[0], row[1] = l.First, l.Last
		for _, mk := range l.Marks {
			row = append(row, mk.From, mk.To, int(mk.Kind))
		}
		rows[i] = row
	}
	return json.Marshal(rows)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *Map) UnmarshalJSON(b []byte) error {
	var rows [][]int
	if err := json.Unmarshal(b, &rows); err != nil {
		return err
	}
	if rows == nil {
		*m = nil
		return nil
	}
	out := make(Map, len(rows))
	for i, row := range rows {
		if len(row) < 2 || (len(row)-2)%3 != 0 {
			return fmt.Errorf("srcmap: line %d has %d numbers, want 2 + 3 per mark", i+1, len(row))
		}
		l := Line{First: row[0], Last: row[1]}
		for j := 2; j < len(row); j += 3 {
			l.Marks = append(l.Marks, Mark{From: row[j], To: row[j+1], Kind: Kind(row[j+2])})
		}
		out[i] = l
	}
	*m = out
	return nil
}
