package mongoerr

// Date arithmetic codes ($dateAdd, $dateSubtract, $dateDiff, $dateTrunc;
// issue #14), kept apart from locations.go so this work edits no shared
// list. All are location codes: codeName "Location<code>".
const (
	DateArithNotObject     Code = 5166400 // $dateAdd/$dateSubtract argument is not an object
	DateArithUnknownArg    Code = 5166401 // unrecognized argument to $dateAdd/$dateSubtract
	DateArithMissingArg    Code = 5166402 // startDate, unit or amount missing
	DateArithBadStartDate  Code = 5166403 // startDate not convertible to a date
	DateArithBadAmount     Code = 5166405 // amount not an integral 64-bit number
	DateArithOverflow      Code = 5166406 // result leaves the representable date range
	DateSubtractMinAmount  Code = 6045000 // $dateSubtract amount is the minimum int64
	DateAddBadAmount       Code = 5976500 // amount past the unit's bound (about 2^64 ms)
	DateDiffNotObject      Code = 5166301
	DateDiffUnknownArg     Code = 5166302
	DateDiffMissingStart   Code = 5166303
	DateDiffMissingEnd     Code = 5166304
	DateDiffMissingUnit    Code = 5166305
	DateDiffBadDate        Code = 5166307 // startDate/endDate not a date
	DateDiffOverflow       Code = 5166308 // millisecond difference past int64
	DateTruncNotObject     Code = 5439007
	DateTruncUnknownArg    Code = 5439008
	DateTruncMissingDate   Code = 5439009
	DateTruncMissingUnit   Code = 5439010
	DateTruncBadDate       Code = 5439012
	DateUnitNotString      Code = 5439013
	DateUnitUnknown        Code = 5439014
	DateStartOfWeekNotStr  Code = 5439015
	DateStartOfWeekUnknown Code = 5439016
	DateTruncBinSizeNotInt Code = 5439017
	DateTruncBinSizeNotPos Code = 5439018
	DateTruncOverflow      Code = 5439002 // binSize in milliseconds past int64
)

// $dateFromParts and $dateToParts codes (location codes).
const (
	DatePartNotInteger      Code = 40515 // a part is not an integral number
	DateFromPartsNoYear     Code = 40516 // neither year nor isoWeekYear
	DateFromPartsUnknownArg Code = 40518
	DateFromPartsNotObject  Code = 40519
	DateToPartsUnknownArg   Code = 40520
	DateToPartsISONotBool   Code = 40521
	DateToPartsMissingDate  Code = 40522
	DateFromPartsYearRange  Code = 40523 // year outside 1..9999
	DateToPartsNotObject    Code = 40524
	DateFromPartsISOMixed   Code = 40525 // isoWeekYear with month or day
	DateFromPartsMixed      Code = 40489 // year with an ISO part
	DatePartOutOfRange      Code = 31034 // a bounded part outside [-32768, 32767]
	DateFromPartsISOYear    Code = 31095 // isoWeekYear outside 1..9999
)
