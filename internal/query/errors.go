package query

import (
	"fmt"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// maxDepth bounds the nesting of logical operators and $elemMatch, as
// MongoDB's "exceeded maximum query tree depth".
const maxDepth = 100

func badValue(format string, args ...any) error {
	return mongoerr.New(mongoerr.BadValue, format, args...)
}

func notImplemented(format string, args ...any) error {
	return mongoerr.New(mongoerr.NotImplemented, format, args...)
}

func codeErr(code mongoerr.Code, format string, args ...any) error {
	return mongoerr.New(code, format, args...)
}

// show renders a value for an error message, roughly as the shell would.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", v)
}
