package expr

import (
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

const defaultDateFormat = "%Y-%m-%dT%H:%M:%S.%LZ"

func compileDateToString(name string, raw any, sc *scope) (Expr, error) {
	m, err := namedArgs(name, raw, sc, []string{"date", "format", "timezone", "onNull"}, "date")
	if err != nil {
		return nil, err
	}
	if f, ok := m["format"].(constant); ok {
		if s, ok := f.v.(string); ok {
			if err := checkDateFormat(s); err != nil {
				return nil, err
			}
		}
	}
	return funcExpr(func(doc bson.D, vars *Vars) (any, error) {
		v, err := m["date"].Eval(doc, vars)
		if err != nil {
			return nil, err
		}
		if IsNullish(v) {
			if m["onNull"] != nil {
				return m["onNull"].Eval(doc, vars)
			}
			return nil, nil
		}
		format := defaultDateFormat
		if m["format"] != nil {
			f, err := m["format"].Eval(doc, vars)
			if err != nil || IsNullish(f) {
				return nil, err
			}
			s, ok := f.(string)
			if !ok {
				return nil, errf(mongoerr.DateToStringFormatNotString, "$dateToString requires that 'format' be a string, found: %s", typeName(f))
			}
			format = s
		}
		t, null, err := evalDate(m["date"], m["timezone"], doc, vars)
		if null || err != nil {
			return nil, err
		}
		return FormatDate(t, format)
	}), nil
}

func checkDateFormat(f string) error {
	_, err := FormatDate(time.Unix(0, 0).UTC(), f)
	return err
}

// FormatDate renders t with $dateToString's format specifiers.
func FormatDate(t time.Time, format string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(format) {
			return "", errf(mongoerr.DateFormatTrailingPercent, "Unmatched '%%' at end of format string")
		}
		i++
		if err := formatSpec(&b, t, format[i]); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func formatSpec(b *strings.Builder, t time.Time, c byte) error {
	isoY, isoW := t.ISOWeek()
	_, off := t.Zone()
	switch c {
	case 'Y':
		fmt.Fprintf(b, "%04d", t.Year())
	case 'm':
		fmt.Fprintf(b, "%02d", int(t.Month()))
	case 'd':
		fmt.Fprintf(b, "%02d", t.Day())
	case 'H':
		fmt.Fprintf(b, "%02d", t.Hour())
	case 'M':
		fmt.Fprintf(b, "%02d", t.Minute())
	case 'S':
		fmt.Fprintf(b, "%02d", t.Second())
	case 'L':
		fmt.Fprintf(b, "%03d", t.Nanosecond()/1e6)
	case 'j':
		fmt.Fprintf(b, "%03d", t.YearDay())
	case 'w':
		fmt.Fprintf(b, "%d", int(t.Weekday())+1)
	case 'u':
		fmt.Fprintf(b, "%d", (int(t.Weekday())+6)%7+1)
	case 'U':
		fmt.Fprintf(b, "%02d", weekOfYear(t))
	case 'V':
		fmt.Fprintf(b, "%02d", isoW)
	case 'G':
		fmt.Fprintf(b, "%04d", isoY)
	case 'z':
		sign := '+'
		if off < 0 {
			sign, off = '-', -off
		}
		fmt.Fprintf(b, "%c%02d%02d", sign, off/3600, off%3600/60)
	case 'Z':
		fmt.Fprintf(b, "%d", off/60)
	case 'b':
		b.WriteString(t.Month().String()[:3])
	case 'B':
		b.WriteString(t.Month().String())
	case '%':
		b.WriteByte('%')
	default:
		return errf(mongoerr.DateFormatInvalidSpecifier, "Invalid format character '%%%c' in format string", c)
	}
	return nil
}
