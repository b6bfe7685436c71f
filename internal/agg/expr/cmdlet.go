package expr

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// EvalLet evaluates a command's "let" document (find, aggregate, update,
// delete, findAndModify) into variables, as MongoDB does before a command
// looks at any document:
//   - each name is validated (ValidateVarName: 16866/16867/16868);
//   - each value is an expression that may use system variables ($$NOW,
//     $$CLUSTER_TIME, $$REMOVE) and the variables defined before it, but no
//     field path, $$ROOT or $$CURRENT (4890500);
//   - each value is evaluated once, so {$rand: {}} is one number for the
//     whole command.
//
// base supplies $$NOW, $$CLUSTER_TIME and any variables already in scope;
// it may be nil, in which case $$NOW is the wall clock at this call. The
// result is base with the let variables bound (base itself if let is
// empty, apart from fixing $$NOW).
func EvalLet(let bson.D, base *Vars) (*Vars, error) {
	vars := base.withFixedNow()
	info := &compileInfo{}
	sc := &scope{info: info} // sentinel with an empty name: matches no variable
	sc = sc.with(vars.Names()...)
	for _, el := range let {
		if err := ValidateVarName(el.Key); err != nil {
			return nil, err
		}
		e, err := compile(el.Value, sc)
		if err != nil {
			return nil, err
		}
		if info.docAccess {
			return nil, mongoerr.New(mongoerr.CommandLetFieldAccess, "Command let Expression tried to access a field, but this is not allowed because command let expressions run before the query examines any documents.")
		}
		v, err := e.Eval(bson.D{}, vars)
		if err != nil {
			return nil, err
		}
		vars = vars.Bind(el.Key, v)
		sc = sc.with(el.Key)
	}
	return vars, nil
}

// withFixedNow returns a copy of v (which may be nil) whose $$NOW is set.
func (v *Vars) withFixedNow() *Vars {
	var c Vars
	if v != nil {
		c = *v
	}
	if c.Now.IsZero() {
		c.Now = time.Now()
	}
	return &c
}

// Names returns the names of the user variables bound in v, innermost
// first, without duplicates. Pass them to CompileWithVars so expressions
// may reference them.
func (v *Vars) Names() []string {
	if v == nil {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for f := v.frame; f != nil; f = f.next {
		if !seen[f.name] {
			seen[f.name] = true
			names = append(names, f.name)
		}
	}
	return names
}
