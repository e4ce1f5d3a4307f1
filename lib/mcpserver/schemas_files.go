package mcpserver

// Output schemas of the file tools: grep, find and checksum (see
// schemas.go for the shared types).

const cursorSchema = `{"type": "string", "description": "pass as cursor, with the same other arguments, for the next page; absent on the last page"}`

var grepOutput = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "pattern": {"type": "string"},
    "matches": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "properties": {
          "rel_path": {"type": "string"},
          "doc_type": {"type": "string"},
          "line": {"type": "integer", "description": "the file's line (text, code; HTML: the source line), the line within the page (PDF, image) or the segment number (audio)"},
          "page": {"type": "integer", "description": "1-based page (PDF, image)"},
          "span": SPAN,
          "column": {"type": "integer", "description": "1-based byte column of the first match in the line"},
          "match": {"type": "string", "description": "the text of the first match"},
          "text": {"type": "string", "description": "the matching line (a part of it when clipped)"},
          "clipped": {"type": "boolean", "description": "the line is longer than text shows"},
          "cut": {"type": "boolean", "description": "the line was too long for this pattern to match whole: a match across a piece boundary may be missing"},
          "before": {"type": "array", "items": {"type": "string"}},
          "after": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["rel_path", "doc_type", "column", "match", "text"]
      }
    },
    "files_matched": {"type": "integer"},
    "files_searched": {"type": "integer", "description": "files this call searched: those the filters selected, up to where the page ended (most are ruled out by the index without being scanned)"},
    "truncated": {"type": "boolean", "description": "more matching lines may exist: continue with next_cursor"},
    "truncated_reason": {"type": "string", "enum": ["max_matches", "max_tokens", "time_budget"]},
    "next_cursor": CURSOR,
    "indexing_complete": {"type": "boolean"}
  },
  "required": ["pattern", "matches", "files_matched", "files_searched", "truncated", "indexing_complete"]
}`

const fileEntryProps = `
          "rel_path": {"type": "string"},
          "doc_type": {"type": "string"},
          "size_bytes": {"type": "integer"},
          "mtime_unix": {"type": "integer"},
          "status": {"type": "string", "enum": ["ok", "skipped", "error"]},
          "deleted": {"type": "boolean"},
          "reason": {"type": "string", "description": "why a file is skipped or failed"}`

var findOutput = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "total": {"type": "integer", "description": "files matching the filters, over all pages"},
    "files": {
      "type": "array",
      "items": {
        "type": "object",
        "additionalProperties": false,
        "properties": {` + fileEntryProps + `,
          "mime_type": {"type": "string"}
        },
        "required": ["rel_path", "doc_type", "size_bytes", "mtime_unix", "status", "deleted", "mime_type"]
      }
    },
    "next_cursor": CURSOR
  },
  "required": ["total", "files"]
}`

var checksumOutput = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "rel_path": {"type": "string"},
    "size_bytes": {"type": "integer", "description": "bytes digested"},
    "digests": {
      "type": "object",
      "additionalProperties": false,
      "properties": {"md5": {"type": "string"}, "sha1": {"type": "string"}, "sha256": {"type": "string"}, "sha512": {"type": "string"}},
      "description": "lower-case hex digest per algorithm requested"
    }
  },
  "required": ["rel_path", "size_bytes", "digests"]
}`
