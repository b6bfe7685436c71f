package wire

import (
	"errors"
	"fmt"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Sentinel kinds of framing errors; every *Error unwraps to one of them.
var (
	// ErrMessageTooLarge: a declared length (header or uncompressedSize)
	// exceeds the maximum.
	ErrMessageTooLarge = errors.New("message too large")
	// ErrMessageTooSmall: a declared length is below the protocol minimum.
	ErrMessageTooSmall = errors.New("message too small")
	// ErrTruncated: a field or document runs past the end of its message.
	ErrTruncated = errors.New("message truncated")
	// ErrMalformed: structurally invalid (bad section kind, duplicate body,
	// missing NUL, trailing bytes, ...).
	ErrMalformed = errors.New("malformed message")
	// ErrIllegalFlags: OP_MSG has required flag bits this server does not know.
	ErrIllegalFlags = errors.New("illegal OP_MSG flags")
	// ErrChecksum: the OP_MSG CRC-32C checksum does not match.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrCompressor: unknown compressor id.
	ErrCompressor = errors.New("unsupported compressor")
	// ErrDecompress: the compressed payload is corrupt or its size lies.
	ErrDecompress = errors.New("decompression failed")
)

// Error is a framing error with the MongoDB code a client would see.
type Error struct {
	Kind error         // one of the Err* sentinels
	Code mongoerr.Code // MongoDB error code for a reply
	Msg  string        // human-readable detail
	// fatal: the byte stream can no longer be trusted, or MongoDB classes
	// the code as ConnectionFatalMessageParseError.
	fatal bool
}

func (e *Error) Error() string { return "wire: " + e.Msg }

// Unwrap returns the sentinel kind so errors.Is(err, ErrChecksum) works.
func (e *Error) Unwrap() error { return e.Kind }

// Fatal reports whether the server must close the connection instead of
// replying: framing is lost (every ReadMessage error) or MongoDB treats the
// error as connection-fatal (illegal flags, checksum mismatch, compression).
func (e *Error) Fatal() bool { return e.fatal }

// MongoError returns the client-visible form of e.
func (e *Error) MongoError() *mongoerr.Error { return mongoerr.New(e.Code, "%s", e.Msg) }

func newErr(kind error, code mongoerr.Code, fatal bool, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Msg: fmt.Sprintf(format, args...), fatal: fatal}
}

// malformed is a non-fatal structural error (the message was framed
// correctly, so the server can still reply).
func malformed(code mongoerr.Code, format string, args ...any) *Error {
	return newErr(ErrMalformed, code, false, format, args...)
}

func truncated(format string, args ...any) *Error {
	return newErr(ErrTruncated, mongoerr.InvalidBSON, false, format, args...)
}

// IsFatal reports whether err (from any function of this package, or wrapping
// one) requires closing the connection. Non-wire errors (I/O) are fatal.
func IsFatal(err error) bool {
	var we *Error
	if errors.As(err, &we) {
		return we.fatal
	}
	return err != nil
}
