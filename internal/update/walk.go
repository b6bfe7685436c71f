package update

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// action is what a leaf decided for the value at its path.
type action int

const (
	actNone  action = iota // leave the value as it is
	actSet                 // store the returned value
	actUnset               // remove the field (null out an array element)
)

// leafFn computes the new value at a fully resolved path. old/exists
// describe the current value.
type leafFn func(old any, exists bool, path []string) (any, action, error)

// maxPad bounds how far past an array's end an update may write.
const maxPad = 1500000

// walker applies one leaf function at every path an update path resolves to.
type walker struct {
	st     *state
	leaf   leafFn
	create bool // create missing fields (false for $unset, $pull, $pop...)
}

// walkDoc applies w at path comps inside d and returns the updated d.
func (w *walker) walkDoc(d bson.D, comps []string) (bson.D, error) {
	nv, err := w.inDoc(d, comps, nil)
	if err != nil {
		return nil, err
	}
	return nv, nil
}

func (w *walker) inDoc(d bson.D, comps, prefix []string) (bson.D, error) {
	name := comps[0]
	if isArrayUpdate(name) {
		return nil, w.notArray(prefix, d)
	}
	p := appendPath(prefix, name)
	i := indexOf(d, name)
	if i < 0 {
		nv, act, err := w.at(nil, false, comps[1:], p, false)
		if err != nil || act != actSet {
			return d, err
		}
		return append(d, bson.E{Key: name, Value: nv}), nil
	}
	nv, act, err := w.at(d[i].Value, true, comps[1:], p, false)
	switch {
	case err != nil:
		return nil, err
	case act == actSet:
		d[i].Value = nv
	case act == actUnset:
		d = append(d[:i], d[i+1:]...)
	}
	return d, nil
}

func (w *walker) inArr(a bson.A, comps, prefix []string) (bson.A, error) {
	name := comps[0]
	if id, ok := arrayFilterID(name); ok {
		return w.eachElem(a, id, comps[1:], prefix)
	}
	idx, ok := arrayIndex(name)
	if !ok {
		if !w.create {
			return a, nil
		}
		return nil, w.notViable(name, prefix, a)
	}
	p := appendPath(prefix, name)
	if idx < len(a) {
		nv, act, err := w.at(a[idx], true, comps[1:], p, true)
		if err == nil && act == actSet {
			a[idx] = nv
		}
		return a, err
	}
	return w.pad(a, idx, comps[1:], p)
}

// pad writes past the end of a, filling the gap with nulls.
func (w *walker) pad(a bson.A, idx int, rest, p []string) (bson.A, error) {
	if idx-len(a) > maxPad {
		return nil, mongoerr.New(mongoerr.BadValue,
			"can't backfill array to larger than %d elements", maxPad)
	}
	nv, act, err := w.at(nil, false, rest, p, true)
	if err != nil || act != actSet {
		return a, err
	}
	for len(a) < idx {
		a = append(a, nil)
	}
	return append(a, nv), nil
}

// eachElem applies the rest of the path to every element ($[]) or every
// element matching array filter id ($[id]).
func (w *walker) eachElem(a bson.A, id string, rest, prefix []string) (bson.A, error) {
	var f *arrayFilter
	if id != "" {
		f = w.st.u.filters[id]
	}
	for i := range a {
		if f != nil && !f.matches(a[i]) {
			continue
		}
		nv, act, err := w.at(a[i], true, rest, appendPath(prefix, strconv.Itoa(i)), true)
		if err != nil {
			return nil, err
		}
		if act == actSet {
			a[i] = nv
		}
	}
	return a, nil
}

// at handles the value at path p (old, if exists) with rest still to walk.
// inArray says p names an array element, where unset means null.
func (w *walker) at(old any, exists bool, rest, p []string, inArray bool) (any, action, error) {
	if len(rest) == 0 {
		return w.callLeaf(old, exists, p, inArray)
	}
	if exists {
		return w.descend(old, rest, p)
	}
	if !w.create {
		return nil, actNone, nil
	}
	for i, c := range rest {
		if isArrayUpdate(c) {
			return nil, actNone, mongoerr.New(mongoerr.BadValue,
				"The path '%s' must exist in the document in order to apply array updates.",
				strings.Join(append(append([]string(nil), p...), rest[:i]...), "."))
		}
	}
	full := append(append([]string(nil), p...), rest...)
	nv, act, err := w.callLeaf(nil, false, full, false)
	if err != nil || act != actSet {
		return nil, actNone, err
	}
	for i := len(rest) - 1; i >= 0; i-- {
		nv = bson.D{{Key: rest[i], Value: nv}}
	}
	return nv, actSet, nil
}

// descend walks into an existing value that the path continues through.
func (w *walker) descend(old any, rest, p []string) (any, action, error) {
	switch c := old.(type) {
	case bson.D:
		nv, err := w.inDoc(c, rest, p)
		return nv, actSet, err
	case bson.A:
		nv, err := w.inArr(c, rest, p)
		return nv, actSet, err
	}
	if !w.create {
		return nil, actNone, nil
	}
	if isArrayUpdate(rest[0]) {
		return nil, actNone, w.notArray(p, old)
	}
	return nil, actNone, mongoerr.New(mongoerr.PathNotViable,
		"Cannot create field '%s' in element {%s}", rest[0], fmtElem(p[len(p)-1], old))
}

func (w *walker) callLeaf(old any, exists bool, p []string, inArray bool) (any, action, error) {
	nv, act, err := w.leaf(old, exists, p)
	if err != nil || act == actNone {
		return nil, actNone, err
	}
	if act == actUnset && inArray {
		if old == nil {
			return nil, actNone, nil // already null
		}
		nv, act = nil, actSet
	}
	if err := w.st.rec.record(p, act, w.st.ctx.IsInsert); err != nil {
		return nil, actNone, err
	}
	return nv, act, nil
}

func (w *walker) notArray(prefix []string, v any) error {
	name := ""
	if len(prefix) > 0 {
		name = prefix[len(prefix)-1]
	}
	return mongoerr.New(mongoerr.BadValue, "Cannot apply array updates to non-array element %s", fmtElem(name, v))
}

func (w *walker) notViable(field string, prefix []string, v any) error {
	return mongoerr.New(mongoerr.PathNotViable,
		"Cannot create field '%s' in element {%s}", field, fmtElem(prefix[len(prefix)-1], v))
}

func indexOf(d bson.D, key string) int {
	for i := range d {
		if d[i].Key == key {
			return i
		}
	}
	return -1
}

func appendPath(prefix []string, c string) []string {
	return append(append(make([]string, 0, len(prefix)+1), prefix...), c)
}

// arrayIndex parses a path component used as an array index.
func arrayIndex(c string) (int, bool) {
	if c == "" || len(c) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(c)
	return n, err == nil && n >= 0 && c[0] != '+' && c[0] != '-'
}
