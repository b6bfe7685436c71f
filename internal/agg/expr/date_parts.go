package expr

import (
	"math"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// $dateToParts and $dateFromParts. Invariants: a nullish part, timezone or
// iso8601 flag yields null; parts out of their natural range carry over
// (month 14 is February of the next year); year and isoWeekYear must lie
// in 1..9999 and every part but year, second and millisecond in
// [-32768, 32767]; parts are read on the timezone's wall clock.

func registerDateParts() {
	operators["$dateToParts"] = compileDateToParts
	operators["$dateFromParts"] = compileDateFromParts
}

func compileDateToParts(name string, raw any, sc *scope) (Expr, error) {
	spec := dateArgSpec{[]string{"date", "timezone", "iso8601"}, mongoerr.DateToPartsNotObject, mongoerr.DateToPartsUnknownArg}
	m, err := parseDateArgs(name, raw, sc, spec)
	if err != nil {
		return nil, err
	}
	if m["date"] == nil {
		return nil, errf(mongoerr.DateToPartsMissingDate, "Missing 'date' parameter to %s", name)
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		return evalDateToParts(m, doc, vars)
	}), nil
}

func evalDateToParts(m map[string]Expr, doc bson.D, vars *Vars) (any, error) {
	dv, err := m["date"].Eval(doc, vars)
	if err != nil {
		return nil, err
	}
	loc, null, err := evalTimezone(m["timezone"], doc, vars)
	if null || err != nil {
		return nil, err
	}
	iso := false
	if m["iso8601"] != nil {
		v, err := m["iso8601"].Eval(doc, vars)
		if err != nil || IsNullish(v) {
			return nil, err
		}
		b, ok := v.(bool)
		if !ok {
			return nil, errf(mongoerr.DateToPartsISONotBool, "iso8601 must evaluate to a bool, found %s", typeName(v))
		}
		iso = b
	}
	if IsNullish(dv) {
		return nil, nil
	}
	t, err := ToTime(dv)
	if err != nil {
		return nil, err
	}
	t = t.In(loc)
	clock := bson.D{
		{Key: "hour", Value: int32(t.Hour())}, {Key: "minute", Value: int32(t.Minute())},
		{Key: "second", Value: int32(t.Second())}, {Key: "millisecond", Value: int32(t.Nanosecond() / 1e6)},
	}
	if iso {
		y, w := t.ISOWeek()
		return append(bson.D{{Key: "isoWeekYear", Value: int32(y)}, {Key: "isoWeek", Value: int32(w)},
			{Key: "isoDayOfWeek", Value: int32((int(t.Weekday())+6)%7 + 1)}}, clock...), nil
	}
	return append(bson.D{{Key: "year", Value: int32(t.Year())}, {Key: "month", Value: int32(t.Month())},
		{Key: "day", Value: int32(t.Day())}}, clock...), nil
}

var fromPartsArgs = []string{"year", "month", "day", "hour", "minute", "second", "millisecond",
	"isoWeekYear", "isoWeek", "isoDayOfWeek", "timezone"}

func compileDateFromParts(name string, raw any, sc *scope) (Expr, error) {
	m, err := parseDateArgs(name, raw, sc, dateArgSpec{fromPartsArgs, mongoerr.DateFromPartsNotObject, mongoerr.DateFromPartsUnknownArg})
	if err != nil {
		return nil, err
	}
	natural, iso := m["year"] != nil, m["isoWeekYear"] != nil
	switch {
	case !natural && !iso:
		return nil, errf(mongoerr.DateFromPartsNoYear, "%s requires either 'year' or 'isoWeekYear' to be present", name)
	case natural && (iso || m["isoWeek"] != nil || m["isoDayOfWeek"] != nil):
		return nil, errf(mongoerr.DateFromPartsMixed, "%s does not allow mixing natural dates with ISO dates", name)
	case iso && (m["month"] != nil || m["day"] != nil):
		return nil, errf(mongoerr.DateFromPartsISOMixed, "%s does not allow mixing ISO dates with natural dates", name)
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		return evalDateFromParts(name, m, doc, vars)
	}), nil
}

// partSpec is one numeric part: its default and whether it is bounded to
// [-32768, 32767].
type partSpec struct {
	field   string
	def     int64
	bounded bool
}

// evalParts evaluates parts in order; null reports a nullish part.
func evalParts(m map[string]Expr, specs []partSpec, doc bson.D, vars *Vars) ([]int64, bool, error) {
	out := make([]int64, len(specs))
	for i, s := range specs {
		out[i] = s.def
		if m[s.field] == nil {
			continue
		}
		v, err := m[s.field].Eval(doc, vars)
		if err != nil || IsNullish(v) {
			return nil, true, err
		}
		n, ok := asInt(v)
		if !ok {
			return nil, false, errf(mongoerr.DatePartNotInteger, "'%s' must evaluate to an integer, found %s with value %v", s.field, typeName(v), v)
		}
		if s.bounded && (n < math.MinInt16 || n > math.MaxInt16) {
			return nil, false, errf(mongoerr.DatePartOutOfRange, "'%s' must evaluate to a value in the range [-32768, 32767]; value %d is not in range", s.field, n)
		}
		out[i] = n
	}
	return out, false, nil
}

func evalDateFromParts(name string, m map[string]Expr, doc bson.D, vars *Vars) (any, error) {
	clock, null, err := evalParts(m, []partSpec{{"hour", 0, true}, {"minute", 0, true}, {"second", 0, false}, {"millisecond", 0, false}}, doc, vars)
	if null || err != nil {
		return nil, err
	}
	loc, null, err := evalTimezone(m["timezone"], doc, vars)
	if null || err != nil {
		return nil, err
	}
	iso := m["isoWeekYear"] != nil
	specs := []partSpec{{"year", 1970, false}, {"month", 1, true}, {"day", 1, true}}
	if iso {
		specs = []partSpec{{"isoWeekYear", 1970, false}, {"isoWeek", 1, true}, {"isoDayOfWeek", 1, true}}
	}
	date, null, err := evalParts(m, specs, doc, vars)
	if null || err != nil {
		return nil, err
	}
	if date[0] < 1 || date[0] > 9999 {
		code := mongoerr.DateFromPartsYearRange
		if iso {
			code = mongoerr.DateFromPartsISOYear
		}
		return nil, errf(code, "'%s' must evaluate to an integer in the range 1 to 9999, found %d", specs[0].field, date[0])
	}
	var base time.Time
	if iso {
		jan4 := time.Date(int(date[0]), 1, 4, 0, 0, 0, 0, loc)
		week1 := 4 - (int(jan4.Weekday())+6)%7 // day of January of week 1's Monday
		base = time.Date(int(date[0]), 1, week1+int(date[1]-1)*7+int(date[2]-1), int(clock[0]), int(clock[1]), 0, 0, loc)
	} else {
		base = time.Date(int(date[0]), time.Month(date[1]), int(date[2]), int(clock[0]), int(clock[1]), 0, 0, loc)
	}
	return addSecondsMillis(name, base.UnixMilli(), clock[2], clock[3])
}

// addSecondsMillis adds the unbounded second and millisecond parts,
// failing rather than wrapping past int64 milliseconds.
// TODO(#14): MongoDB carries these on the wall clock (timelib); across a
// DST change inside the carried span the results differ by the shift.
func addSecondsMillis(name string, base, sec, ms int64) (any, error) {
	overflow := errf(mongoerr.DateArithOverflow, "%s overflowed", name)
	if sec > math.MaxInt64/1000 || sec < math.MinInt64/1000 {
		return nil, overflow
	}
	out := base
	for _, d := range []int64{sec * 1000, ms} {
		if (d > 0 && out > math.MaxInt64-d) || (d < 0 && out < math.MinInt64-d) {
			return nil, overflow
		}
		out += d
	}
	return bson.DateTime(out), nil
}
