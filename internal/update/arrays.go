package update

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func (st *state) pushLeaf(o *op) leafFn {
	return func(old any, exists bool, p []string) (any, action, error) {
		var arr bson.A
		if exists {
			a, ok := old.(bson.A)
			if !ok {
				return nil, actNone, mongoerr.New(mongoerr.BadValue,
					"The field '%s' must be an array but is of type %s in document {%s}",
					p[len(p)-1], typeName(old), st.idElem())
			}
			arr = a
		}
		res := o.push.apply(arr)
		if exists && identical(res, old) {
			return nil, actNone, nil
		}
		return res, actSet, nil
	}
}

// apply returns a new array: arr with $each inserted at $position, then
// sorted by $sort, then cut by $slice.
func (p *pushSpec) apply(arr bson.A) bson.A {
	pos := int64(len(arr))
	if p.hasPos {
		pos = p.pos
		if pos < 0 {
			pos = max(0, int64(len(arr))+pos)
		}
		pos = min(pos, int64(len(arr)))
	}
	res := make(bson.A, 0, len(arr)+len(p.each))
	res = append(res, arr[:pos]...)
	for _, v := range p.each {
		res = append(res, bsonx.Clone(v))
	}
	res = append(res, arr[pos:]...)
	if p.sort != nil {
		sort.SliceStable(res, func(i, j int) bool { return p.sort.less(res[i], res[j]) })
	}
	if p.hasSlice {
		res = sliceArray(res, p.slice)
	}
	return res
}

func sliceArray(a bson.A, n int64) bson.A {
	l := int64(len(a))
	if n >= 0 {
		return a[:min(n, l)]
	}
	return a[l-min(-n, l):]
}

func (s *sortSpec) less(a, b any) bool {
	if s.fields == nil {
		return s.dir*bsonx.CompareColl(a, b, s.coll) < 0
	}
	for _, f := range s.fields {
		va, vb := sortKey(a, f.Key), sortKey(b, f.Key)
		if c := bsonx.CompareColl(va, vb, s.coll); c != 0 {
			return f.Value.(int)*c < 0
		}
	}
	return false
}

// sortKey extracts a $sort field from an element; missing sorts as null.
func sortKey(v any, path string) any {
	d, ok := v.(bson.D)
	if !ok {
		return nil
	}
	k, ok := bsonx.GetPath(d, path)
	if !ok {
		return nil
	}
	return k
}

func (st *state) addToSetLeaf(o *op) leafFn {
	return func(old any, exists bool, p []string) (any, action, error) {
		var arr bson.A
		if exists {
			a, ok := old.(bson.A)
			if !ok {
				return nil, actNone, mongoerr.New(mongoerr.BadValue,
					"Cannot apply $addToSet to non-array field. Field named '%s' has non-array type %s",
					p[len(p)-1], typeName(old))
			}
			arr = a
		}
		res := append(bson.A{}, arr...)
		for _, v := range o.push.each {
			if !containsEqual(res, v, o.coll) {
				res = append(res, bsonx.Clone(v))
			}
		}
		if exists && len(res) == len(arr) {
			return nil, actNone, nil
		}
		return res, actSet, nil
	}
}

func containsEqual(a bson.A, v any, coll bsonx.Collator) bool {
	for _, e := range a {
		if bsonx.CompareColl(e, v, coll) == 0 {
			return true
		}
	}
	return false
}

func popLeaf(o *op) leafFn {
	return func(old any, exists bool, p []string) (any, action, error) {
		if !exists {
			return nil, actNone, nil
		}
		a, ok := old.(bson.A)
		if !ok {
			return nil, actNone, mongoerr.New(mongoerr.TypeMismatch,
				"Path '%s' contains an element of non-array type '%s'", joinPath(p), typeName(old))
		}
		if len(a) == 0 {
			return nil, actNone, nil
		}
		if o.popLast {
			return append(bson.A{}, a[:len(a)-1]...), actSet, nil
		}
		return append(bson.A{}, a[1:]...), actSet, nil
	}
}

func pullLeaf(o *op) leafFn {
	return func(old any, exists bool, p []string) (any, action, error) {
		if !exists {
			return nil, actNone, nil
		}
		a, ok := old.(bson.A)
		if !ok {
			return nil, actNone, mongoerr.New(mongoerr.BadValue, "Cannot apply %s to a non-array value", o.kind)
		}
		res := bson.A{}
		for _, e := range a {
			if !o.pulls(e) {
				res = append(res, e)
			}
		}
		if len(res) == len(a) {
			return nil, actNone, nil
		}
		return res, actSet, nil
	}
}

// pulls reports whether $pull / $pullAll removes array element e.
func (o *op) pulls(e any) bool {
	if o.kind == opPull {
		return o.pull.matches(e)
	}
	return containsEqual(o.arg.(bson.A), e, o.coll)
}
