package expr

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// scope lists the user variables defined where an expression is compiled.
type scope struct {
	name string
	next *scope
	info *compileInfo // shared by every scope of one compilation, or nil
}

// compileInfo records what a compiled expression depends on.
type compileInfo struct {
	// docAccess is set when the expression reads the document (a field
	// path, $$ROOT or $$CURRENT).
	docAccess bool
	// coll orders strings in comparisons (collation.go); nil: binary.
	coll bsonx.Collator
}

// noteDocAccess records that the expression being compiled reads the
// document.
func (s *scope) noteDocAccess() {
	if s != nil && s.info != nil {
		s.info.docAccess = true
	}
}

func (s *scope) has(name string) bool {
	for ; s != nil; s = s.next {
		if s.name == name {
			return true
		}
	}
	return false
}

func (s *scope) with(names ...string) *scope {
	var info *compileInfo
	if s != nil {
		info = s.info
	}
	for _, n := range names {
		s = &scope{name: n, next: s, info: info}
	}
	return s
}

// Compile compiles an aggregation expression. Only system variables
// ($$ROOT, $$CURRENT, $$REMOVE, $$NOW) may be referenced.
func Compile(v any) (Expr, error) { return compile(v, nil) }

// CompileWithVars compiles v where the user variables named in vars (bound
// at Eval time through Vars.Bind, e.g. from a command's "let") are defined.
func CompileWithVars(v any, vars []string) (Expr, error) {
	return compile(v, (*scope)(nil).with(vars...))
}

// CompileObject compiles a document whose fields are all expressions (no
// operator at top level), e.g. the body of $addFields or a $group _id doc.
func CompileObject(d bson.D, vars []string) (Expr, error) {
	return compileDoc(d, (*scope)(nil).with(vars...))
}

func compile(v any, sc *scope) (Expr, error) {
	switch t := v.(type) {
	case string:
		return compileString(t, sc)
	case bson.D:
		if len(t) > 0 && strings.HasPrefix(t[0].Key, "$") {
			return compileOperator(t, sc)
		}
		return compileDoc(t, sc)
	case bson.A:
		return compileArray(t, sc)
	case bson.M:
		return nil, mongoerr.New(mongoerr.BadValue, "expression documents must be ordered (bson.D)")
	}
	return constant{v}, nil
}

func compileString(s string, sc *scope) (Expr, error) {
	if !strings.HasPrefix(s, "$") {
		return constant{s}, nil
	}
	if strings.HasPrefix(s, "$$") {
		return compileVariable(s[2:], sc)
	}
	path, err := splitPath(s[1:])
	if err != nil {
		return nil, err
	}
	sc.noteDocAccess()
	return &fieldPath{path: path}, nil
}

func splitPath(p string) ([]string, error) {
	if p == "" {
		return nil, mongoerr.New(mongoerr.FieldPathDollarOnly, "'$' by itself is not a valid FieldPath")
	}
	parts := strings.Split(p, ".")
	for _, part := range parts {
		if part == "" {
			return nil, mongoerr.New(mongoerr.FieldPathEmptyName, "FieldPath field names may not be empty strings.")
		}
		if strings.HasPrefix(part, "$") {
			return nil, mongoerr.New(mongoerr.FieldPathDollarPrefixed, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
		}
	}
	return parts, nil
}

func compileVariable(s string, sc *scope) (Expr, error) {
	name, rest, _ := strings.Cut(s, ".")
	var path []string
	if rest != "" || strings.Contains(s, ".") {
		p, err := splitPath(rest)
		if err != nil {
			return nil, err
		}
		path = p
	}
	switch name {
	case "ROOT", "CURRENT":
		sc.noteDocAccess()
		return &variable{name: name, system: true, path: path}, nil
	case "REMOVE", "NOW", "CLUSTER_TIME":
		return &variable{name: name, system: true, path: path}, nil
	}
	if name == "" {
		return nil, mongoerr.New(mongoerr.VariableNameEmpty, "empty variable names are not allowed")
	}
	if !sc.has(name) {
		return nil, mongoerr.New(mongoerr.UndefinedVariable, "Use of undefined variable: %s", name)
	}
	return &variable{name: name, path: path}, nil
}

func compileDoc(d bson.D, sc *scope) (Expr, error) {
	e := &docExpr{keys: make([]string, len(d)), vals: make([]Expr, len(d))}
	seen := make(map[string]bool, len(d))
	for i, el := range d {
		if err := checkFieldName(el.Key); err != nil {
			return nil, err
		}
		if seen[el.Key] {
			return nil, mongoerr.New(mongoerr.ObjectLiteralDuplicateField, "duplicate field name specified in object literal: %s", el.Key)
		}
		seen[el.Key] = true
		sub, err := compile(el.Value, sc)
		if err != nil {
			return nil, err
		}
		e.keys[i], e.vals[i] = el.Key, sub
	}
	return e, nil
}

func checkFieldName(k string) error {
	switch {
	case k == "":
		return mongoerr.New(mongoerr.FieldNameInvalid, "FieldPath field names may not be empty strings.")
	case strings.HasPrefix(k, "$"):
		return mongoerr.New(mongoerr.FieldNameDollarPrefixed, "FieldPath field names may not start with '$'. Consider using $getField or $setField.")
	case strings.Contains(k, "."):
		return mongoerr.New(mongoerr.FieldNameInvalid, "FieldPath field names may not contain '.'. Consider using $getField or $setField.")
	}
	return nil
}

func compileArray(a bson.A, sc *scope) (Expr, error) {
	e := &arrayExpr{elems: make([]Expr, len(a))}
	for i, v := range a {
		sub, err := compile(v, sc)
		if err != nil {
			return nil, err
		}
		e.elems[i] = sub
	}
	return e, nil
}

func compileOperator(d bson.D, sc *scope) (Expr, error) {
	if len(d) != 1 {
		return nil, mongoerr.New(mongoerr.ExpressionNotSingleField, "an expression specification must contain exactly one field, the name of the expression. Found %d fields in %v", len(d), d)
	}
	name, args := d[0].Key, d[0].Value
	op, ok := operators[name]
	if !ok {
		return nil, mongoerr.New(mongoerr.InvalidPipelineOperator, "Unrecognized expression '%s'", name)
	}
	return op(name, args, sc)
}

// argList returns an operator's arguments: an array's elements, or the
// single non-array argument.
func argList(args any) bson.A {
	if a, ok := args.(bson.A); ok {
		return a
	}
	return bson.A{args}
}

func compileArgs(args bson.A, sc *scope) ([]Expr, error) {
	out := make([]Expr, len(args))
	for i, a := range args {
		e, err := compile(a, sc)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}
