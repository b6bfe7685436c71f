package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/geo"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// geoKeys returns the keys a geo index holds for doc (see indexgeo.go).
func geoKeys(idx *Index, doc bson.D) (keys [][]byte, multikey bool, err error) {
	fields := make([][]any, len(idx.Key))
	anyGeo := false
	for i, f := range idx.Key {
		switch GeoKind(f.Value) {
		case sphereKeyValue:
			fields[i], err = sphereValues(doc, f.Key)
		case flatKeyValue:
			fields[i], err = flatValues(doc, f.Key, idx.geo.grid)
		default:
			var isArr bool
			fields[i] = pathValues(doc, f.Key, &isArr)
			multikey = multikey || isArr
			continue
		}
		if err != nil {
			return nil, false, err
		}
		if len(fields[i]) > 0 {
			anyGeo = true
		}
	}
	if !anyGeo {
		return nil, false, nil
	}
	keys = [][]byte{nil}
	for i, vals := range fields {
		if len(vals) == 0 {
			vals = []any{nil}
		}
		keys = extendKeys(keys, vals, isDesc(idx.Key[i].Value))
	}
	keys = dedupKeys(keys)
	return keys, multikey || len(keys) > 1, nil
}

// GeoLocations returns the location values at path, as geo indexes see
// them: documents are followed through arrays, and an array at the end
// is one location (a legacy pair) or a list of them. Missing and null
// give none.
func GeoLocations(doc bson.D, path string) []any { return geoLocations(doc, path) }

func geoLocations(doc bson.D, path string) []any {
	var isArr bool
	var out []any
	for _, v := range pathValuesNoExpand(doc, path, &isArr) {
		switch t := v.(type) {
		case nil, missingValue, bson.Undefined:
		case bson.A:
			if isLegacyPair(t) {
				out = append(out, t)
				continue
			}
			for _, e := range t {
				if e != nil {
					out = append(out, e)
				}
			}
		default:
			out = append(out, t)
		}
	}
	return out
}

// pathValuesNoExpand is pathValues without expanding an array at the end.
func pathValuesNoExpand(doc bson.D, path string, isArr *bool) []any {
	parent, last := "", path
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			parent, last = path[:i], path[i+1:]
			break
		}
	}
	if parent == "" {
		v, ok := bsonx.Get(doc, last)
		if !ok {
			return nil
		}
		return []any{v}
	}
	var out []any
	for _, p := range pathValues(doc, parent, isArr) {
		if d, ok := p.(bson.D); ok {
			if v, ok := bsonx.Get(d, last); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

func isLegacyPair(a bson.A) bool {
	if len(a) < 2 {
		return false
	}
	_, ok1 := bsonx.AsFloat64(a[0])
	_, ok2 := bsonx.AsFloat64(a[1])
	return ok1 && ok2
}

// sphereValues returns the 2dsphere cell keys of the locations at path.
func sphereValues(doc bson.D, path string) ([]any, error) {
	var out []any
	for _, loc := range geoLocations(doc, path) {
		g, err := geo.Parse(loc)
		if err == nil && g.SphereErr != nil {
			err = g.SphereErr
		}
		if err != nil {
			return nil, mongoerr.New(mongoerr.GeoExtractKeys, "Can't extract geo keys: %s  %v", bsonx.ToString(doc), err)
		}
		for _, c := range geo.CellKeys(g) {
			out = append(out, c)
		}
	}
	return out, nil
}

// flatValues returns the 2d geohash keys of the legacy pairs at path.
func flatValues(doc bson.D, path string, grid geo.Grid) ([]any, error) {
	var out []any
	for _, loc := range geoLocations(doc, path) {
		if d, ok := loc.(bson.D); ok {
			if _, hasType := bsonx.Get(d, "type"); hasType {
				return nil, mongoerr.New(mongoerr.Geo2dNotLegacy, "geo values must be 'legacy coordinate pairs' for 2d indexes")
			}
		}
		g, err := geo.ParseLegacy(loc)
		if err != nil {
			return nil, mongoerr.New(mongoerr.Geo2dNotLegacy, "geo values must be 'legacy coordinate pairs' for 2d indexes")
		}
		h, err := grid.Hash(g.X, g.Y)
		if err != nil {
			return nil, mongoerr.New(mongoerr.Geo2dPointOutOfRange, "%v", err)
		}
		out = append(out, h)
	}
	return out, nil
}
