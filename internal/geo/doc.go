// Package geo is relaydb's geospatial geometry: it parses the shapes
// documents store (GeoJSON objects and legacy coordinate pairs) and the
// regions queries name ($geometry, $box, $center, $centerSphere,
// $polygon), decides containment, intersection and distance, and computes
// the index keys of 2dsphere (S2 cell ids, MongoDB's 2dsphereIndexVersion
// 3) and 2d (geohash) indexes. Spherical geometry is github.com/golang/geo
// (s2), as MongoDB's is S2; only the planar tests of legacy 2d regions are
// written here.
//
// Invariants:
//   - a parsed Geometry is valid: every longitude in [-180, 180], every
//     latitude in [-90, 90], loops closed, simple and with holes inside
//     their shell; invalid input is an error, never a partial shape;
//   - a 2dsphere key is the NumberLong of an S2 cell id at a level in
//     [CoarsestLevel, FinestLevel]; a point's key is its cell at
//     FinestLevel, another shape's keys cover it (at most MaxKeysPerInsert
//     cells), so a query region's covering cells and their ancestors find
//     every document the region can match;
//   - distances are meters for GeoJSON points, radians for $nearSphere and
//     $centerSphere on legacy pairs, and coordinate units for flat ($near
//     on legacy pairs) queries, as MongoDB's.
package geo

// EarthRadiusMeters is MongoDB's kRadiusOfEarthInMeters.
const EarthRadiusMeters = 6378.1 * 1000

// MaxKeysPerInsert bounds the cells covering one stored shape (MongoDB's
// default maxKeysPerInsert).
const MaxKeysPerInsert = 200
