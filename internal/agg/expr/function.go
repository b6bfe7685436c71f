package expr

import (
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $function (MongoDB 4.4+): {body: <function source>, args: <array
// expression>, lang: "js"} calls the JavaScript function with the
// evaluated args through the operation's Script.
// TODO(#14): mongod refuses $function inside a collection validator
// (4660800); relaydb runs it.

func registerFunction() { operators["$function"] = compileFunction }

// funcCall is a compiled $function.
type funcCall struct {
	body   string
	args   Expr
	script lazyScript
}

// lazyScript is the Script of an operation whose Vars bring none: made
// once per compiled expression (a pipeline belongs to one operation), so
// its runtime and compiled functions are reused across documents.
type lazyScript struct {
	once sync.Once
	s    Script
}

// get returns vars' Script, or this expression's own.
func (l *lazyScript) get(vars *Vars) Script {
	if vars != nil && vars.Script != nil {
		return vars.Script
	}
	l.once.Do(func() { l.s = ScriptFor(nil) })
	return l.s
}

func compileFunction(name string, raw any, sc *scope) (Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.JSFunctionNotObject, "$function requires an object as an argument, found: %s", typeName(raw))
	}
	var body, args, lang any
	var hasBody, hasArgs, hasLang bool
	for _, e := range d {
		switch e.Key {
		case "body":
			body, hasBody = e.Value, true
		case "args":
			args, hasArgs = e.Value, true
		case "lang":
			lang, hasLang = e.Value, true
		}
	}
	src, err := functionBody(body, hasBody)
	if err != nil {
		return nil, err
	}
	if !hasArgs {
		return nil, mongoerr.New(mongoerr.JSFunctionNoArgs, "The args field must be specified.")
	}
	argsExpr, err := compile(args, sc)
	if err != nil {
		return nil, err
	}
	if err := checkLang(lang, hasLang); err != nil {
		return nil, err
	}
	return &funcCall{body: src, args: argsExpr}, nil
}

// functionBody checks $function's body: a constant string or Code.
func functionBody(body any, ok bool) (string, error) {
	if !ok {
		return "", mongoerr.New(mongoerr.JSFunctionNoBody, "The body function must be specified.")
	}
	switch x := body.(type) {
	case string:
		if len(x) > 0 && x[0] == '$' {
			return "", mongoerr.New(mongoerr.JSFunctionBodyNotConst, "The body function must be a constant expression")
		}
		return x, nil
	case bson.JavaScript:
		return string(x), nil
	case bson.D, bson.A:
		return "", mongoerr.New(mongoerr.JSFunctionBodyNotConst, "The body function must be a constant expression")
	}
	return "", mongoerr.New(mongoerr.JSFunctionBodyType, "The body function must evaluate to type string or code")
}

func checkLang(lang any, ok bool) error {
	if !ok {
		return mongoerr.New(mongoerr.JSFunctionNoLang, "The lang field must be specified.")
	}
	if s, isStr := lang.(string); !isStr || s != "js" {
		return mongoerr.New(mongoerr.JSFunctionBadLang, "Currently the only supported language specifier is 'js'.")
	}
	return nil
}

func (f *funcCall) Eval(doc bson.D, vars *Vars) (any, error) {
	a, err := f.args.Eval(doc, vars)
	if err != nil {
		return nil, err
	}
	arr, ok := a.(bson.A)
	if !ok {
		return nil, mongoerr.New(mongoerr.JSFunctionArgsNotArray, "The args field must be of type array")
	}
	return CallScript(f.script.get(vars), f.body, arr)
}

// CallScript compiles body with s (compiled functions are cached per
// Script) and calls it with args; JavaScript's undefined comes back as
// null. A nil s is a server without a JavaScript engine.
func CallScript(s Script, body string, args bson.A) (any, error) {
	if s == nil {
		return nil, mongoerr.New(mongoerr.JSFunctionNoEngine, "Cannot run server-side javascript without the javascript engine enabled")
	}
	fn, err := s.Function(body)
	if err != nil {
		return nil, err
	}
	v, err := fn(args)
	if _, undef := v.(bson.Undefined); undef {
		v = nil
	}
	return v, err
}
