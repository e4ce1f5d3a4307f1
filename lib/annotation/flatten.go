package annotation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Flatten renders a JSON document as "key: value" lines in document order:
// nested object keys are joined with ".", array elements are indexed
// ("items[0].name: …"), strings are unquoted with newlines folded to
// spaces, empty objects and arrays and nulls are left out. It fails with
// ANNOTATE_FAILED on invalid JSON.
func Flatten(doc json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var b strings.Builder
	if err := flattenValue(dec, "", &b); err != nil {
		return "", errcode.Wrap(errcode.AnnotateFailed, err, "annotation JSON is invalid: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", errcode.New(errcode.AnnotateFailed, "annotation JSON has trailing data")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func flattenValue(dec *json.Decoder, key string, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if err := flattenValue(dec, join(key, k), b); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; dec.More(); i++ {
				if err := flattenValue(dec, key+"["+strconv.Itoa(i)+"]", b); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("unexpected %v", t)
		}
		_, err := dec.Token() // closing delimiter
		return err
	case nil:
		return nil
	case string:
		writeLine(b, key, strings.Join(strings.Fields(t), " "))
	case json.Number:
		writeLine(b, key, t.String())
	case bool:
		writeLine(b, key, strconv.FormatBool(t))
	}
	return nil
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

func writeLine(b *strings.Builder, key, value string) {
	if key == "" {
		key = "value"
	}
	b.WriteString(key)
	b.WriteString(": ")
	b.WriteString(value)
	b.WriteByte('\n')
}
