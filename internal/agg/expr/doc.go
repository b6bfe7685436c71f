// Package expr compiles and evaluates MongoDB aggregation expressions
// (field paths "$a.b", variables "$$x", literals, {$op: args}, documents and
// arrays of expressions). It is pure: no I/O, no goroutines.
//
// Invariants:
//   - A missing value (a field path that resolves to nothing, $$REMOVE, an
//     out-of-range $arrayElemAt) is the sentinel Missing, never nil; nil is
//     BSON null. Callers building documents drop fields whose value is
//     Missing; arrays built by expressions turn Missing into null.
//   - Compile resolves operators and variable names once; Eval never parses.
//     Unknown operators fail at compile time with InvalidPipelineOperator
//     (168), undefined variables with 17276.
//   - Eval does not mutate doc or any value reachable from vars; results may
//     share structure with the input, so callers that mutate must Clone.
//   - Client-facing failures are *mongoerr.Error with MongoDB's codes.
package expr

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// MissingValue is the type of Missing.
type MissingValue struct{}

// Missing is the value of an expression that resolves to nothing (distinct
// from BSON null, which is nil).
var Missing = MissingValue{}

// IsMissing reports whether v is Missing.
func IsMissing(v any) bool { _, ok := v.(MissingValue); return ok }

// IsNullish reports whether v is null, undefined or Missing.
func IsNullish(v any) bool {
	switch v.(type) {
	case nil, MissingValue, bson.Undefined:
		return true
	}
	return false
}

// Expr is a compiled expression.
type Expr interface {
	// Eval evaluates the expression against doc ($$CURRENT). vars may be nil.
	Eval(doc bson.D, vars *Vars) (any, error)
}

// Vars holds the variables visible to an evaluation: $$ROOT, $$NOW and user
// variables bound by $let/$map/$filter/$reduce or by the caller. A Vars is
// immutable once built; Bind returns a new one sharing the parent.
type Vars struct {
	Root    bson.D
	HasRoot bool
	Now     time.Time
	// ClusterTime is $$CLUSTER_TIME; zero means unavailable (standalone),
	// and referencing it fails with 51144.
	ClusterTime bson.Timestamp
	// Script runs the operation's JavaScript (script.go); nil: ScriptFor
	// makes one without a time limit.
	Script Script
	frame  *frame
}

type frame struct {
	name string
	val  any
	next *frame
}

// NewVars returns variables with $$ROOT bound to root and $$NOW to now.
func NewVars(root bson.D, now time.Time) *Vars {
	return &Vars{Root: root, HasRoot: true, Now: now}
}

// WithRoot returns a copy of v (which may be nil) with $$ROOT set to root.
func (v *Vars) WithRoot(root bson.D) *Vars {
	var c Vars
	if v != nil {
		c = *v
	}
	c.Root, c.HasRoot = root, true
	return &c
}

// WithNow returns a copy of v (which may be nil) with $$NOW set to now.
func (v *Vars) WithNow(now time.Time) *Vars {
	var c Vars
	if v != nil {
		c = *v
	}
	c.Now = now
	return &c
}

// Bind returns a copy of v (which may be nil) with user variable name bound.
func (v *Vars) Bind(name string, val any) *Vars {
	var c Vars
	if v != nil {
		c = *v
	}
	c.frame = &frame{name: name, val: val, next: c.frame}
	return &c
}

// Lookup returns the value of user variable name.
func (v *Vars) Lookup(name string) (any, bool) {
	if v == nil {
		return nil, false
	}
	for f := v.frame; f != nil; f = f.next {
		if f.name == name {
			return f.val, true
		}
	}
	return nil, false
}

func (v *Vars) now() time.Time {
	if v == nil || v.Now.IsZero() {
		return time.Now()
	}
	return v.Now
}
