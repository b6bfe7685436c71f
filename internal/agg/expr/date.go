package expr

import (
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func registerDate() {
	parts := map[string]func(t time.Time) int{
		"$year":        func(t time.Time) int { return t.Year() },
		"$month":       func(t time.Time) int { return int(t.Month()) },
		"$dayOfMonth":  func(t time.Time) int { return t.Day() },
		"$hour":        func(t time.Time) int { return t.Hour() },
		"$minute":      func(t time.Time) int { return t.Minute() },
		"$second":      func(t time.Time) int { return t.Second() },
		"$millisecond": func(t time.Time) int { return t.Nanosecond() / 1e6 },
		"$dayOfWeek":   func(t time.Time) int { return int(t.Weekday()) + 1 },
		"$dayOfYear":   func(t time.Time) int { return t.YearDay() },
		"$week":        weekOfYear,
		"$isoWeek":     func(t time.Time) int { _, w := t.ISOWeek(); return w },
		"$isoWeekYear": func(t time.Time) int { y, _ := t.ISOWeek(); return y },
		"$isoDayOfWeek": func(t time.Time) int {
			return (int(t.Weekday())+6)%7 + 1
		},
	}
	for name, fn := range parts {
		operators[name] = compileDatePart(fn)
	}
	operators["$dateToString"] = compileDateToString
	operators["$dateFromString"] = compileDateFromString
	registerDateArith()     // date_arith.go
	registerDateDiffTrunc() // date_trunc.go
	registerDateParts()     // date_parts.go
}

// weekOfYear is %U: weeks start on Sunday; days before the first Sunday
// are week 0.
func weekOfYear(t time.Time) int {
	return (t.YearDay() + 6 - int(t.Weekday())) / 7
}

func compileDatePart(fn func(time.Time) int) compileFn {
	return func(name string, raw any, sc *scope) (Expr, error) {
		var dateE, tzE Expr
		if d, ok := raw.(bson.D); ok && (len(d) == 0 || !strings.HasPrefix(d[0].Key, "$")) {
			m, err := namedArgs(name, d, sc, []string{"date", "timezone"}, "date")
			if err != nil {
				return nil, err
			}
			dateE, tzE = m["date"], m["timezone"]
		} else {
			args := argList(raw)
			if err := checkArity(name, len(args), 1, 1); err != nil {
				return nil, err
			}
			e, err := compile(args[0], sc)
			if err != nil {
				return nil, err
			}
			dateE = e
		}
		return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
			t, null, err := evalDate(dateE, tzE, doc, vars)
			if null || err != nil {
				return nil, err
			}
			return int32(fn(t)), nil
		}), nil
	}
}

// evalDate evaluates a date and optional timezone; null reports a nullish
// date or timezone.
func evalDate(dateE, tzE Expr, doc bson.D, vars *Vars) (time.Time, bool, error) {
	v, err := dateE.Eval(doc, vars)
	if err != nil || IsNullish(v) {
		return time.Time{}, true, err
	}
	loc, null, err := evalTimezone(tzE, doc, vars)
	if null || err != nil {
		return time.Time{}, null, err
	}
	t, err := ToTime(v)
	if err != nil {
		return time.Time{}, false, err
	}
	return t.In(loc), false, nil
}

// ToTime converts a date, timestamp or ObjectId to a UTC time.
func ToTime(v any) (time.Time, error) {
	switch t := v.(type) {
	case bson.DateTime:
		return time.UnixMilli(int64(t)).UTC(), nil
	case bson.Timestamp:
		return time.Unix(int64(t.T), 0).UTC(), nil
	case bson.ObjectID:
		return t.Timestamp().UTC(), nil
	}
	return time.Time{}, errf(mongoerr.DateConversionBadType, "can't convert from BSON type %s to Date", typeName(v))
}

func evalTimezone(tzE Expr, doc bson.D, vars *Vars) (*time.Location, bool, error) {
	if tzE == nil {
		return time.UTC, false, nil
	}
	v, err := tzE.Eval(doc, vars)
	if err != nil || IsNullish(v) {
		return nil, true, err
	}
	s, ok := v.(string)
	if !ok {
		return nil, false, errf(mongoerr.TimezoneNotString, "timezone must evaluate to a string, found %s", typeName(v))
	}
	loc, err := ParseTimezone(s)
	return loc, false, err
}

// ParseTimezone accepts an Olson name, "UTC"/"GMT"/"Z", or an offset
// "+hh", "+hhmm", "+hh:mm".
func ParseTimezone(s string) (*time.Location, error) {
	switch s {
	case "UTC", "GMT", "Z", "":
		return time.UTC, nil
	}
	if s[0] == '+' || s[0] == '-' {
		return parseOffset(s)
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, errf(mongoerr.TimezoneUnrecognized, "unrecognized time zone identifier: \"%s\"", s)
	}
	return loc, nil
}

// parseOffset reads "+hh", "+hhmm" or "+hh:mm" (or with '-').
func parseOffset(s string) (*time.Location, error) {
	digits := strings.ReplaceAll(s[1:], ":", "")
	bad := len(digits) != 2 && len(digits) != 4
	for _, c := range digits {
		bad = bad || c < '0' || c > '9'
	}
	if bad {
		return nil, errf(mongoerr.TimezoneUnrecognized, "unrecognized time zone identifier: \"%s\"", s)
	}
	digits += "00"
	h := int(digits[0]-'0')*10 + int(digits[1]-'0')
	m := int(digits[2]-'0')*10 + int(digits[3]-'0')
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return time.FixedZone(s, off), nil
}

func formatISODate(d bson.DateTime) string {
	return time.UnixMilli(int64(d)).UTC().Format("2006-01-02T15:04:05.000Z")
}

var dateLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02",
}

func parseDateString(s string) (any, error) {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return bson.NewDateTimeFromTime(t), nil
		}
	}
	return nil, convFail("Error parsing date string '%s'", s)
}

func compileDateFromString(name string, raw any, sc *scope) (Expr, error) {
	m, err := namedArgs(name, raw, sc, []string{"dateString", "timezone", "format", "onError", "onNull"}, "dateString")
	if err != nil {
		return nil, err
	}
	// TODO(#2): honour "format" and "timezone" for strings without offset.
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		v, err := m["dateString"].Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		if IsNullish(v) {
			if m["onNull"] != nil {
				return m["onNull"].Eval(doc, vars)
			}
			return nil, nil
		}
		s, ok := v.(string)
		var out any
		if !ok {
			err = errf(mongoerr.ConversionFailure, "$dateFromString requires that 'dateString' be a string, found: %s", typeName(v))
		} else {
			out, err = parseDateString(s)
		}
		if err != nil && m["onError"] != nil {
			return m["onError"].Eval(doc, vars)
		}
		return out, err
	}), nil
}
