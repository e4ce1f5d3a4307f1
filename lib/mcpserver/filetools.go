package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// fileTools are the tools that look for files and exact content: grep,
// find and checksum.
func (s *Server) fileTools() []toolDef {
	return []toolDef{
		{tool: &mcp.Tool{Name: grepTool, Title: "Grep the files",
			Description:  "Finds the lines matching a fixed string or an RE2 regular expression in every indexed file's text (code and text as in the file, HTML, PDF pages and transcripts as extracted), like grep -rn: each match with its file line (or page / time), optional context lines; filters by path prefix, glob and type; paged with next_cursor.",
			OutputSchema: outputSchema(grepOutput), Annotations: readOnly("Grep the files")},
			in: grepParams, run: s.grep},
		{tool: &mcp.Tool{Name: findTool, Title: "Find files",
			Description:  "Lists files known to the index by glob and metadata (size range, modification time, type, media type, indexing status), sorted by path, size or mtime; paged with next_cursor.",
			OutputSchema: outputSchema(findOutput), Annotations: readOnly("Find files")},
			in: findParams, run: s.find},
		{tool: &mcp.Tool{Name: "dir2mcp.checksum", Title: "Checksum a file",
			Description:  "Computes md5, sha1, sha256 and/or sha512 digests of a whole file (or archive member), streamed; returns no content.",
			OutputSchema: outputSchema(checksumOutput), Annotations: readOnly("Checksum a file")},
			in: checksumParams, run: s.checksum},
	}
}
