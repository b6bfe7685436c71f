package catalog

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/geo"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Geo indexes are MongoDB's 2dsphere (2dsphereIndexVersion 3) and 2d
// indexes. A 2dsphere field stores, per document, the NumberLong S2 cell
// ids geo.CellKeys gives for every geometry at its path; a 2d field (the
// first of its pattern, one per pattern) stores the NumberLong geohash of
// every legacy pair there. Other fields are stored as in any index.
// Invariants:
//   - a document whose geo fields are all missing or null has no entry
//     (both kinds are sparse, as MongoDB's 2dsphere v2+ and 2d);
//   - a geometry that does not parse, or a 2d pair outside [min, max),
//     refuses the write (Location16755, Location13027), at insert, update
//     and index build alike;
//   - an index with more than one key for a document is multikey, so
//     scans over several cell ranges deduplicate by _id.

const (
	sphereKeyValue = "2dsphere"
	flatKeyValue   = "2d"
)

// geoParams are a geo index's options (nil for other indexes).
type geoParams struct {
	grid geo.Grid // 2d: bits, min, max
}

// GeoKind returns "2dsphere", "2d" or "" for a key pattern value.
func GeoKind(v any) string {
	s, _ := v.(string)
	if s == sphereKeyValue || s == flatKeyValue {
		return s
	}
	return ""
}

// GeoField returns the position and kind of idx's first geo field, or
// -1 and "" when idx is no geo index.
func (idx *Index) GeoField() (int, string) {
	for i, f := range idx.Key {
		if k := GeoKind(f.Value); k != "" {
			return i, k
		}
	}
	return -1, ""
}

// GeoFieldFor returns the position of the geo field on path in idx's
// pattern and its kind, or -1.
func (idx *Index) GeoFieldFor(path string) (int, string) {
	for i, f := range idx.Key {
		if f.Key == path && GeoKind(f.Value) != "" {
			return i, GeoKind(f.Value)
		}
	}
	return -1, ""
}

// validateGeo checks a pattern with geo fields and reads its options.
func (idx *Index) validateGeo(spec bson.D) error {
	pos, kind := idx.GeoField()
	if pos < 0 {
		return nil
	}
	n2d, nSphere := 0, 0
	for _, f := range idx.Key {
		switch GeoKind(f.Value) {
		case flatKeyValue:
			n2d++
		case sphereKeyValue:
			nSphere++
		}
		if IsHashedKey(f.Value) {
			return mongoerr.New(mongoerr.CannotCreateIndex, "Can't use more than one index plugin for a single index.")
		}
	}
	if n2d > 0 && nSphere > 0 {
		return mongoerr.New(mongoerr.CannotCreateIndex, "Can't use more than one index plugin for a single index.")
	}
	p := &geoParams{grid: geo.DefaultGrid}
	if kind == flatKeyValue {
		if err := validate2d(idx, pos, n2d, spec, p); err != nil {
			return err
		}
	} else if err := validateSphereVersion(spec); err != nil {
		return err
	}
	idx.geo = p
	return nil
}

func validate2d(idx *Index, pos, n int, spec bson.D, p *geoParams) error {
	if n > 1 {
		return mongoerr.New(mongoerr.Geo2dTwoFields, "can't have 2 geo fields")
	}
	if pos != 0 {
		return mongoerr.New(mongoerr.Geo2dNotFirst, "2d has to be first in index")
	}
	if v, ok := bsonx.Get(spec, "bits"); ok {
		b, _ := bsonx.AsFloat64(v)
		if b < 1 || b > 32 {
			return mongoerr.New(mongoerr.Geo2dBadBits, "bits in geo index must be between 1 and 32")
		}
		p.grid.Bits = int(b)
	}
	if v, ok := bsonx.Get(spec, "min"); ok {
		p.grid.Min, _ = bsonx.AsFloat64(v)
	}
	if v, ok := bsonx.Get(spec, "max"); ok {
		p.grid.Max, _ = bsonx.AsFloat64(v)
	}
	if !(p.grid.Min < p.grid.Max) {
		return mongoerr.New(mongoerr.CannotCreateIndex, "need a max value > min value")
	}
	return nil
}

// validateSphereVersion accepts 2dsphereIndexVersion 3 only (the keys
// relaydb writes).
func validateSphereVersion(spec bson.D) error {
	v, ok := bsonx.Get(spec, "2dsphereIndexVersion")
	if !ok {
		return nil
	}
	if n, isNum := bsonx.AsFloat64(v); !isNum || n != 3 {
		// TODO(#14): 2dsphereIndexVersion 1 and 2 (string cell keys).
		return mongoerr.New(mongoerr.CannotCreateIndex, "unsupported geo index version { 2dsphereIndexVersion : %v }, only support versions: [3]", bsonx.ToString(v))
	}
	return nil
}

// geoSpecDefaults adds the options listIndexes shows for a 2dsphere
// index created without them.
func geoSpecDefaults(idx *Index, rest bson.D) bson.D {
	if _, kind := idx.GeoField(); kind != sphereKeyValue {
		return rest
	}
	if _, ok := bsonx.Get(rest, "2dsphereIndexVersion"); ok {
		return rest
	}
	return append(rest, bson.E{Key: "2dsphereIndexVersion", Value: int32(3)})
}

// geoSpecFields are the index options of geo indexes.
var geoSpecFields = []string{"2dsphereIndexVersion", "bits", "min", "max", "coarsestIndexedLevel", "finestIndexedLevel"}

func init() {
	for _, f := range geoSpecFields {
		knownSpecFields[f] = true
	}
}

// GeoGrid returns a 2d index's geohash grid (the default grid for other
// indexes).
func (idx *Index) GeoGrid() geo.Grid {
	if idx.geo == nil {
		return geo.DefaultGrid
	}
	return idx.geo.grid
}
