// Package mongoerr holds the only errors a client ever sees: MongoDB error
// codes, their codeNames and the error labels drivers act on.
//
// Invariant: every error that leaves the command layer is an *Error. Internal
// failures are wrapped with context and surface as InternalError (1).
package mongoerr

import (
	"errors"
	"fmt"
)

// Code is a MongoDB error code (src/mongo/base/error_codes.yml).
type Code int32

// Name returns the codeName MongoDB uses for c, or "Location<code>" for the
// numbered assertion codes that have no name.
func (c Code) Name() string {
	if n, ok := names[c]; ok {
		return n
	}
	return fmt.Sprintf("Location%d", int32(c))
}

// Error is a client-visible MongoDB error.
type Error struct {
	Code   Code
	Msg    string
	Labels []string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (%d): %s", e.Code.Name(), e.Code, e.Msg) }

// New returns an error with code and a formatted message.
func New(code Code, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Msg: format}
	}
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// WithLabels returns e with the given error labels added.
func (e *Error) WithLabels(labels ...string) *Error {
	c := *e
	c.Labels = append(append([]string(nil), e.Labels...), labels...)
	return &c
}

// From converts any error into an *Error: an *Error anywhere in err's chain
// is returned as is; anything else becomes InternalError with err's text.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var me *Error
	if errors.As(err, &me) {
		return me
	}
	return &Error{Code: InternalError, Msg: err.Error()}
}

// Is reports whether err carries the given code.
func Is(err error, code Code) bool {
	var me *Error
	return errors.As(err, &me) && me.Code == code
}

// Error labels drivers act on.
const (
	LabelRetryableWrite           = "RetryableWriteError"
	LabelTransientTransaction     = "TransientTransactionError"
	LabelUnknownTransactionCommit = "UnknownTransactionCommitResult"
	LabelNoWritesPerformed        = "NoWritesPerformed"
	LabelResumableChangeStream    = "ResumableChangeStreamError"
)

// Codes MongoDB names (ClientMetadataCannotBeMutated, UnsupportedOpQueryCommand)
// that relaydb has always reported as Location<code>; kept that way here.
// TODO(#14): report MongoDB's codeNames for 186 and 352 (compatibility).
const (
	ClientMetadataImmutable   Code = 186 // a second hello tried to change the client metadata
	UnsupportedOpQueryCommand Code = 352 // a legacy OP_QUERY command other than hello
)
