// Package errcode holds dir2mcp's canonical error codes (SPEC §14) and the
// typed error that carries one through the library to tool results, events
// and CLI exit codes.
package errcode

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a canonical error code.
type Code string

// Auth/transport (§14.1).
const (
	Unauthorized     Code = "UNAUTHORIZED"
	ForbiddenOrigin  Code = "FORBIDDEN_ORIGIN"
	SessionNotFound  Code = "SESSION_NOT_FOUND"
	BindFailed       Code = "BIND_FAILED"
	TLSConfigInvalid Code = "TLS_CONFIG_INVALID"
	RateLimited      Code = "RATE_LIMITED"
	// OutOfScope: the credential's scope (tools, path prefixes) does not
	// cover the call (extension).
	OutOfScope Code = "OUT_OF_SCOPE"
	// Timeout: a call ran past its deadline (server.tool_timeout) or
	// waited too long for a file-read slot; retryable (extension).
	Timeout Code = "TIMEOUT"
)

// Input validation (§14.2).
const (
	MissingField       Code = "MISSING_FIELD"
	InvalidField       Code = "INVALID_FIELD"
	InvalidRange       Code = "INVALID_RANGE"
	Forbidden          Code = "FORBIDDEN"
	PathOutsideRoot    Code = "PATH_OUTSIDE_ROOT"
	FileNotFound       Code = "FILE_NOT_FOUND"
	DocTypeUnsupported Code = "DOC_TYPE_UNSUPPORTED"
)

// Index/state (§14.3).
const (
	ConfigInvalid        Code = "CONFIG_INVALID"
	StoreCorrupt         Code = "STORE_CORRUPT"
	IndexVersionMismatch Code = "INDEX_VERSION_MISMATCH"
	IndexNotReady        Code = "INDEX_NOT_READY"
	IndexLocked          Code = "INDEX_LOCKED"
	RootInaccessible     Code = "ROOT_INACCESSIBLE"
	// StreamUnavailable: a NATS endpoint (--from/--to nats://…) could not
	// be reached or its stream set up.
	StreamUnavailable Code = "STREAM_UNAVAILABLE"
	// RecordInvalid: a record on a stream could not be read; it is parked
	// on the dead-letter subject.
	RecordInvalid Code = "RECORD_INVALID"
)

// Ingestion/extraction (§14.4).
const (
	ExtractFailed    Code = "EXTRACT_FAILED"
	OCRFailed        Code = "OCR_FAILED"
	TranscribeFailed Code = "TRANSCRIBE_FAILED"
	AnnotateFailed   Code = "ANNOTATE_FAILED"
	FileTooLarge     Code = "FILE_TOO_LARGE"
	BinarySkipped    Code = "BINARY_SKIPPED"
	SecretExcluded   Code = "SECRET_EXCLUDED"
	PathExcluded     Code = "PATH_EXCLUDED"
	AwaitingProvider Code = "AWAITING_PROVIDER"
	EmbedFailed      Code = "EMBED_FAILED"
)

// Provider/API (§14.5).
const (
	MistralAuth         Code = "MISTRAL_AUTH"
	MistralRateLimit    Code = "MISTRAL_RATE_LIMIT"
	MistralFailed       Code = "MISTRAL_FAILED"
	ElevenLabsAuth      Code = "ELEVENLABS_AUTH"
	ElevenLabsRateLimit Code = "ELEVENLABS_RATE_LIMIT"
	ElevenLabsFailed    Code = "ELEVENLABS_FAILED"
)

// Internal is used for unexpected failures with no better code.
const Internal Code = "INTERNAL"

// BuildUnsupported: the binary was built without a feature the index needs
// (SQLite FTS5: `-tags sqlite_fts5`); the message names the build command.
const BuildUnsupported Code = "BUILD_UNSUPPORTED"

// Error is an error with a canonical code. Message must never contain a
// secret.
type Error struct {
	Code      Code
	Message   string
	Retryable bool
	// Field names the offending input or config key path, when there is one.
	Field string
	// RetryAfterMs hints when a retryable error may succeed.
	RetryAfterMs int64
	Err          error // wrapped cause (not shown to clients)
}

func (e *Error) Error() string {
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// New returns a non-retryable *Error.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns a non-retryable *Error with cause err. Message should describe
// the failure without leaking secrets; err is kept for errors.Is/As.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// FieldError returns an input validation error naming field.
func FieldError(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// NotOneOf is the INVALID_FIELD error of a value of field outside allowed.
func NotOneOf(field, got string, allowed []string) *Error {
	return FieldError(InvalidField, field, "%s must be one of %s; got %q", field, strings.Join(allowed, ", "), got)
}

// OutOfRange is the INVALID_RANGE error of an integer field outside
// [lo, hi].
func OutOfRange(field string, lo, hi, got int64) *Error {
	return FieldError(InvalidRange, field, "%s must be between %d and %d, got %d", field, lo, hi, got)
}

// Of returns err's code, or Internal when err carries none.
func Of(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// As returns err as an *Error, wrapping an uncoded error as Internal.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: Internal, Message: err.Error(), Err: err}
}

// CLI exit codes (SPEC §2.4).
const (
	ExitOK             = 0
	ExitGeneric        = 1
	ExitConfigInvalid  = 2
	ExitRootInaccess   = 3
	ExitBindFailed     = 4
	ExitIndexLoad      = 5
	ExitIngestionFatal = 6
	// ExitInterrupted: stopped by SIGINT or SIGTERM (128 + SIGINT, as shells
	// report it).
	ExitInterrupted = 130
)

// ExitCode maps an error to the CLI exit code a user sees.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	switch Of(err) {
	case ConfigInvalid, TLSConfigInvalid:
		return ExitConfigInvalid
	case RootInaccessible:
		return ExitRootInaccess
	case BindFailed:
		return ExitBindFailed
	case StoreCorrupt, IndexVersionMismatch:
		return ExitIndexLoad
	case ExtractFailed:
		return ExitIngestionFatal
	}
	return ExitGeneric
}
