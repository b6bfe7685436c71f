package spec

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// runnerError is a failure of the runner itself (unsupported operation or
// argument, unknown entity): it fails the test whatever the test expects.
type runnerError struct{ msg string }

func (e *runnerError) Error() string { return e.msg }

func runnerErrorf(format string, args ...any) error {
	return &runnerError{msg: fmt.Sprintf(format, args...)}
}

func unsupportedArg(op, key string) error {
	return runnerErrorf("runner: unsupported argument %q for %s", key, op)
}

func parseCollation(d bson.D) *options.Collation {
	c := &options.Collation{}
	for _, e := range d {
		switch e.Key {
		case "locale":
			c.Locale, _ = e.Value.(string)
		case "caseLevel":
			c.CaseLevel, _ = e.Value.(bool)
		case "caseFirst":
			c.CaseFirst, _ = e.Value.(string)
		case "strength":
			n, _ := asInt64(e.Value)
			c.Strength = int(n)
		case "numericOrdering":
			c.NumericOrdering, _ = e.Value.(bool)
		case "alternate":
			c.Alternate, _ = e.Value.(string)
		case "maxVariable":
			c.MaxVariable, _ = e.Value.(string)
		case "normalization":
			c.Normalization, _ = e.Value.(bool)
		case "backwards":
			c.Backwards, _ = e.Value.(bool)
		}
	}
	return c
}
