package transcript

import (
	"path"
	"strings"
)

// MIMEByExt returns the media type of an audio file name, or "" when the
// extension is not a known audio format (providers then sniff the bytes).
func MIMEByExt(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".wav":
		return "audio/wav"
	case ".mp3":
		return "audio/mpeg"
	case ".m4a", ".mp4", ".m4b":
		return "audio/mp4"
	case ".aac":
		return "audio/aac"
	case ".ogg", ".oga", ".opus":
		return "audio/ogg"
	case ".flac":
		return "audio/flac"
	case ".webm":
		return "audio/webm"
	case ".aif", ".aiff":
		return "audio/aiff"
	}
	return ""
}
