package mcpserver

import (
	"context"
	"github.com/dir2mcp/dir2mcp/lib/answer"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// providerTool annotates a tool that calls a model provider (the world
// outside the directory) and may store what it gets as a representation.
func providerTool(title string, stores bool) *mcp.ToolAnnotations {
	t, f := true, false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: !stores, IdempotentHint: true, OpenWorldHint: &t, DestructiveHint: &f}
}

// providerTools are the recommended and optional tools of SPEC §13.2–13.3.
// They are always listed; a call without the provider it needs fails with
// CONFIG_INVALID saying how to configure one.
func (s *Server) providerTools() []toolDef {
	return []toolDef{
		{tool: &mcp.Tool{Name: "dir2mcp.transcribe", Title: "Transcribe an audio file",
			Description:  "Transcribes an audio file with the configured speech-to-text provider (Mistral or ElevenLabs), stores the transcript so search finds it with time citations like [a.mp3@t=01:05-01:35], and returns its timed segments. A current stored transcript is returned without calling the provider unless retranscribe is true.",
			OutputSchema: outputSchema(transcribeOutput), Annotations: providerTool("Transcribe audio", true)},
			in: transcribeParams, run: s.transcribe, expensive: true},
		{tool: &mcp.Tool{Name: "dir2mcp.annotate", Title: "Extract structured data",
			Description:  "Fills a JSON Schema from one document (Mistral document annotation for PDFs and images, the chat model for text), stores the JSON as the document's annotation_json and, by default, indexes it as key: value lines so search finds it.",
			OutputSchema: outputSchema(annotateOutput), Annotations: providerTool("Extract structured data", true)},
			in: annotateParams, run: s.annotate, expensive: true},
		{tool: &mcp.Tool{Name: "dir2mcp.transcribe_and_ask", Title: "Ask about a recording",
			Description:  "Makes sure an audio file has a current transcript (transcribing it if needed), then answers a question from that recording with time citations.",
			OutputSchema: outputSchema(transcribeAskOutput), Annotations: providerTool("Ask about a recording", true)},
			in: transcribeAskParams, run: s.transcribeAndAsk, expensive: true},
		{tool: &mcp.Tool{Name: "dir2mcp.ask_audio", Title: "Answer aloud",
			Description:  "Like dir2mcp.ask, and also speaks the answer with ElevenLabs text-to-speech: the result holds the answer as text and as an audio content item (base64 mp3 or wav). Needs ELEVENLABS_API_KEY.",
			OutputSchema: outputSchema(askAudioOutput), Annotations: providerTool("Answer aloud", false)},
			in: askAudioParams, run: s.askAudio, expensive: true},
	}
}

// asker answers questions with the configured chat model, if any.
func (s *Server) asker(ctx context.Context) *answer.Asker {
	a := &answer.Asker{Engine: s.Engine, MaxContextChars: s.Config.RAG.MaxContextChars, SystemPrompt: s.Config.RAG.SystemPrompt,
		Progress: func(done float64, msg string) { reportProgress(ctx, done, msg) }}
	if p := s.Providers; p != nil && p.Chat != nil {
		a.Chat, a.ChatModel = p.Chat, p.ChatModel
	}
	return a
}

// unavailable is the error of a tool whose provider is not configured.
func unavailable(why string) error {
	return errcode.New(errcode.ConfigInvalid, "%s", why)
}
