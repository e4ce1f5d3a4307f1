package config

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// parseScalar parses text s as a value of kind k (a scalar kind) and
// stores it in v. The error says what is allowed.
func parseScalar(v reflect.Value, k kind, s string) error {
	switch k {
	case kindString:
		v.SetString(s)
	case kindBool:
		b, ok := parseBool(s)
		if !ok {
			return fmt.Errorf("want true or false, got %q", s)
		}
		v.SetBool(b)
	case kindInt:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("want an integer, got %q", s)
		}
		v.SetInt(n)
	case kindFloat:
		f, err := parseFloat(s)
		if err != nil {
			return err
		}
		v.SetFloat(f)
	case kindDuration:
		d, err := parseDuration(s)
		if err != nil {
			return err
		}
		v.SetInt(int64(d))
	default:
		panic("config: parseScalar of " + k.String())
	}
	return nil
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("want a number, got %q", s)
	}
	return f, nil
}

// parseListText parses an env or flag list: a JSON array of strings, or
// comma-separated items with "\," for a literal comma. Items are trimmed
// and empty items dropped, so "" is the empty list.
func parseListText(s string) []string {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "[") {
		var arr []string
		if json.Unmarshal([]byte(t), &arr) == nil {
			if arr == nil {
				arr = []string{}
			}
			return arr
		}
	}
	out := []string{}
	var cur strings.Builder
	flush := func() {
		if item := strings.TrimSpace(cur.String()); item != "" {
			out = append(out, item)
		}
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ',':
			cur.WriteByte(',')
			i++
		case s[i] == ',':
			flush()
		default:
			cur.WriteByte(s[i])
		}
	}
	flush()
	return out
}

// parseMapText parses an env or flag map: a JSON object, or "k=v,k=v"
// pairs ("\," is a literal comma).
func parseMapText(s string) (map[string]string, error) {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		var raw map[string]any
		if err := json.Unmarshal([]byte(t), &raw); err != nil {
			return nil, fmt.Errorf("want a JSON object or k=v,k=v pairs: %v", err)
		}
		out := make(map[string]string, len(raw))
		for k, v := range raw {
			switch v := v.(type) {
			case string:
				out[k] = v
			case float64:
				out[k] = strconv.FormatFloat(v, 'g', -1, 64)
			default:
				return nil, fmt.Errorf("want a string or number for %q", k)
			}
		}
		return out, nil
	}
	out := map[string]string{}
	for _, item := range parseListText(s) {
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("want k=v pairs separated by commas, got %q", item)
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// setMapEntry parses s as an entry of the map leaf v (kind k) and stores it
// under key, allocating the map if needed.
func setMapEntry(v reflect.Value, k kind, key, s string) error {
	var ev reflect.Value
	switch k {
	case kindFloatMap:
		f, err := parseFloat(s)
		if err != nil {
			return err
		}
		ev = reflect.ValueOf(f)
	case kindStringMap:
		ev = reflect.ValueOf(s)
	default:
		panic("config: setMapEntry of " + k.String())
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	v.SetMapIndex(reflect.ValueOf(key), ev)
	return nil
}

// isMap reports whether k is a map kind.
func (k kind) isMap() bool { return k == kindFloatMap || k == kindStringMap }
