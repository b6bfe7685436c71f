package expr

import (
	"math"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Date arithmetic: $dateAdd and $dateSubtract. Invariants: any nullish
// argument (startDate, unit, amount, timezone) yields null; calendar units
// (day and longer) work on the wall clock of the timezone, shorter units
// on elapsed milliseconds; month arithmetic clamps to the month's last
// day (Jan 31 + 1 month = Feb 28/29); results stay inside int64
// milliseconds or the operator fails with DateArithOverflow (amounts past
// mongod's per-unit bounds fail with DateAddBadAmount).

func registerDateArith() {
	operators["$dateAdd"] = compileDateArith(false)
	operators["$dateSubtract"] = compileDateArith(true)
}

// dateArgSpec describes an operator's named arguments and its codes.
type dateArgSpec struct {
	allowed   []string
	notObject mongoerr.Code
	unknown   mongoerr.Code
}

// parseDateArgs compiles an operator's {field: expr} document using the
// operator's own error codes.
func parseDateArgs(name string, raw any, sc *scope, spec dateArgSpec) (map[string]Expr, error) {
	d, ok := raw.(bson.D)
	if !ok {
		return nil, errf(spec.notObject, "%s only supports an object as its argument", name)
	}
	out := make(map[string]Expr, len(d))
	for _, el := range d {
		if !contains(spec.allowed, el.Key) {
			return nil, errf(spec.unknown, "Unrecognized argument to %s: %s", name, el.Key)
		}
		e, err := compile(el.Value, sc)
		if err != nil {
			return nil, err
		}
		out[el.Key] = e
	}
	return out, nil
}

var timeUnits = []string{"year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond"}

// unitMillis is the fixed length of the sub-day units.
var unitMillis = map[string]int64{"hour": 3600000, "minute": 60000, "second": 1000, "millisecond": 1}

// evalUnit evaluates a "unit" argument; null reports a nullish value.
func evalUnit(name string, e Expr, doc bson.D, vars *Vars) (string, bool, error) {
	v, err := e.Eval(doc, vars)
	if err != nil || IsNullish(v) {
		return "", true, err
	}
	s, ok := v.(string)
	if !ok {
		return "", false, errf(mongoerr.DateUnitNotString, "%s requires 'unit' to be a string, but got %s", name, typeName(v))
	}
	if !contains(timeUnits, s) {
		return "", false, errf(mongoerr.DateUnitUnknown, "%s parameter 'unit' value cannot be recognized as a time unit: %s", name, s)
	}
	return s, false, nil
}

func compileDateArith(subtract bool) compileFn {
	return func(name string, raw any, sc *scope) (Expr, error) {
		spec := dateArgSpec{[]string{"startDate", "unit", "amount", "timezone"}, mongoerr.DateArithNotObject, mongoerr.DateArithUnknownArg}
		m, err := parseDateArgs(name, raw, sc, spec)
		if err != nil {
			return nil, err
		}
		if m["startDate"] == nil || m["unit"] == nil || m["amount"] == nil {
			return nil, errf(mongoerr.DateArithMissingArg, "%s requires startDate, unit, and amount to be present", name)
		}
		return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
			return evalDateArith(name, subtract, m, doc, vars)
		}), nil
	}
}

func evalDateArith(name string, subtract bool, m map[string]Expr, doc bson.D, vars *Vars) (any, error) {
	start, err := m["startDate"].Eval(doc, vars)
	if err != nil || IsNullish(start) {
		return nil, err
	}
	unit, null, err := evalUnit(name, m["unit"], doc, vars)
	if null || err != nil {
		return nil, err
	}
	amountV, err := m["amount"].Eval(doc, vars)
	if err != nil || IsNullish(amountV) {
		return nil, err
	}
	loc, null, err := evalTimezone(m["timezone"], doc, vars)
	if null || err != nil {
		return nil, err
	}
	t, err := ToTime(start)
	if err != nil {
		return nil, errf(mongoerr.DateArithBadStartDate, "%s requires startDate to be convertible to a date", name)
	}
	amount, ok := asInt(amountV)
	if !ok {
		return nil, errf(mongoerr.DateArithBadAmount, "%s expects integer amount of time units", name)
	}
	if subtract {
		if amount == math.MinInt64 {
			return nil, errf(mongoerr.DateSubtractMinAmount, "invalid %s 'amount' parameter value: %d", name, amount)
		}
		amount = -amount
	}
	return dateAdd(t.In(loc), unit, amount)
}

// Amount bounds for units of a second and longer, as mongod computes them
// (about 2^64 milliseconds in each unit); past them DateAddBadAmount.
const maxAddDays = math.MaxUint64/86400000 + 1

var maxAmount = map[string]int64{
	"year": maxAddDays/365 + 1, "quarter": (maxAddDays/365 + 1) * 4, "month": (maxAddDays/365 + 1) * 12,
	"week": maxAddDays / 7, "day": maxAddDays, "hour": maxAddDays * 24, "minute": maxAddDays * 1440,
	"second": maxAddDays * 86400,
}

// dateAdd adds amount units to t (in its location) and returns a date:
// day and longer units on t's wall clock, shorter ones on elapsed time.
func dateAdd(t time.Time, unit string, amount int64) (any, error) {
	overflow := errf(mongoerr.DateArithOverflow, "dateAdd overflowed")
	ms := t.UnixMilli()
	if unit == "millisecond" {
		// TODO(#14): mongod reports this overflow as a duration overflow.
		if (amount > 0 && ms > math.MaxInt64-amount) || (amount < 0 && ms < math.MinInt64-amount) {
			return nil, overflow
		}
		return bson.DateTime(ms + amount), nil
	}
	if max := maxAmount[unit]; amount <= -max || amount >= max {
		return nil, errf(mongoerr.DateAddBadAmount, "invalid dateAdd 'amount' parameter value: %d %s", amount, unit)
	}
	var out time.Time
	switch unit {
	case "second", "minute", "hour":
		secs := amount * (unitMillis[unit] / 1000)
		if secs > math.MaxInt64/1000-t.Unix() || secs < math.MinInt64/1000-t.Unix() {
			return nil, overflow
		}
		out = time.Unix(t.Unix()+secs, int64(t.Nanosecond())).In(t.Location())
	case "day", "week":
		days := amount
		if unit == "week" {
			days *= 7
		}
		y, mo, d := t.Date()
		out = time.Date(y, mo, d+int(days), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	default:
		months := amount
		switch unit {
		case "quarter":
			months *= 3
		case "year":
			months *= 12
		}
		out = addMonths(t, months)
	}
	if sec := out.Unix(); sec > math.MaxInt64/1000 || sec < math.MinInt64/1000 {
		return nil, overflow
	}
	return bson.DateTime(out.UnixMilli()), nil
}

// addMonths adds months on t's wall clock, clamping the day of month to
// the target month's length.
func addMonths(t time.Time, months int64) time.Time {
	y, mo, d := t.Date()
	total := int64(y)*12 + int64(mo-1) + months
	ny, nm := int(floorDiv(total, 12)), time.Month(total-floorDiv(total, 12)*12+1)
	if last := daysIn(ny, nm); d > last {
		d = last
	}
	return time.Date(ny, nm, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// evalStartOfWeek evaluates an optional startOfWeek (full or three-letter
// day name, any case); default Sunday.
func evalStartOfWeek(name string, e Expr, doc bson.D, vars *Vars) (time.Weekday, bool, error) {
	if e == nil {
		return time.Sunday, false, nil
	}
	v, err := e.Eval(doc, vars)
	if err != nil || IsNullish(v) {
		return 0, true, err
	}
	s, ok := v.(string)
	if !ok {
		return 0, false, errf(mongoerr.DateStartOfWeekNotStr, "%s requires 'startOfWeek' to be a string, but got %s", name, typeName(v))
	}
	low := strings.ToLower(s)
	for d := time.Sunday; d <= time.Saturday; d++ {
		full := strings.ToLower(d.String())
		if low == full || low == full[:3] {
			return d, false, nil
		}
	}
	return 0, false, errf(mongoerr.DateStartOfWeekUnknown, "%s parameter 'startOfWeek' value cannot be recognized as a day of a week: %s", name, s)
}
