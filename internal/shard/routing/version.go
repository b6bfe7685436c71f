package routing

import (
	"cmp"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ChunkVersion is MongoDB's chunk (placement) version: the collection
// generation (epoch and timestamp, fixed while the collection keeps its
// shard key) and the placement major.minor. A migration bumps major; a
// split or merge bumps minor.
type ChunkVersion struct {
	Epoch     bson.ObjectID
	Timestamp bson.Timestamp // the collection's creation (sharding) time
	Major     uint32
	Minor     uint32
}

// VersionFromLastmod rebuilds a chunk's version from config.chunks, which
// stores major.minor packed as Timestamp(major, minor).
func VersionFromLastmod(epoch bson.ObjectID, ts bson.Timestamp, lastmod bson.Timestamp) ChunkVersion {
	return ChunkVersion{Epoch: epoch, Timestamp: ts, Major: lastmod.T, Minor: lastmod.I}
}

// Lastmod packs major.minor as config.chunks stores it: Timestamp(major, minor).
func (v ChunkVersion) Lastmod() bson.Timestamp { return bson.Timestamp{T: v.Major, I: v.Minor} }

// IsSet reports whether major.minor is not 0.0 (0.0 is a shard owning no
// chunk of the collection).
func (v ChunkVersion) IsSet() bool { return v.Major != 0 || v.Minor != 0 }

// SameCollection reports whether v and o belong to the same collection
// generation (epoch and timestamp).
func (v ChunkVersion) SameCollection(o ChunkVersion) bool {
	return v.Epoch == o.Epoch && v.Timestamp == o.Timestamp
}

// Compare orders versions as MongoDB's ChunkVersion::isOlderThan: by
// collection timestamp (a newer generation is newer whatever its
// placement), then major, then minor. The epoch is not ordered; within one
// collection it is equal.
func (v ChunkVersion) Compare(o ChunkVersion) int {
	if c := v.Timestamp.Compare(o.Timestamp); c != 0 {
		return c
	}
	if c := cmp.Compare(v.Major, o.Major); c != 0 {
		return c
	}
	return cmp.Compare(v.Minor, o.Minor)
}

// Less reports whether v is older than o.
func (v ChunkVersion) Less(o ChunkVersion) bool { return v.Compare(o) < 0 }

// Equal reports whether v and o are the same version of the same generation.
func (v ChunkVersion) Equal(o ChunkVersion) bool { return v == o }

// IncMinor returns v with minor+1 (a split or merge).
func (v ChunkVersion) IncMinor() ChunkVersion { v.Minor++; return v }

// IncMajor returns v with major+1 and minor 0 (a migration).
func (v ChunkVersion) IncMajor() ChunkVersion { v.Major++; v.Minor = 0; return v }

// String renders v as MongoDB's ChunkVersion::toString:
// major|minor||epoch||Timestamp(t, i).
func (v ChunkVersion) String() string {
	return fmt.Sprintf("%d|%d||%s||Timestamp(%d, %d)", v.Major, v.Minor, v.Epoch.Hex(), v.Timestamp.T, v.Timestamp.I)
}
