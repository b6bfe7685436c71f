package agg

import (
	"slices"
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg/expr"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/query"
)

// The N accumulators ($firstN, $lastN, $maxN, $minN, $topN, $bottomN and
// the single-valued $top and $bottom) keep at most n values per group.
// Their argument expression (nArg) evaluates, per document, to an nItem:
// n, the output value and, for $top/$bottom, the document's sort key; n is
// taken (and checked) from the group's first document, as MongoDB's.
//
// Invariant: multiAcc.items is ordered best-to-keep first (see rank) and
// holds at most n items; its result is items in output order. partial()
// is the result order as [[value, keyDoc], ...]; re-adding those in order
// gives the same state, so spilled groups merge exactly.

type nKind int

const (
	kFirstN nKind = iota
	kLastN
	kMaxN
	kMinN
	kTopN
	kBottomN
)

var nAccumulators = map[string]struct {
	kind   nKind
	single bool // $top/$bottom: n is 1 and the result is the value itself
}{
	"$firstN": {kind: kFirstN}, "$lastN": {kind: kLastN}, "$maxN": {kind: kMaxN}, "$minN": {kind: kMinN},
	"$topN": {kind: kTopN}, "$bottomN": {kind: kBottomN},
	"$top": {kind: kTopN, single: true}, "$bottom": {kind: kBottomN, single: true},
}

type nItem struct {
	nRaw any // n as evaluated on the document
	v    any
	key  query.Key
}

// nArg evaluates n, the output (or input) and the sort key of a document.
type nArg struct {
	op     string
	n      expr.Expr // nil: n is 1
	out    expr.Expr
	sort   *query.Sort
	sortBy bson.D
}

func (a *nArg) Eval(doc bson.D, vars *expr.Vars) (any, error) {
	it := nItem{nRaw: int64(1)}
	if a.n != nil {
		nv, err := a.n.Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		it.nRaw = nv // checked by the group's first document only, as MongoDB
	}
	v, err := a.out.Eval(doc, vars)
	if err != nil {
		return nil, err
	}
	it.v = v
	if a.sort != nil {
		it.key = a.sort.Key(doc)
	}
	return it, nil
}

// checkN validates n as MongoDB does: an integral number above 0.
func checkN(_ string, nv any) (int64, error) { return expr.CheckN(nv) }

func compileNAccumulator(op string, arg any, cc *compileCtx) (expr.Expr, func() accumulator, error) {
	info := nAccumulators[op]
	d, ok := arg.(bson.D)
	if !ok {
		return nil, nil, mongoerr.New(mongoerr.AccumNSpecNotObject, "specification must be an object; found %s", show(arg))
	}
	sorted := info.kind == kTopN || info.kind == kBottomN
	outName := "input"
	if sorted {
		outName = "output"
	}
	a := &nArg{op: op}
	for _, e := range d {
		var err error
		switch {
		case e.Key == "n" && !info.single:
			a.n, err = cc.compileExpr(e.Value)
		case e.Key == outName:
			a.out, err = cc.compileExpr(e.Value)
		case e.Key == "sortBy" && sorted:
			a.sortBy, a.sort, err = compileSortBy(op, e.Value)
		default:
			err = mongoerr.New(mongoerr.AccumNUnknownArg, "Unknown argument for 'n' operator: %s", e.Key)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if err := checkNArgs(op, a, info.single, sorted); err != nil {
		return nil, nil, err
	}
	mk := func() accumulator {
		return &multiAcc{kind: info.kind, single: info.single, sort: a.sort, rekey: rekeySort(a.sortBy)}
	}
	return a, mk, nil
}

func checkNArgs(op string, a *nArg, single, sorted bool) error {
	switch {
	case a.n == nil && !single:
		return mongoerr.New(mongoerr.AccumNMissingN, "Missing value for 'n'")
	case a.out == nil && sorted:
		return mongoerr.New(mongoerr.AccumTopMissingOutput, "%s requires an 'output' field", op)
	case a.out == nil:
		return mongoerr.New(mongoerr.AccumNMissingInput, "Missing value for 'input'")
	case a.sort == nil && sorted:
		return mongoerr.New(mongoerr.AccumTopMissingSortBy, "%s requires a 'sortBy' field", op)
	}
	return nil
}

func compileSortBy(op string, v any) (bson.D, *query.Sort, error) {
	d, ok := v.(bson.D)
	if !ok || len(d) == 0 {
		return nil, nil, mongoerr.New(mongoerr.SortKeyNotObject, "%s: 'sortBy' must be a non-empty object", op)
	}
	s, err := query.CompileSort(d)
	return d, s, err
}

// rekeySort sorts the key documents partial() writes: field k<i> holds
// key value i, wrapped so that Key reads it back unchanged.
func rekeySort(sortBy bson.D) *query.Sort {
	if sortBy == nil {
		return nil
	}
	spec := make(bson.D, len(sortBy))
	for i, e := range sortBy {
		spec[i] = bson.E{Key: keyField(i), Value: e.Value}
	}
	s, _ := query.CompileSort(spec)
	return s
}

func keyField(i int) string { return "k" + string(rune('0'+i%10)) + string(rune('a'+i/10)) }

type multiAcc struct {
	kind   nKind
	single bool
	n      int64 // 0 until the first value
	sort   *query.Sort
	rekey  *query.Sort
	items  []nItem
	seq    int64
	seqs   []int64 // parallel to items: arrival order, for ties
}

func (a *multiAcc) add(v any) (int64, error) {
	it, ok := v.(nItem)
	if !ok {
		return 0, nil
	}
	if a.n == 0 {
		n, err := checkN("", it.nRaw)
		if err != nil {
			return 0, err
		}
		a.n = n
	}
	if expr.IsMissing(it.v) {
		it.v = nil
	}
	if (a.kind == kMaxN || a.kind == kMinN) && expr.IsNullish(it.v) {
		return 0, nil
	}
	return a.insert(it), nil
}

// insert places it by rank and drops the worst item past n; it returns
// the bytes the state grew by (an upper bound).
func (a *multiAcc) insert(it nItem) int64 {
	seq := a.seq
	a.seq++
	if a.kind == kFirstN && int64(len(a.items)) >= a.n {
		return 0
	}
	pos := sort.Search(len(a.items), func(j int) bool { return a.rank(a.items[j], a.seqs[j], it, seq) > 0 })
	a.items = slices.Insert(a.items, pos, it)
	a.seqs = slices.Insert(a.seqs, pos, seq)
	if int64(len(a.items)) > a.n {
		a.items, a.seqs = a.items[:a.n], a.seqs[:a.n]
	}
	return valueSize(it.v) + int64(len(it.key))*16 + itemOverhead
}

// rank orders x (arrived at sx) before y (at sy) when it is better to
// keep: <0 keeps x first.
func (a *multiAcc) rank(x nItem, sx int64, y nItem, sy int64) int {
	var c int
	switch a.kind {
	case kFirstN:
		c = 0
	case kLastN:
		return -cmpInt(sx, sy)
	case kMaxN:
		c = -expr.Compare(x.v, y.v)
	case kMinN:
		c = expr.Compare(x.v, y.v)
	case kTopN:
		c = a.sort.CompareKeys(x.key, y.key)
	case kBottomN:
		return -cmpOr(a.sort.CompareKeys(x.key, y.key), cmpInt(sx, sy))
	}
	return cmpOr(c, cmpInt(sx, sy))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpOr(c, tie int) int {
	if c != 0 {
		return c
	}
	return tie
}

// ordered returns the items in output order: as kept, except $lastN and
// $bottomN, which keep the latest/last first.
func (a *multiAcc) ordered() []nItem {
	out := slices.Clone(a.items)
	if a.kind == kLastN || a.kind == kBottomN {
		slices.Reverse(out)
	}
	return out
}

func (a *multiAcc) result() any {
	items := a.ordered()
	if a.single {
		if len(items) == 0 {
			return nil
		}
		return items[0].v
	}
	out := make(bson.A, len(items))
	for i, it := range items {
		out[i] = it.v
	}
	return out
}

func (a *multiAcc) partial() any {
	out := bson.A{}
	for _, it := range a.ordered() {
		kd := bson.D{}
		for i, k := range it.key {
			kd = append(kd, bson.E{Key: keyField(i), Value: keyValueForDoc(k)})
		}
		out = append(out, bson.A{it.v, kd, a.n})
	}
	return out
}

func (a *multiAcc) merge(p any) (int64, error) {
	arr, _ := p.(bson.A)
	var grew int64
	for _, raw := range arr {
		e, _ := raw.(bson.A)
		if len(e) != 3 {
			continue
		}
		it := nItem{v: e[0]}
		if kd, _ := e[1].(bson.D); a.rekey != nil {
			it.key = a.rekey.Key(kd)
		}
		if a.n == 0 {
			a.n, _ = checkN("", e[2])
		}
		grew += a.insert(it)
	}
	return grew, nil
}

// emptyArrayKey is the sort-key value query gives an empty array.
var emptyArrayKey = func() any {
	s, _ := query.CompileSort(bson.D{{Key: "x", Value: int32(1)}})
	return s.Key(bson.D{{Key: "x", Value: bson.A{}}})[0]
}()

// keyValueForDoc wraps a sort-key value so that Sort.Key over a document
// holding it returns it again (arrays are expanded one level).
func keyValueForDoc(k any) any {
	if k == emptyArrayKey {
		return bson.A{}
	}
	if arr, ok := k.(bson.A); ok {
		return bson.A{arr}
	}
	return k
}
