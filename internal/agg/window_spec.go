package agg

import (
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// window is an output's window: documents (positions relative to the
// current document) or range (sortBy values relative to the current
// one's, in unit for dates). The zero window is the whole partition.
type window struct {
	set      bool
	isRange  bool
	lo, hi   bound
	unit     string // range over dates: "day", "hour", ...
	hasUnits bool
}

// bound is one end of a window: unbounded, current, or an offset.
type bound struct {
	unbounded bool
	off       float64 // documents: an integer; range: a number
}

// Operators: which need sortBy, which take no window.
var (
	windowNeedsSort = map[string]bool{"$rank": true, "$denseRank": true, "$documentNumber": true, "$shift": true,
		"$derivative": true, "$integral": true, "$expMovingAvg": true, "$linearFill": true}
	windowNoWindow = map[string]bool{"$rank": true, "$denseRank": true, "$documentNumber": true, "$shift": true,
		"$expMovingAvg": true, "$locf": true, "$linearFill": true}
)

func compileWindowOut(field string, spec any, w *windowStage, cc *compileCtx) (*windowOut, error) {
	path, err := splitDotted(field)
	if err != nil {
		return nil, err
	}
	d, ok := spec.(bson.D)
	if !ok {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Expected a document for the output field '%s' of $setWindowFields", field)
	}
	o := &windowOut{path: path, win: window{lo: bound{unbounded: true}, hi: bound{unbounded: true}}}
	var arg any
	for _, e := range d {
		switch {
		case e.Key == "window":
			if o.win, err = parseWindow(e.Value); err != nil {
				return nil, err
			}
		case strings.HasPrefix(e.Key, "$") && o.op == "":
			o.op, arg = e.Key, e.Value
		default:
			return nil, mongoerr.New(mongoerr.FailedToParse, "'%s' is not a valid window function or field of the output of '%s'", e.Key, field)
		}
	}
	if o.op == "" {
		return nil, mongoerr.New(mongoerr.FailedToParse, "Expected a window function in the output field '%s'", field)
	}
	if err := checkWindowUse(o, w); err != nil {
		return nil, err
	}
	o.fn, err = compileWindowFn(o.op, arg, o, w, cc)
	return o, err
}

func checkWindowUse(o *windowOut, w *windowStage) error {
	if windowNeedsSort[o.op] && w.sort == nil {
		return mongoerr.New(mongoerr.FailedToParse, "%s requires a sortBy", o.op)
	}
	if windowNoWindow[o.op] && o.win.set {
		return mongoerr.New(mongoerr.FailedToParse, "%s does not accept a 'window' field", o.op)
	}
	if o.win.isRange && len(w.sortBy) != 1 {
		return mongoerr.New(mongoerr.FailedToParse, "Range-based bounds require sortBy a single field")
	}
	if (o.op == "$rank" || o.op == "$denseRank" || o.op == "$linearFill" || o.op == "$derivative" || o.op == "$integral") && len(w.sortBy) != 1 {
		return mongoerr.New(mongoerr.FailedToParse, "%s must be specified with a top level sortBy expression with exactly one element", o.op)
	}
	return nil
}

func parseWindow(v any) (window, error) {
	d, ok := v.(bson.D)
	if !ok {
		return window{}, mongoerr.New(mongoerr.FailedToParse, "'window' field must be an object")
	}
	w := window{set: true}
	hasBounds := false
	for _, e := range d {
		switch e.Key {
		case "documents", "range":
			if hasBounds {
				return window{}, mongoerr.New(mongoerr.FailedToParse, "Window bounds can only specify one of 'documents' or 'range'")
			}
			hasBounds, w.isRange = true, e.Key == "range"
			var err error
			if w.lo, w.hi, err = parseBounds(e.Key, e.Value); err != nil {
				return window{}, err
			}
		case "unit":
			u, ok := e.Value.(string)
			if !ok || !validUnit(u) {
				return window{}, mongoerr.New(mongoerr.FailedToParse, "'unit' must be one of: year, quarter, month, week, day, hour, minute, second, millisecond")
			}
			w.unit, w.hasUnits = u, true
		default:
			return window{}, mongoerr.New(mongoerr.FailedToParse, "'window' field can only contain 'documents' as the only argument or 'range' with an optional 'unit' field")
		}
	}
	if w.hasUnits && !w.isRange {
		return window{}, mongoerr.New(mongoerr.FailedToParse, "Window bounds can only specify 'unit' with range-based bounds")
	}
	if !hasBounds {
		w.lo, w.hi = bound{unbounded: true}, bound{unbounded: true}
	}
	return w, nil
}

func parseBounds(kind string, v any) (lo, hi bound, err error) {
	arr, ok := v.(bson.A)
	if !ok || len(arr) != 2 {
		return lo, hi, mongoerr.New(mongoerr.FailedToParse, "Window bounds must be a 2-element array: %s: %s", kind, show(v))
	}
	if lo, err = parseBound(kind, arr[0]); err != nil {
		return lo, hi, err
	}
	if hi, err = parseBound(kind, arr[1]); err != nil {
		return lo, hi, err
	}
	if lo.unbounded || hi.unbounded {
		return lo, hi, nil
	}
	if lo.off > hi.off {
		return lo, hi, mongoerr.New(mongoerr.FailedToParse, "Lower bound must not exceed upper bound: %s", show(v))
	}
	return lo, hi, nil
}

func parseBound(kind string, v any) (bound, error) {
	switch v {
	case "unbounded":
		return bound{unbounded: true}, nil
	case "current":
		return bound{}, nil
	}
	f, ok := numberAsFloat(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return bound{}, mongoerr.New(mongoerr.FailedToParse, "Window bounds must be 'unbounded', 'current', or a number: %s", show(v))
	}
	if _, isInt := bsonx.AsInt64(v); kind == "documents" && (!isInt || f != math.Trunc(f)) {
		return bound{}, mongoerr.New(mongoerr.FailedToParse, "Numeric document-based bounds must be an integer: %s", show(v))
	}
	return bound{off: f}, nil
}

func validUnit(u string) bool {
	switch u {
	case "year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond":
		return true
	}
	return false
}
