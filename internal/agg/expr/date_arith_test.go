package expr

import "testing"

// d is a shorthand for an extended-JSON date literal.
func d(iso string) string { return `{"$date": "` + iso + `"}` }

func TestDateAddSubtract(t *testing.T) {
	add := func(start, unit, amount, extra string) string {
		return `{"$dateAdd": {"startDate": ` + start + `, "unit": "` + unit + `", "amount": ` + amount + extra + `}}`
	}
	sub := func(start, unit, amount, extra string) string {
		return `{"$dateSubtract": {"startDate": ` + start + `, "unit": "` + unit + `", "amount": ` + amount + extra + `}}`
	}
	runExprCases(t, []exprCase{
		{expr: add(d("2020-10-31T12:10:05Z"), "day", "3", ""), want: d("2020-11-03T12:10:05Z")},
		{expr: add(d("2021-01-31T00:00:00Z"), "month", "1", ""), want: d("2021-02-28T00:00:00Z")},
		{expr: add(d("2020-01-31T00:00:00Z"), "month", "1", ""), want: d("2020-02-29T00:00:00Z")},
		{expr: add(d("2020-02-29T00:00:00Z"), "year", "1", ""), want: d("2021-02-28T00:00:00Z")},
		{expr: add(d("2020-11-30T00:00:00Z"), "quarter", "1", ""), want: d("2021-02-28T00:00:00Z")},
		{expr: add(d("2020-01-01T00:00:00Z"), "week", "2", ""), want: d("2020-01-15T00:00:00Z")},
		{expr: add(d("2020-01-01T00:00:00Z"), "hour", "-1", ""), want: d("2019-12-31T23:00:00Z")},
		{expr: add(d("2020-01-01T00:00:00Z"), "millisecond", "1.0", ""), want: d("2020-01-01T00:00:00.001Z")},
		{expr: add(d("2020-01-01T00:00:00Z"), "minute", `{"$numberLong": "90"}`, ""), want: d("2020-01-01T01:30:00Z")},
		// Across the 2021-03-14 DST change in New York a day keeps the wall
		// clock while 24 hours do not (MongoDB's documented example).
		{expr: add(d("2021-03-13T12:00:00Z"), "day", "1", `, "timezone": "America/New_York"`), want: d("2021-03-14T11:00:00Z")},
		{expr: add(d("2021-03-13T12:00:00Z"), "hour", "24", `, "timezone": "America/New_York"`), want: d("2021-03-14T12:00:00Z")},
		// mongod's own example: an hour in New York as the clocks go back.
		{expr: add(d("2020-11-01T05:50:02Z"), "hour", "1", `, "timezone": "America/New_York"`), want: d("2020-11-01T06:50:02Z")},
		{expr: add(d("2021-01-30T23:00:00Z"), "month", "1", `, "timezone": "+02:00"`), want: d("2021-02-27T23:00:00Z")},
		{expr: sub(d("2021-03-31T00:00:00Z"), "month", "1", ""), want: d("2021-02-28T00:00:00Z")},
		{expr: sub(d("2021-01-01T00:00:00Z"), "second", "1", ""), want: d("2020-12-31T23:59:59Z")},
		{expr: sub(`{"$timestamp": {"t": 1609459200, "i": 1}}`, "day", "1", ""), want: d("2020-12-31T00:00:00Z")},
		{expr: add(`null`, "day", "1", ""), want: `null`},
		{expr: add(`"$nope"`, "day", "1", ""), want: `null`},
		{expr: add(d("2021-01-01T00:00:00Z"), "day", "null", ""), want: `null`},
		{expr: add(d("2021-01-01T00:00:00Z"), "day", "1", `, "timezone": null`), want: `null`},
		{expr: `{"$dateAdd": {"startDate": ` + d("2021-01-01T00:00:00Z") + `, "unit": null, "amount": 1}}`, want: `null`},
		{expr: `{"$dateAdd": [1]}`, code: 5166400},
		{expr: `{"$dateAdd": {"startDate": 1, "unit": "day", "amount": 1, "x": 1}}`, code: 5166401},
		{expr: `{"$dateAdd": {"startDate": 1, "unit": "day"}}`, code: 5166402},
		{expr: add(`"2021-01-01"`, "day", "1", ""), code: 5166403},
		{expr: add(d("2021-01-01T00:00:00Z"), "day", "1.5", ""), code: 5166405},
		{expr: add(d("2021-01-01T00:00:00Z"), "day", `"1"`, ""), code: 5166405},
		{expr: add(d("2021-01-01T00:00:00Z"), "days", "1", ""), code: 5439014},
		{expr: `{"$dateAdd": {"startDate": ` + d("2021-01-01T00:00:00Z") + `, "unit": 1, "amount": 1}}`, code: 5439013},
		{expr: add(d("2021-01-01T00:00:00Z"), "day", "1", `, "timezone": "Mars/Olympus"`), code: 40485},
		{expr: add(d("2021-01-01T00:00:00Z"), "year", "1000000000", ""), code: 5976500},
		{expr: add(d("2021-01-01T00:00:00Z"), "second", `{"$numberLong": "18446744073744000"}`, ""), code: 5976500},
		{expr: add(d("2021-01-01T00:00:00Z"), "year", "300000000", ""), code: 5166406},
		{expr: sub(d("2021-01-01T00:00:00Z"), "second", `{"$numberLong": "9300000000000000"}`, ""), code: 5166406},
		{expr: add(d("2021-01-01T00:00:00Z"), "millisecond", `{"$numberLong": "9223372036854775807"}`, ""), code: 5166406},
		{expr: sub(d("2021-01-01T00:00:00Z"), "millisecond", `{"$numberLong": "-9223372036854775808"}`, ""), code: 6045000},
	})
}

func TestDateDiff(t *testing.T) {
	diff := func(a, b, unit, extra string) string {
		return `{"$dateDiff": {"startDate": ` + d(a) + `, "endDate": ` + d(b) + `, "unit": "` + unit + `"` + extra + `}}`
	}
	runExprCases(t, []exprCase{
		{expr: diff("2021-01-01T00:00:00Z", "2021-01-05T12:00:00Z", "day", ""), want: `{"$numberLong": "4"}`},
		{expr: diff("2020-12-31T23:59:59Z", "2021-01-01T00:00:00Z", "year", ""), want: `{"$numberLong": "1"}`},
		{expr: diff("2021-01-01T00:00:00Z", "2020-12-31T23:59:59Z", "year", ""), want: `{"$numberLong": "-1"}`},
		{expr: diff("2021-01-31T00:00:00Z", "2021-03-01T00:00:00Z", "month", ""), want: `{"$numberLong": "2"}`},
		{expr: diff("2021-03-31T00:00:00Z", "2021-04-01T00:00:00Z", "quarter", ""), want: `{"$numberLong": "1"}`},
		{expr: diff("2021-01-01T00:00:00.250Z", "2021-01-01T00:00:01.100Z", "second", ""), want: `{"$numberLong": "1"}`},
		{expr: diff("2021-01-01T00:00:00.250Z", "2021-01-01T00:00:01.100Z", "millisecond", ""), want: `{"$numberLong": "850"}`},
		{expr: diff("2021-01-01T00:10:00Z", "2021-01-01T00:40:00Z", "hour", ""), want: `{"$numberLong": "0"}`},
		{expr: diff("2021-01-01T00:10:00Z", "2021-01-01T00:40:00Z", "hour", `, "timezone": "+05:30"`), want: `{"$numberLong": "1"}`},
		// 2021-01-02 is a Saturday, 2021-01-04 a Monday.
		{expr: diff("2021-01-02T00:00:00Z", "2021-01-04T00:00:00Z", "week", ""), want: `{"$numberLong": "1"}`},
		{expr: diff("2021-01-02T00:00:00Z", "2021-01-04T00:00:00Z", "week", `, "startOfWeek": "Sat"`), want: `{"$numberLong": "0"}`},
		{expr: diff("2021-01-02T00:00:00Z", "2021-01-04T00:00:00Z", "week", `, "startOfWeek": "MONDAY"`), want: `{"$numberLong": "1"}`},
		{expr: diff("2021-01-01T00:00:00Z", "2021-01-04T00:00:00Z", "day", `, "startOfWeek": 5`), want: `{"$numberLong": "3"}`},
		{expr: diff("2021-01-01T23:30:00Z", "2021-01-02T00:30:00Z", "day", `, "timezone": "America/New_York"`), want: `{"$numberLong": "0"}`},
		// 2020-11-01 01:30 EDT to 01:30 EST is one hour of elapsed time.
		{expr: diff("2020-11-01T05:30:00Z", "2020-11-01T06:30:00Z", "hour", `, "timezone": "America/New_York"`), want: `{"$numberLong": "1"}`},
		{expr: diff("2020-11-01T05:30:00Z", "2020-11-01T06:30:00Z", "minute", `, "timezone": "America/New_York"`), want: `{"$numberLong": "60"}`},
		{expr: `{"$dateDiff": {"startDate": {"$date": {"$numberLong": "-9223372036854775808"}}, "endDate": {"$date": {"$numberLong": "9223372036854775807"}}, "unit": "millisecond"}}`, code: 5166308},
		{expr: `{"$dateDiff": {"startDate": null, "endDate": 1, "unit": "day"}}`, want: `null`},
		{expr: diff("2021-01-02T00:00:00Z", "2021-01-04T00:00:00Z", "week", `, "startOfWeek": null`), want: `null`},
		{expr: `{"$dateDiff": 1}`, code: 5166301},
		{expr: `{"$dateDiff": {"startDate": 1, "endDate": 1, "unit": "day", "bad": 1}}`, code: 5166302},
		{expr: `{"$dateDiff": {"endDate": 1, "unit": "day"}}`, code: 5166303},
		{expr: `{"$dateDiff": {"startDate": 1, "unit": "day"}}`, code: 5166304},
		{expr: `{"$dateDiff": {"startDate": 1, "endDate": 1}}`, code: 5166305},
		{expr: `{"$dateDiff": {"startDate": 1, "endDate": 1, "unit": "day"}}`, code: 5166307},
		{expr: diff("2021-01-02T00:00:00Z", "2021-01-04T00:00:00Z", "week", `, "startOfWeek": "someday"`), code: 5439016},
		{expr: diff("2021-01-02T00:00:00Z", "2021-01-04T00:00:00Z", "week", `, "startOfWeek": 1`), code: 5439015},
	})
}

func TestDateTrunc(t *testing.T) {
	trunc := func(date, unit, extra string) string {
		return `{"$dateTrunc": {"date": ` + d(date) + `, "unit": "` + unit + `"` + extra + `}}`
	}
	runExprCases(t, []exprCase{
		// MongoDB's documented binSize examples.
		{expr: trunc("2021-03-20T11:30:05Z", "hour", ""), want: d("2021-03-20T11:00:00Z")},
		{expr: trunc("2021-03-20T11:30:05Z", "hour", `, "binSize": 2`), want: d("2021-03-20T10:00:00Z")},
		{expr: trunc("2021-03-20T11:30:05.123Z", "second", ""), want: d("2021-03-20T11:30:05Z")},
		{expr: trunc("2021-03-20T11:30:05Z", "minute", `, "binSize": 7`), want: d("2021-03-20T11:26:00Z")},
		{expr: trunc("2021-03-20T11:30:05Z", "day", ""), want: d("2021-03-20T00:00:00Z")},
		{expr: trunc("2021-03-20T11:30:05Z", "month", ""), want: d("2021-03-01T00:00:00Z")},
		{expr: trunc("2021-03-20T11:30:05Z", "month", `, "binSize": 6`), want: d("2021-01-01T00:00:00Z")},
		{expr: trunc("2021-08-20T11:30:05Z", "quarter", ""), want: d("2021-07-01T00:00:00Z")},
		{expr: trunc("2021-08-20T11:30:05Z", "year", `, "binSize": 5`), want: d("2020-01-01T00:00:00Z")},
		{expr: trunc("1999-08-20T11:30:05Z", "year", `, "binSize": 5`), want: d("1995-01-01T00:00:00Z")},
		// 2021-03-20 is a Saturday.
		{expr: trunc("2021-03-20T11:30:05Z", "week", ""), want: d("2021-03-14T00:00:00Z")},
		{expr: trunc("2021-03-20T11:30:05Z", "week", `, "startOfWeek": "mon"`), want: d("2021-03-15T00:00:00Z")},
		{expr: trunc("2021-03-20T11:30:05Z", "week", `, "startOfWeek": "saturday"`), want: d("2021-03-20T00:00:00Z")},
		{expr: trunc("2021-03-20T02:30:05Z", "day", `, "timezone": "America/New_York"`), want: d("2021-03-19T04:00:00Z")},
		{expr: trunc("2021-03-20T11:50:05Z", "hour", `, "timezone": "+05:30"`), want: d("2021-03-20T11:30:00Z")},
		// Sub-day bins count elapsed time from 2000-01-01T00:00 New York
		// time (EST): two-hour bins start at odd UTC hours all year.
		{expr: trunc("2021-07-01T12:30:00Z", "hour", `, "binSize": 2, "timezone": "America/New_York"`), want: d("2021-07-01T11:00:00Z")},
		{expr: trunc("2021-01-01T12:30:00Z", "hour", `, "binSize": 2, "timezone": "America/New_York"`), want: d("2021-01-01T11:00:00Z")},
		{expr: trunc("2021-03-20T11:30:05Z", "hour", `, "binSize": {"$numberLong": "9223372036854775807"}`), code: 5439002},
		{expr: `{"$dateTrunc": {"date": null, "unit": "day"}}`, want: `null`},
		{expr: trunc("2021-03-20T11:30:05Z", "day", `, "binSize": null`), want: `null`},
		{expr: `{"$dateTrunc": 1}`, code: 5439007},
		{expr: `{"$dateTrunc": {"date": 1, "unit": "day", "x": 1}}`, code: 5439008},
		{expr: `{"$dateTrunc": {"unit": "day"}}`, code: 5439009},
		{expr: `{"$dateTrunc": {"date": 1}}`, code: 5439010},
		{expr: `{"$dateTrunc": {"date": 1, "unit": "day"}}`, code: 5439012},
		{expr: trunc("2021-03-20T11:30:05Z", "day", `, "binSize": 1.5`), code: 5439017},
		{expr: trunc("2021-03-20T11:30:05Z", "day", `, "binSize": 0`), code: 5439018},
		{expr: trunc("2021-03-20T11:30:05Z", "fortnight", ""), code: 5439014},
	})
}
