package js

import (
	"strings"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Where compiles $where code: a function ("function() { return ... }"),
// an expression ("this.x < 3") or a function body ("return this.x < 3").
// The predicate calls it with this (and the global obj) bound to the
// document; a truthy result matches.
func (s *Session) Where(code string) (func(doc bson.D) (bool, error), error) {
	if !Enabled() {
		return nil, mongoerr.New(mongoerr.JSWhereNoEngine, "no globalScriptEngine in $where parsing")
	}
	fn, err := s.compile(code, whereForms)
	if err != nil {
		return nil, err
	}
	return func(doc bson.D) (bool, error) {
		v, err := s.run(func(rt *goja.Runtime) (goja.Value, error) {
			this, err := s.cv.toJS(doc, 0)
			if err != nil {
				return nil, err
			}
			if err := rt.Set("obj", this); err != nil {
				return nil, err
			}
			return fn(this)
		})
		if err != nil {
			return false, err
		}
		return v.ToBoolean(), nil
	}, nil
}

// Function compiles a function ($function's body, $accumulator's
// functions); the result calls it with the arguments converted to
// JavaScript and converts its result back.
func (s *Session) Function(body string) (func(args []any) (any, error), error) {
	if !Enabled() {
		return nil, mongoerr.New(mongoerr.JSFunctionNoEngine, "Cannot run server-side javascript without the javascript engine enabled")
	}
	fn, err := s.compile(body, functionForms)
	if err != nil {
		return nil, err
	}
	return func(args []any) (any, error) {
		var out any
		_, err := s.run(func(rt *goja.Runtime) (goja.Value, error) {
			vals := make([]goja.Value, len(args))
			for i, a := range args {
				v, err := s.cv.toJS(a, 0)
				if err != nil {
					return nil, err
				}
				vals[i] = v
			}
			r, err := fn(goja.Undefined(), vals...)
			if err != nil {
				return nil, err
			}
			out, err = s.cv.toBSON(r, 0)
			return r, err
		})
		return out, err
	}, nil
}

// A form wraps source into a program whose value is a function.
type form func(code string) string

var (
	asFunction   form = func(c string) string { return "(" + c + "\n)" }
	asExpression form = func(c string) string { return "(function () { return (" + c + "\n); })" }
	asBody       form = func(c string) string { return "(function () {" + c + "\n})" }
	// whereForms: a function if it starts with one, else an expression,
	// else a body.
	whereForms    = []form{asExpression, asBody}
	functionForms = []form{asFunction}
)

// compile turns source into a callable, trying forms in order; the error
// is the last form's. Compiling runs no user code: a form's program only
// evaluates a function expression.
func (s *Session) compile(code string, forms []form) (goja.Callable, error) {
	if len(code) > MaxSourceBytes {
		return nil, tooLarge("the JavaScript source", len(code))
	}
	if strings.TrimSpace(code) == "" {
		return nil, mongoerr.New(mongoerr.BadValue, "code for $where cannot be empty")
	}
	if len(forms) > 1 && strings.HasPrefix(strings.TrimSpace(code), "function") {
		// A function, unless it only starts with a declaration
		// ("function f() {...}; return f()").
		forms = append([]form{asFunction}, forms...)
	}
	var fn goja.Callable
	_, err := s.run(func(rt *goja.Runtime) (goja.Value, error) {
		if c, ok := s.cache[code]; ok {
			fn = c
			return nil, nil
		}
		var err error
		fn, err = s.compileForms(rt, code, forms)
		if err == nil && len(s.cache) < maxCached {
			s.cache[code] = fn
		}
		return nil, err
	})
	return fn, err
}

func (s *Session) compileForms(rt *goja.Runtime, code string, forms []form) (goja.Callable, error) {
	var err error
	for _, f := range forms {
		var p *goja.Program
		if p, err = goja.Compile("", f(code), false); err != nil {
			continue
		}
		v, err := rt.RunProgram(p)
		if err != nil {
			return nil, err
		}
		if fn, ok := goja.AssertFunction(v); ok {
			return fn, nil
		}
		return nil, mongoerr.New(mongoerr.JSInterpreterFailure, "the JavaScript code is not a function: %s", v.String())
	}
	return nil, err
}
