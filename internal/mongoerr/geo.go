package mongoerr

// Geospatial location codes (2dsphere and 2d indexes, $near, $geoNear).
// Kept apart from locations.go so the geo work edits no shared list.
const (
	GeoExtractKeys        Code = 16755 // location code: codeName Location16755 (invalid geometry on insert)
	Geo2dPointOutOfRange  Code = 13027 // location code: codeName Location13027 (2d point outside [min, max))
	Geo2dBadBits          Code = 13028 // location code: codeName Location13028 (bits not in 1..32)
	Geo2dTwoFields        Code = 16800 // location code: codeName Location16800 (two 2d fields)
	Geo2dNotFirst         Code = 16801 // location code: codeName Location16801 (2d not the first field)
	Geo2dNotLegacy        Code = 16804 // location code: codeName Location16804 (2d value not a legacy pair)
	GeoNearNotFirst       Code = 40603 // location code: codeName Location40603 ($geoNear not first stage)
	GeoNearNeedsDistField Code = 40606 // location code: codeName Location40606 ($geoNear distanceField)
)
