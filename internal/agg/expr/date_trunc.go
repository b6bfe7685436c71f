package expr

import (
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $dateDiff and $dateTrunc. Invariants: any nullish argument yields null;
// day and longer units count on the timezone's wall clock; $dateDiff's
// shorter units count wall-clock boundaries corrected for DST changes and
// it returns a long; $dateTrunc's bins start at 2000-01-01T00:00 local
// time (weeks: the first startOfWeek day on or after it), sub-day bins
// counting elapsed time from that instant.

func registerDateDiffTrunc() {
	operators["$dateDiff"] = compileDateDiff
	operators["$dateTrunc"] = compileDateTrunc
}

func compileDateDiff(name string, raw any, sc *scope) (Expr, error) {
	spec := dateArgSpec{[]string{"startDate", "endDate", "unit", "timezone", "startOfWeek"}, mongoerr.DateDiffNotObject, mongoerr.DateDiffUnknownArg}
	m, err := parseDateArgs(name, raw, sc, spec)
	if err != nil {
		return nil, err
	}
	for _, req := range []struct {
		field string
		code  mongoerr.Code
	}{{"startDate", mongoerr.DateDiffMissingStart}, {"endDate", mongoerr.DateDiffMissingEnd}, {"unit", mongoerr.DateDiffMissingUnit}} {
		if m[req.field] == nil {
			return nil, errf(req.code, "Missing '%s' parameter to %s", req.field, name)
		}
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		return evalDateDiff(name, m, doc, vars)
	}), nil
}

func evalDateDiff(name string, m map[string]Expr, doc bson.D, vars *Vars) (any, error) {
	var vals [2]any
	for i, f := range []string{"startDate", "endDate"} {
		v, err := m[f].Eval(doc, vars)
		if err != nil || IsNullish(v) {
			return nil, err
		}
		vals[i] = v
	}
	unit, sow, loc, null, err := evalUnitWeekZone(name, m, doc, vars)
	if null || err != nil {
		return nil, err
	}
	var ts [2]time.Time
	for i, f := range []string{"startDate", "endDate"} {
		t, err := ToTime(vals[i])
		if err != nil {
			return nil, errf(mongoerr.DateDiffBadDate, "%s requires '%s' to be a date, but got %s", name, f, typeName(vals[i]))
		}
		ts[i] = t.In(loc)
	}
	if unit == "millisecond" {
		a, b := ts[0].UnixMilli(), ts[1].UnixMilli()
		if (a < 0 && b > math.MaxInt64+a) || (a > 0 && b < math.MinInt64+a) {
			return nil, errf(mongoerr.DateDiffOverflow, "dateDiff overflowed")
		}
		return b - a, nil
	}
	return dateDiff(ts[0], ts[1], unit, sow), nil
}

// dateDiff counts the unit boundaries crossed from a to b (units longer
// than a millisecond).
func dateDiff(a, b time.Time, unit string, sow time.Weekday) int64 {
	switch unit {
	case "second", "minute", "hour":
		// Wall-clock boundaries, corrected by the change of UTC offset
		// (a DST change) as mongod does.
		step := unitMillis[unit]
		_, offA := a.Zone()
		_, offB := b.Zone()
		return floorDiv(wallMillis(b), step) - floorDiv(wallMillis(a), step) + int64(offA-offB)*1000/step
	case "day":
		return dayNumber(b) - dayNumber(a)
	case "week":
		return ((dayNumber(b) - weekShift(b, sow)) - (dayNumber(a) - weekShift(a, sow))) / 7
	case "month":
		return monthNumber(b) - monthNumber(a)
	case "quarter":
		return floorDiv(monthNumber(b), 3) - floorDiv(monthNumber(a), 3)
	}
	return int64(b.Year() - a.Year())
}

// wallMillis is t's wall clock as milliseconds since the epoch.
func wallMillis(t time.Time) int64 {
	_, off := t.Zone()
	return t.UnixMilli() + int64(off)*1000
}

// dayNumber is t's wall-clock date as days since 1970-01-01.
func dayNumber(t time.Time) int64 {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// weekShift is how many days t lies after the latest startOfWeek day.
func weekShift(t time.Time, sow time.Weekday) int64 {
	return int64((int(t.Weekday()) - int(sow) + 7) % 7)
}

// monthNumber is t's wall-clock month counted from year 0.
func monthNumber(t time.Time) int64 {
	return int64(t.Year())*12 + int64(t.Month()-1)
}

func compileDateTrunc(name string, raw any, sc *scope) (Expr, error) {
	spec := dateArgSpec{[]string{"date", "unit", "binSize", "timezone", "startOfWeek"}, mongoerr.DateTruncNotObject, mongoerr.DateTruncUnknownArg}
	m, err := parseDateArgs(name, raw, sc, spec)
	if err != nil {
		return nil, err
	}
	if m["date"] == nil {
		return nil, errf(mongoerr.DateTruncMissingDate, "Missing 'date' parameter to %s", name)
	}
	if m["unit"] == nil {
		return nil, errf(mongoerr.DateTruncMissingUnit, "Missing 'unit' parameter to %s", name)
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		return evalDateTrunc(name, m, doc, vars)
	}), nil
}

func evalDateTrunc(name string, m map[string]Expr, doc bson.D, vars *Vars) (any, error) {
	dv, err := m["date"].Eval(doc, vars)
	if err != nil || IsNullish(dv) {
		return nil, err
	}
	bin, null, err := evalBinSize(name, m["binSize"], doc, vars)
	if null || err != nil {
		return nil, err
	}
	unit, sow, loc, null, err := evalUnitWeekZone(name, m, doc, vars)
	if null || err != nil {
		return nil, err
	}
	t, err := ToTime(dv)
	if err != nil {
		return nil, errf(mongoerr.DateTruncBadDate, "%s requires 'date' to be a date, but got %s", name, typeName(dv))
	}
	out, err := dateTrunc(t.In(loc), unit, bin, sow)
	if err != nil {
		return nil, err
	}
	return bson.DateTime(out.UnixMilli()), nil
}

func evalBinSize(name string, e Expr, doc bson.D, vars *Vars) (int64, bool, error) {
	if e == nil {
		return 1, false, nil
	}
	v, err := e.Eval(doc, vars)
	if err != nil || IsNullish(v) {
		return 0, true, err
	}
	n, ok := asInt(v)
	if !ok {
		return 0, false, errf(mongoerr.DateTruncBinSizeNotInt, "%s requires 'binSize' to be a 64-bit integer, but got value '%v' of type %s", name, v, typeName(v))
	}
	if n <= 0 {
		return 0, false, errf(mongoerr.DateTruncBinSizeNotPos, "%s requires 'binSize' to be greater than 0, but got value %d", name, n)
	}
	return n, false, nil
}

// dateTrunc rounds t down to a multiple of bin units counted from
// 2000-01-01 on t's wall clock.
func dateTrunc(t time.Time, unit string, bin int64, sow time.Weekday) (time.Time, error) {
	loc := t.Location()
	ref := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	refDay := dayNumber(ref)
	switch unit {
	case "millisecond", "second", "minute", "hour":
		return truncMillis(t, unitMillis[unit], bin)
	case "day", "week":
		start, step := refDay, bin
		if unit == "week" {
			start += (int64(sow) - int64(time.Saturday) + 7) % 7 // 2000-01-01 was a Saturday
			step = bin * 7
		}
		n := start + floorDiv(dayNumber(t)-start, step)*step
		return time.Date(1970, 1, 1+int(n), 0, 0, 0, 0, loc), nil
	}
	per := map[string]int64{"month": 1, "quarter": 3, "year": 12}[unit] * bin
	months := monthNumber(t) - monthNumber(ref)
	n := monthNumber(ref) + floorDiv(months, per)*per
	return time.Date(int(floorDiv(n, 12)), time.Month(n-floorDiv(n, 12)*12+1), 1, 0, 0, 0, 0, loc), nil
}

// truncMillis bins sub-day units by elapsed time from 2000-01-01T00:00 in
// t's location, as mongod does.
func truncMillis(t time.Time, unit, bin int64) (time.Time, error) {
	overflow := errf(mongoerr.DateTruncOverflow, "dateTrunc overflowed")
	step := unit * bin
	if step/bin != unit {
		return time.Time{}, overflow
	}
	ms := t.UnixMilli()
	ref := time.Date(2000, 1, 1, 0, 0, 0, 0, t.Location()).UnixMilli()
	d := floorMod(floorMod(ms, step)-floorMod(ref, step), step)
	if ms < math.MinInt64+d {
		// TODO(#14): mongod may report this underflow with another code.
		return time.Time{}, overflow
	}
	return time.UnixMilli(ms - d).In(t.Location()), nil
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// evalUnitWeekZone evaluates the unit, startOfWeek (for unit "week";
// Sunday otherwise) and timezone arguments $dateDiff and $dateTrunc
// share; null is true when one of them is nullish.
func evalUnitWeekZone(name string, m map[string]Expr, doc bson.D, vars *Vars) (unit string, sow time.Weekday, loc *time.Location, null bool, err error) {
	if unit, null, err = evalUnit(name, m["unit"], doc, vars); null || err != nil {
		return
	}
	sow = time.Sunday
	if unit == "week" {
		if sow, null, err = evalStartOfWeek(name, m["startOfWeek"], doc, vars); null || err != nil {
			return
		}
	}
	loc, null, err = evalTimezone(m["timezone"], doc, vars)
	return
}
