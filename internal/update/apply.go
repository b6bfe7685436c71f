package update

import (
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// state is the per-Apply context shared by the operators.
type state struct {
	u    *Update
	orig bson.D // the input document, for error messages
	ctx  ApplyContext
	rec  recorder
}

func newState(u *Update, doc bson.D, ctx ApplyContext) *state {
	return &state{u: u, orig: doc, ctx: ctx}
}

// idElem renders the document's _id as MongoDB's error messages do.
func (st *state) idElem() string {
	if v, ok := bsonx.Get(st.orig, "_id"); ok {
		return fmtElem("_id", v)
	}
	return ""
}

// resolve replaces the positional $ with the query's matched position.
func (st *state) resolve(p []string) ([]string, error) {
	for i, c := range p {
		if c != "$" {
			continue
		}
		if st.ctx.MatchedPos < 0 {
			return nil, mongoerr.New(mongoerr.BadValue,
				"The positional operator did not find the match needed from the query.")
		}
		q := append([]string(nil), p...)
		q[i] = strconv.Itoa(st.ctx.MatchedPos)
		return q, nil
	}
	return p, nil
}

// applyOp applies one operator to cur (owned by the caller) and returns it.
func (st *state) applyOp(cur bson.D, o *op) (bson.D, error) {
	if o.kind == opRename {
		return st.rename(cur, o)
	}
	p, err := st.resolve(o.path)
	if err != nil {
		return nil, err
	}
	w := &walker{st: st, leaf: st.leafFor(o), create: creates(o.kind)}
	return w.walkDoc(cur, p)
}

// creates reports whether an operator creates a missing field.
func creates(k opKind) bool {
	switch k {
	case opUnset, opPull, opPullAll, opPop:
		return false
	}
	return true
}

func (st *state) leafFor(o *op) leafFn {
	switch o.kind {
	case opSet, opSetOnInsert:
		return setLeaf(o.arg)
	case opUnset:
		return unsetLeaf
	case opInc, opMul:
		return st.arithLeaf(o)
	case opMin, opMax:
		return compareLeaf(o)
	case opCurrentDate:
		return st.currentDateLeaf(o)
	case opBit:
		return st.bitLeaf(o)
	case opPush:
		return st.pushLeaf(o)
	case opAddToSet:
		return st.addToSetLeaf(o)
	case opPop:
		return popLeaf(o)
	case opPull, opPullAll:
		return pullLeaf(o)
	}
	panic("update: no leaf for " + string(o.kind))
}

func setLeaf(v any) leafFn {
	return func(old any, exists bool, _ []string) (any, action, error) {
		if exists && identical(old, v) {
			return nil, actNone, nil
		}
		return bsonx.Clone(v), actSet, nil
	}
}

func unsetLeaf(_ any, exists bool, _ []string) (any, action, error) {
	if !exists {
		return nil, actNone, nil
	}
	return nil, actUnset, nil
}

func compareLeaf(o *op) leafFn {
	return func(old any, exists bool, _ []string) (any, action, error) {
		if exists {
			c := bsonx.CompareColl(o.arg, old, o.coll)
			if (o.kind == opMin && c >= 0) || (o.kind == opMax && c <= 0) {
				return nil, actNone, nil
			}
		}
		return bsonx.Clone(o.arg), actSet, nil
	}
}

func (st *state) currentDateLeaf(o *op) leafFn {
	return func(old any, exists bool, _ []string) (any, action, error) {
		var v any = bson.NewDateTimeFromTime(st.ctx.Now)
		if o.dateTS {
			// TODO(#2): use the oplog's next timestamp, as MongoDB does.
			v = bson.Timestamp{T: uint32(st.ctx.Now.Unix()), I: 1}
		}
		if exists && identical(old, v) {
			return nil, actNone, nil
		}
		return v, actSet, nil
	}
}
