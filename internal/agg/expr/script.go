package expr

import (
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Script is server-side JavaScript ($where, $function, $accumulator), as
// package js implements it. A Script belongs to one operation: it carries
// the operation's time limit and is not shared between operations.
type Script interface {
	// Where compiles $where code into a predicate over whole documents.
	Where(code string) (func(doc bson.D) (bool, error), error)
	// Function compiles a JavaScript function called with BSON arguments.
	Function(body string) (func(args []any) (any, error), error)
}

// newScript makes a Script for an operation that brought none in its
// Vars (no maxTimeMS); nil until package js registers itself.
var newScript atomic.Pointer[func() Script]

// RegisterScript sets how operations without a Script in their Vars get
// one (package js calls it from init; the pure packages never import js).
func RegisterScript(f func() Script) { newScript.Store(&f) }

// ScriptFor returns vars' Script, or a new one from RegisterScript's
// factory, or nil when no JavaScript engine is linked in.
func ScriptFor(vars *Vars) Script {
	if vars != nil && vars.Script != nil {
		return vars.Script
	}
	if f := newScript.Load(); f != nil {
		return (*f)()
	}
	return nil
}

// WithScript returns a copy of v (which may be nil) carrying s.
func (v *Vars) WithScript(s Script) *Vars {
	var c Vars
	if v != nil {
		c = *v
	}
	c.Script = s
	return &c
}
