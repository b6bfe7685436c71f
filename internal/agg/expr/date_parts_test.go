package expr

import "testing"

func TestDateFromParts(t *testing.T) {
	runExprCases(t, []exprCase{
		// MongoDB's documented examples.
		{expr: `{"$dateFromParts": {"year": 2017, "month": 2, "day": 8, "hour": 12}}`, want: d("2017-02-08T12:00:00Z")},
		{expr: `{"$dateFromParts": {"isoWeekYear": 2017, "isoWeek": 6, "isoDayOfWeek": 3, "hour": 12}}`, want: d("2017-02-08T12:00:00Z")},
		{expr: `{"$dateFromParts": {"year": 2016, "month": 12, "day": 31, "hour": 23, "minute": 46, "second": 12, "timezone": "America/New_York"}}`, want: d("2017-01-01T04:46:12Z")},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 14, "day": 1}}`, want: d("2018-02-01T00:00:00Z")},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 3, "day": 0}}`, want: d("2017-02-28T00:00:00Z")},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 0}}`, want: d("2016-12-01T00:00:00Z")},
		{expr: `{"$dateFromParts": {"year": 2017, "second": -1, "millisecond": 1500}}`, want: d("2017-01-01T00:00:00.500Z")},
		{expr: `{"$dateFromParts": {"year": 2017, "hour": 1.0, "timezone": "+0530"}}`, want: d("2016-12-31T19:30:00Z")},
		{expr: `{"$dateFromParts": {"isoWeekYear": 2021}}`, want: d("2021-01-04T00:00:00Z")},
		{expr: `{"$dateFromParts": {"isoWeekYear": 2020, "isoWeek": 53, "isoDayOfWeek": 7}}`, want: d("2021-01-03T00:00:00Z")},
		{expr: `{"$dateFromParts": {"year": 2017, "month": null}}`, want: `null`},
		{expr: `{"$dateFromParts": {"year": "$nope"}}`, want: `null`},
		{expr: `{"$dateFromParts": {"year": 2017, "timezone": null}}`, want: `null`},
		{expr: `{"$dateFromParts": 1}`, code: 40519},
		{expr: `{"$dateFromParts": {"year": 2017, "hours": 1}}`, code: 40518},
		{expr: `{"$dateFromParts": {"month": 1}}`, code: 40516},
		{expr: `{"$dateFromParts": {"year": 2017, "isoWeek": 1}}`, code: 40489},
		{expr: `{"$dateFromParts": {"isoWeekYear": 2017, "day": 1}}`, code: 40525},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 1.5}}`, code: 40515},
		{expr: `{"$dateFromParts": {"year": "2017"}}`, code: 40515},
		{expr: `{"$dateFromParts": {"year": 10000}}`, code: 40523},
		{expr: `{"$dateFromParts": {"year": 0}}`, code: 40523},
		{expr: `{"$dateFromParts": {"isoWeekYear": 0}}`, code: 31095},
		{expr: `{"$dateFromParts": {"year": 2017, "month": 40000}}`, code: 31034},
		{expr: `{"$dateFromParts": {"year": 2017, "timezone": "Nowhere/Town"}}`, code: 40485},
	})
}

func TestDateToParts(t *testing.T) {
	date := d("2017-01-01T01:29:09.123Z")
	runExprCases(t, []exprCase{
		// MongoDB's documented examples.
		{expr: `{"$dateToParts": {"date": ` + date + `}}`,
			want: `{"year": 2017, "month": 1, "day": 1, "hour": 1, "minute": 29, "second": 9, "millisecond": 123}`},
		{expr: `{"$dateToParts": {"date": ` + date + `, "timezone": "America/New_York"}}`,
			want: `{"year": 2016, "month": 12, "day": 31, "hour": 20, "minute": 29, "second": 9, "millisecond": 123}`},
		{expr: `{"$dateToParts": {"date": ` + date + `, "iso8601": true}}`,
			want: `{"isoWeekYear": 2016, "isoWeek": 52, "isoDayOfWeek": 7, "hour": 1, "minute": 29, "second": 9, "millisecond": 123}`},
		{expr: `{"$dateToParts": {"date": ` + date + `, "iso8601": false, "timezone": "+01"}}`,
			want: `{"year": 2017, "month": 1, "day": 1, "hour": 2, "minute": 29, "second": 9, "millisecond": 123}`},
		{expr: `{"$dateToParts": {"date": null}}`, want: `null`},
		{expr: `{"$dateToParts": {"date": ` + date + `, "iso8601": null}}`, want: `null`},
		{expr: `{"$dateToParts": {"date": ` + date + `, "timezone": null}}`, want: `null`},
		{expr: `{"$dateToParts": 1}`, code: 40524},
		{expr: `{"$dateToParts": {"date": 1, "x": 1}}`, code: 40520},
		{expr: `{"$dateToParts": {"timezone": "UTC"}}`, code: 40522},
		{expr: `{"$dateToParts": {"date": ` + date + `, "iso8601": 1}}`, code: 40521},
		{expr: `{"$dateToParts": {"date": "2017"}}`, code: 16006},
	})
}
