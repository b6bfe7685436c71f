package spec

import (
	"fmt"
	"slices"

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

// This file maps an operation's arguments onto a driver options builder
// through a table: one entry per argument the operation takes, built from
// the builder's own setters as method expressions, e.g.
// anyArg((*options.FindOptionsBuilder).SetSort). An argument missing from
// the table is a runner failure (unsupportedArg), never silently dropped.

// argSetter applies one argument's value to an options builder.
type argSetter[T any] func(o T, v any) error

// argTable is the arguments an operation accepts. A nil setter marks an
// argument the operation reads itself (filter, document, ...).
type argTable[T any] map[string]argSetter[T]

// apply applies args to o in order; the first unsupported argument or
// setter error stops it.
func (t argTable[T]) apply(opName string, o T, args bson.D) error {
	for _, e := range args {
		set, ok := t[e.Key]
		if !ok {
			return unsupportedArg(opName, e.Key)
		}
		if set == nil {
			continue
		}
		if err := set(o, e.Value); err != nil {
			return err
		}
	}
	return nil
}

func anyArg[T any](set func(T, any) T) argSetter[T] {
	return func(o T, v any) error { set(o, v); return nil }
}

// boolArg asserts a boolean, as the spec files always give one.
func boolArg[T any](set func(T, bool) T) argSetter[T] {
	return func(o T, v any) error { set(o, v.(bool)); return nil }
}

func int64ArgOf[T any](set func(T, int64) T) argSetter[T] {
	return func(o T, v any) error { set(o, int64Arg(v)); return nil }
}

func int32ArgOf[T any](set func(T, int32) T) argSetter[T] {
	return func(o T, v any) error { set(o, int32Arg(v)); return nil }
}

func collationArg[T any](set func(T, *options.Collation) T) argSetter[T] {
	return func(o T, v any) error { set(o, parseCollation(v.(bson.D))); return nil }
}

// rawDataArg sets rawData through the driver's xoptions.SetInternal*.
func rawDataArg[T any](set func(T, string, any) error) argSetter[T] {
	return func(o T, v any) error { return set(o, "rawData", v) }
}

// filterArg is the filter argument, {} when absent.
func filterArg(args bson.D) any {
	if v, ok := lookup(args, "filter"); ok {
		return v
	}
	return bson.D{}
}

// commandArgs appends to cmd the arguments named in pass, skipping those
// in skip (read by the caller); any other argument is unsupported. It is
// the body of the raw-command fallbacks that forward options verbatim.
func commandArgs(opName string, cmd, args bson.D, skip []string, pass ...string) (bson.D, error) {
	for _, e := range args {
		switch {
		case slices.Contains(skip, e.Key):
		case slices.Contains(pass, e.Key):
			cmd = append(cmd, e)
		default:
			return nil, unsupportedArg(opName, e.Key)
		}
	}
	return cmd, nil
}
