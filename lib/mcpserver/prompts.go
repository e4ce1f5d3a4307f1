package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// promptDef is a task prompt: arguments and the instructions it expands to.
type promptDef struct {
	prompt *mcp.Prompt
	text   func(args map[string]string) string
}

var scopeArg = &mcp.PromptArgument{Name: "path_prefix", Title: "Directory",
	Description: "only consider files under this directory (rel_path prefix, e.g. src/); completable"}

// prompts are the task prompts: each teaches an agent a workflow with the
// dir2mcp tools.
var prompts = []promptDef{
	{
		prompt: &mcp.Prompt{Name: "understand-directory", Title: "Understand this directory",
			Description: "Survey the served directory: what it contains, how it is organised and where to start reading, with citations.",
			Arguments: []*mcp.PromptArgument{
				{Name: "focus", Title: "Focus", Description: "what you care about most (e.g. architecture, data flow, setup); optional"},
				scopeArg,
			}},
		text: func(a map[string]string) string {
			return fmt.Sprintf(`Build an accurate picture of the directory served by dir2mcp%s%s.
1. Call dir2mcp.stats to see how many files of each type are indexed and whether indexing is complete.
2. Call dir2mcp.list_files%s to see the layout; note README, docs and entry points.
3. Read the most central files through their resources (dir2mcp:///<rel_path>) or dir2mcp.open_file.
4. Use dir2mcp.search with in=title to find documents by title, and plain queries for concepts.
5. Summarise: purpose, main parts and how they relate, where to start reading. Cite every claim as [rel_path:Lstart-Lend].
Say so when something is not in the directory instead of guessing.`,
				scopePhrase(a), focusPhrase(a), listScope(a))
		},
	},
	{
		prompt: &mcp.Prompt{Name: "find-implementation", Title: "Find where something is implemented",
			Description: "Locate the code that implements a feature or behaviour and cite the exact lines.",
			Arguments: []*mcp.PromptArgument{
				{Name: "what", Title: "What", Description: "the feature, behaviour or identifier to find", Required: true},
				scopeArg,
			}},
		text: func(a map[string]string) string {
			return fmt.Sprintf(`Find where %q is implemented in this directory%s.
1. Call dir2mcp.search with index=code (and path_prefix if given) using the user's words, then again with likely identifiers (function, type or constant names).
2. For each promising hit, call dir2mcp.open_file on its span (widen start_line/end_line if needed) to read the actual code.
3. Follow calls or definitions with further searches until you reach the code that does the work, not just a caller.
4. Answer with the file and line range of the implementation, cited as [rel_path:Lstart-Lend], and a short explanation of how it works.
Only cite lines you opened.`, a["what"], scopePhrase(a))
		},
	},
	{
		prompt: &mcp.Prompt{Name: "answer-from-documents", Title: "Answer from the documents only",
			Description: "Answer a question strictly from the directory's content, with a citation for every statement.",
			Arguments: []*mcp.PromptArgument{
				{Name: "question", Title: "Question", Description: "the question to answer", Required: true},
				scopeArg,
			}},
		text: func(a map[string]string) string {
			return fmt.Sprintf(`Answer this question using only the documents served by dir2mcp%s:
%q
1. Call dir2mcp.ask with mode=search_only (or dir2mcp.search) to collect evidence; try a rephrased query if the first is thin.
2. Verify each piece of evidence with dir2mcp.open_file on the cited span.
3. Write the answer with a citation [rel_path:Lstart-Lend] after every statement. Use no outside knowledge.
4. If the documents do not answer the question, say exactly that and list what you searched for.`, scopePhrase(a), a["question"])
		},
	},
	{
		prompt: &mcp.Prompt{Name: "explain-file", Title: "Explain a file",
			Description: "Explain what one file does and how the rest of the directory uses it, with citations.",
			Arguments: []*mcp.PromptArgument{
				{Name: "rel_path", Title: "File", Description: "the file's path relative to the root; completable", Required: true},
			}},
		text: func(a map[string]string) string {
			return fmt.Sprintf(`Explain the file %s.
1. Read it through its resource (%s) or dir2mcp.open_file, in slices if it is long.
2. Search for its main identifiers or title with dir2mcp.search to find where the rest of the directory uses or mentions it.
3. Explain its purpose, its main parts and its connections, citing [rel_path:Lstart-Lend] for each point.`, a["rel_path"], ResourceURI(a["rel_path"]))
		},
	},
}

func scopePhrase(a map[string]string) string {
	if p := strings.TrimSpace(a["path_prefix"]); p != "" {
		return " (only files under " + p + ")"
	}
	return ""
}

func focusPhrase(a map[string]string) string {
	if f := strings.TrimSpace(a["focus"]); f != "" {
		return ", focusing on " + f
	}
	return ""
}

func listScope(a map[string]string) string {
	if p := strings.TrimSpace(a["path_prefix"]); p != "" {
		return fmt.Sprintf(" (path_prefix=%q)", p)
	}
	return ""
}

func (s *Server) addPrompts() {
	for _, p := range prompts {
		s.srv.AddPrompt(p.prompt, p.get)
	}
}

// get expands the prompt; a missing required argument is invalid params.
func (p promptDef) get(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	for _, a := range p.prompt.Arguments {
		if a.Required && strings.TrimSpace(args[a.Name]) == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("MISSING_FIELD: prompt %s needs argument %q", p.prompt.Name, a.Name)}
		}
	}
	return &mcp.GetPromptResult{
		Description: p.prompt.Description,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: p.text(args)}}},
	}, nil
}
