package expr

import "testing"

func TestTypesAndConvert(t *testing.T) {
	runExprCases(t, []exprCase{
		{expr: `{"$type": "$a"}`, doc: `{"a": 1}`, want: `"int"`},
		{expr: `{"$type": "$x"}`, want: `"missing"`},
		{expr: `{"$type": [[1]]}`, want: `"array"`},
		{expr: `{"$isNumber": 1.5}`, want: `true`},
		{expr: `{"$isNumber": "1"}`, want: `false`},
		{expr: `{"$toString": 1.5}`, want: `"1.5"`},
		{expr: `{"$toString": 2.0}`, want: `"2"`},
		{expr: `{"$toString": true}`, want: `"true"`},
		{expr: `{"$toString": {"$oid": "5ab9cbfa31c2ab715d42129e"}}`, want: `"5ab9cbfa31c2ab715d42129e"`},
		{expr: `{"$toString": {"$date": "2018-03-27T16:58:51.538Z"}}`, want: `"2018-03-27T16:58:51.538Z"`},
		{expr: `{"$toString": null}`, want: `null`},
		{expr: `{"$toString": [[1]]}`, code: 241},
		{expr: `{"$toInt": "42"}`, want: `42`},
		{expr: `{"$toInt": 4.9}`, want: `4`},
		{expr: `{"$toInt": "4.5"}`, code: 241},
		{expr: `{"$toInt": 3000000000}`, code: 241},
		{expr: `{"$toLong": "3000000000"}`, want: `{"$numberLong": "3000000000"}`},
		{expr: `{"$toLong": {"$date": "1970-01-01T00:00:01Z"}}`, want: `{"$numberLong": "1000"}`},
		{expr: `{"$toDouble": "1.5"}`, want: `1.5`},
		{expr: `{"$toDouble": true}`, want: `1.0`},
		{expr: `{"$toDouble": "abc"}`, code: 241},
		{expr: `{"$toBool": 0}`, want: `false`},
		{expr: `{"$toBool": ""}`, want: `true`},
		{expr: `{"$toObjectId": "5ab9cbfa31c2ab715d42129e"}`, want: `{"$oid": "5ab9cbfa31c2ab715d42129e"}`},
		{expr: `{"$toObjectId": "zz"}`, code: 241},
		{expr: `{"$toDate": "2020-01-02T03:04:05Z"}`, want: `{"$date": "2020-01-02T03:04:05Z"}`},
		{expr: `{"$toDate": {"$numberLong": "1000"}}`, want: `{"$date": "1970-01-01T00:00:01Z"}`},
		{expr: `{"$convert": {"input": "x", "to": "int", "onError": -1}}`, want: `-1`},
		{expr: `{"$convert": {"input": null, "to": "int", "onNull": 0}}`, want: `0`},
		{expr: `{"$convert": {"input": "$missing", "to": "int"}}`, want: `null`},
		{expr: `{"$convert": {"input": 1, "to": 2}}`, want: `"1"`},
		{expr: `{"$convert": {"input": 1, "to": "nope"}}`, code: 2},
		{expr: `{"$convert": {"input": 1}}`, code: 9},
	})
}

func TestDates(t *testing.T) {
	const d = `{"d": {"$date": "2021-03-07T13:45:30.123Z"}}`
	runExprCases(t, []exprCase{
		{expr: `{"$year": "$d"}`, doc: d, want: `2021`},
		{expr: `{"$month": "$d"}`, doc: d, want: `3`},
		{expr: `{"$dayOfMonth": "$d"}`, doc: d, want: `7`},
		{expr: `{"$hour": "$d"}`, doc: d, want: `13`},
		{expr: `{"$minute": "$d"}`, doc: d, want: `45`},
		{expr: `{"$second": "$d"}`, doc: d, want: `30`},
		{expr: `{"$millisecond": "$d"}`, doc: d, want: `123`},
		{expr: `{"$dayOfWeek": "$d"}`, doc: d, want: `1`},
		{expr: `{"$dayOfYear": "$d"}`, doc: d, want: `66`},
		{expr: `{"$week": "$d"}`, doc: d, want: `10`},
		{expr: `{"$isoDayOfWeek": "$d"}`, doc: d, want: `7`},
		{expr: `{"$hour": {"date": "$d", "timezone": "+05:30"}}`, doc: d, want: `19`},
		{expr: `{"$hour": {"date": "$d", "timezone": "America/New_York"}}`, doc: d, want: `8`},
		{expr: `{"$hour": {"date": "$d", "timezone": "Nowhere/City"}}`, doc: d, code: 40485},
		{expr: `{"$year": "$x"}`, want: `null`},
		{expr: `{"$year": "abc"}`, code: 16006},
		{expr: `{"$year": {"$oid": "5ab9cbfa31c2ab715d42129e"}}`, want: `2018`},
		{expr: `{"$dateToString": {"date": "$d"}}`, doc: d, want: `"2021-03-07T13:45:30.123Z"`},
		{expr: `{"$dateToString": {"date": "$d", "format": "%Y/%m/%d %H:%M:%S %j %w %u %%"}}`, doc: d, want: `"2021/03/07 13:45:30 066 1 7 %"`},
		{expr: `{"$dateToString": {"date": "$d", "format": "%H %z %Z", "timezone": "-02:00"}}`, doc: d, want: `"11 -0200 -120"`},
		{expr: `{"$dateToString": {"date": "$d", "format": "%G-W%V"}}`, doc: d, want: `"2021-W09"`},
		{expr: `{"$dateToString": {"date": "$x", "onNull": "none"}}`, want: `"none"`},
		{expr: `{"$dateToString": {"date": "$d", "format": "%Q"}}`, doc: d, code: 18536},
		{expr: `{"$dateToString": {"date": "$d", "format": "abc%"}}`, doc: d, code: 18535},
		{expr: `{"$dateFromString": {"dateString": "2021-03-07"}}`, want: `{"$date": "2021-03-07T00:00:00Z"}`},
	})
}

func TestObjects(t *testing.T) {
	runExprCases(t, []exprCase{
		{expr: `{"$mergeObjects": [{"a": 1, "b": 2}, null, {"b": 3, "c": 4}]}`, want: `{"a": 1, "b": 3, "c": 4}`},
		{expr: `{"$mergeObjects": [{"a": 1}, 5]}`, code: 40400},
		{expr: `{"$objectToArray": {"a": 1, "b": "x"}}`, want: `[{"k": "a", "v": 1}, {"k": "b", "v": "x"}]`},
		{expr: `{"$objectToArray": 1}`, code: 40390},
		{expr: `{"$arrayToObject": [[["a", 1], ["b", 2], ["a", 3]]]}`, want: `{"a": 3, "b": 2}`},
		{expr: `{"$arrayToObject": [[{"k": "a", "v": 1}]]}`, want: `{"a": 1}`},
		{expr: `{"$arrayToObject": [[{"k": "a", "v": 1}, ["b", 2]]]}`, code: 40391},
		{expr: `{"$arrayToObject": [[[1, 2]]]}`, code: 40394},
		{expr: `{"$arrayToObject": 5}`, code: 40386},
		{expr: `{"$getField": "a.b"}`, doc: `{"a.b": 1}`, want: `1`},
		{expr: `{"$getField": {"field": {"$literal": "$x"}, "input": {"$literal": {"$x": 2}}}}`, want: `2`},
		{expr: `{"$getField": {"field": "$x", "input": {}}}`, code: 5654602},
		{expr: `{"$getField": {"field": "x", "input": 5}}`, want: `MISSING`},
	})
}

func TestLimits(t *testing.T) {
	runExprCases(t, []exprCase{
		{expr: `{"$range": [0, 2147483647]}`, code: 5541800},
		{expr: `{"$hour": {"date": {"$date": "2021-01-01T00:00:00Z"}, "timezone": "+"}}`, code: 40485},
		{expr: `{"$hour": {"date": {"$date": "2021-01-01T00:00:00Z"}, "timezone": "-0130"}}`, want: `22`},
		{expr: `{"$hour": {"date": {"$date": "2021-01-01T00:00:00Z"}, "timezone": "+03"}}`, want: `3`},
	})
}
