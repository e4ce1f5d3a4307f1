package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Filter selects records; zero fields select everything.
type Filter struct {
	// Tool matches the tool name exactly, or without its "dir2mcp."
	// prefix ("search").
	Tool  string
	Since time.Time
	// Token matches the token label.
	Token string
	// Errors keeps only failed calls.
	Errors bool
}

// Match reports whether r passes f.
func (f Filter) Match(r Record) bool {
	switch {
	case f.Tool != "" && r.Tool != f.Tool && strings.TrimPrefix(r.Tool, "dir2mcp.") != f.Tool:
		return false
	case !f.Since.IsZero() && r.Time.Before(f.Since):
		return false
	case f.Token != "" && r.Token != f.Token:
		return false
	case f.Errors && r.Error == "":
		return false
	}
	return true
}

// Files lists the log's files oldest first: rotated files from the highest
// number down, then path itself; missing files are left out.
func Files(path string) ([]string, error) {
	matches, err := filepath.Glob(path + ".*")
	if err != nil {
		return nil, err
	}
	type rotated struct {
		n    int
		path string
	}
	var rs []rotated
	for _, m := range matches {
		if n, err := strconv.Atoi(strings.TrimPrefix(m, path+".")); err == nil && n > 0 {
			rs = append(rs, rotated{n, m})
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].n > rs[j].n })
	var out []string
	for _, r := range rs {
		out = append(out, r.path)
	}
	if _, err := os.Stat(path); err == nil {
		out = append(out, path)
	}
	return out, nil
}

// Read calls fn with every record of the log (rotated files included) that
// passes f, oldest first. A line that is not a record (a torn write) is
// skipped. It returns fn's first error.
func Read(path string, f Filter, fn func(Record) error) error {
	files, err := Files(path)
	if err != nil {
		return err
	}
	for _, p := range files {
		if err := readFile(p, f, fn); err != nil {
			return err
		}
	}
	return nil
}

func readFile(p string, f Filter, fn func(Record) error) error {
	file, err := os.Open(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) { // rotated away meanwhile
			return nil
		}
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var r Record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		if f.Match(r) {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", p, err)
	}
	return nil
}
