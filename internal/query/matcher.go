package query

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
)

// Matcher is a compiled query filter. It is immutable and safe for
// concurrent use, except with a $where clause: then it belongs to one
// operation, whose JavaScript it runs, and records the first evaluation
// error (Err).
type Matcher struct {
	root node
	sink *errSink // nil without $where
}

// Err returns the first error a $where clause met (an exception, a time
// limit); once set, no document matches. Executors check it after a
// document fails to match.
func (m *Matcher) Err() error {
	if m.sink == nil {
		return nil
	}
	return m.sink.err
}

// matchState carries what a match records besides its verdict.
type matchState struct {
	// pos is the array index matched by the first array the matching path
	// traversed, for the positional $ operator; -1 if none.
	pos int
	// vars, if not nil, overrides the variables $expr was compiled with.
	vars *expr.Vars
}

// node is a compiled filter predicate over a whole document.
type node interface {
	match(doc bson.D, st *matchState) bool
}

// Compile parses and validates a query filter.
func Compile(filter bson.D) (*Matcher, error) { return CompileWithVars(filter, nil) }

// CompileWithVars is Compile for a filter whose $expr clauses may reference
// the user variables bound in vars (a command's "let", see expr.EvalLet)
// and whose $$NOW is vars.Now. vars may be nil.
func CompileWithVars(filter bson.D, vars *expr.Vars) (*Matcher, error) {
	c := &compiler{vars: vars, noWhere: true}
	root, err := c.parseDoc(filter, 0)
	if err != nil {
		return nil, err
	}
	return &Matcher{root: root}, nil
}

// Match reports whether doc satisfies the filter.
func (m *Matcher) Match(doc bson.D) bool {
	ok, _ := m.MatchPos(doc)
	return ok
}

// MatchPos reports whether doc satisfies the filter and, if so, the array
// index matched by the first array a matching path traversed (what the
// positional $ operator of projections and updates refers to), or -1.
// When several conjuncts traverse arrays, the last one wins, as in MongoDB.
func (m *Matcher) MatchPos(doc bson.D) (ok bool, pos int) {
	return m.MatchVars(doc, nil)
}

// MatchVars is MatchPos with $expr evaluated under vars instead of the
// variables given to CompileWithVars (nil keeps those). It serves filters
// whose variables change per evaluation, as in a $lookup sub-pipeline;
// vars must bind every name the filter was compiled with.
func (m *Matcher) MatchVars(doc bson.D, vars *expr.Vars) (ok bool, pos int) {
	st := matchState{pos: -1, vars: vars}
	if !m.root.match(doc, &st) {
		return false, -1
	}
	return true, st.pos
}

// andNode matches when all children match (and matches everything when
// empty, as the filter {} does).
type andNode []node

func (n andNode) match(doc bson.D, st *matchState) bool {
	for _, c := range n {
		if !c.match(doc, st) {
			return false
		}
	}
	return true
}

// orNode matches when some child matches; only that child's position is
// recorded.
type orNode []node

func (n orNode) match(doc bson.D, st *matchState) bool {
	for _, c := range n {
		local := matchState{pos: st.pos, vars: st.vars}
		if c.match(doc, &local) {
			*st = local
			return true
		}
	}
	return false
}

// notNode negates its child; it never records a position.
type notNode struct{ child node }

func (n notNode) match(doc bson.D, st *matchState) bool {
	return !n.child.match(doc, &matchState{pos: -1, vars: st.vars})
}

// norNode matches when no child matches.
type norNode []node

func (n norNode) match(doc bson.D, st *matchState) bool {
	for _, c := range n {
		if c.match(doc, &matchState{pos: -1, vars: st.vars}) {
			return false
		}
	}
	return true
}

// constNode always or never matches ($alwaysTrue, $alwaysFalse, $all: []).
type constNode bool

func (n constNode) match(bson.D, *matchState) bool { return bool(n) }

// pathNode applies a value predicate to each candidate value of a path and
// matches if any candidate does.
type pathNode struct {
	w walker
	m valueMatcher
}

func (n pathNode) match(doc bson.D, st *matchState) bool {
	pm, hasPos := n.m.(posMatcher)
	return n.w.walk(doc, func(v any, missing bool, pos int) bool {
		if hasPos && !missing {
			ok, inner := pm.matchPos(v)
			if ok {
				st.pos = firstPos(pos, inner)
			}
			return ok
		}
		if n.m.matchValue(v, missing) {
			if pos >= 0 {
				st.pos = pos
			}
			return true
		}
		return false
	})
}

// valueMatcher is a predicate on one value (what MongoDB calls
// matchesSingleElement). missing reports a path that led nowhere.
type valueMatcher interface {
	matchValue(v any, missing bool) bool
}

// posMatcher is a valueMatcher that can report which element of an array
// value matched ($elemMatch).
type posMatcher interface {
	matchPos(v any) (bool, int)
}

// notValue negates a value predicate (inside $elemMatch).
type notValue struct{ m valueMatcher }

func (n notValue) matchValue(v any, missing bool) bool { return !n.m.matchValue(v, missing) }

// andValue is a conjunction of value predicates.
type andValue []valueMatcher

func (n andValue) matchValue(v any, missing bool) bool {
	for _, m := range n {
		if !m.matchValue(v, missing) {
			return false
		}
	}
	return true
}
