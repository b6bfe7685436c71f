package storage

import (
	"encoding/binary"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Every key relaydb writes starts with one of these prefix bytes. Nothing
// else may be written to the engine.
const (
	// PrefixMeta holds engine metadata: meta/format-version.
	PrefixMeta byte = 0x01
	// PrefixCatalog holds one BSON catalog entry per collection:
	// PrefixCatalog + collID(4B BE) -> {id, db, name, uuid, options, indexes}.
	// The key PrefixCatalog + "next-id" holds the next id to allocate.
	PrefixCatalog byte = 0x02
	// PrefixDocument holds documents: PrefixDocument + collID(4B BE) +
	// keystring(_id) -> raw BSON.
	PrefixDocument byte = 0x03
	// PrefixIndex holds index entries: PrefixIndex + indexID(4B BE) +
	// keystring(values...) [+ keystring(_id) for non-unique indexes].
	// Unique indexes store keystring(_id) as the value.
	PrefixIndex byte = 0x04
	// PrefixOplog holds the oplog: PrefixOplog + ts(8B BE: T<<32|I) -> BSON entry.
	PrefixOplog byte = 0x05
	// PrefixCollStats holds per-collection counters: PrefixCollStats +
	// collID(4B BE) -> count(8B BE) + dataSize(8B BE).
	PrefixCollStats byte = 0x06
	// PrefixRepl is reserved for replication markers (minValid,
	// appliedThrough, last vote, replica set config).
	PrefixRepl byte = 0x07
)

// FormatVersion is the on-disk data format this build writes.
// Open refuses a directory with a newer or unknown version.
const FormatVersion uint32 = 1

// KeyFormatVersion is where the format version lives.
var KeyFormatVersion = []byte{PrefixMeta, 'f', 'o', 'r', 'm', 'a', 't', '-', 'v', 'e', 'r', 's', 'i', 'o', 'n'}

// KeyNextID holds the next collection/index id (4B BE).
var KeyNextID = []byte{PrefixCatalog, 'n', 'e', 'x', 't', '-', 'i', 'd'}

// Replication markers (PrefixRepl), each ts(8B BE) + term(8B BE); see
// catalog/markers.go for their meaning.
var (
	KeyMinValid           = []byte{PrefixRepl, 'm', 'i', 'n', 'V', 'a', 'l', 'i', 'd'}
	KeyAppliedThrough     = []byte{PrefixRepl, 'a', 'p', 'p', 'l', 'i', 'e', 'd'}
	KeyOplogTruncateAfter = []byte{PrefixRepl, 't', 'r', 'u', 'n', 'c', 'A', 'f', 't', 'e', 'r'}
)

// appendID appends prefix + id (4B BE).
func appendID(dst []byte, prefix byte, id uint32) []byte {
	dst = append(dst, prefix)
	return binary.BigEndian.AppendUint32(dst, id)
}

// CatalogKey returns the catalog entry key of collection id.
func CatalogKey(id uint32) []byte { return appendID(nil, PrefixCatalog, id) }

// CatalogBounds returns [lo, hi) covering every collection catalog entry.
func CatalogBounds() (lo, hi []byte) {
	return appendID(nil, PrefixCatalog, 0), []byte{PrefixCatalog, 0xff, 0xff, 0xff, 0xff, 0xff}
}

// DocPrefix returns the prefix of collection id's documents.
func DocPrefix(collID uint32) []byte { return appendID(nil, PrefixDocument, collID) }

// DocKey returns the key of the document whose keystring(_id) is idKS.
func DocKey(collID uint32, idKS []byte) []byte {
	return append(appendID(make([]byte, 0, 5+len(idKS)), PrefixDocument, collID), idKS...)
}

// IndexPrefix returns the prefix of index id's entries.
func IndexPrefix(indexID uint32) []byte { return appendID(nil, PrefixIndex, indexID) }

// CollStatsKey returns the counters key of collection id.
func CollStatsKey(collID uint32) []byte { return appendID(nil, PrefixCollStats, collID) }

// OplogKey returns the oplog key of ts.
func OplogKey(ts bson.Timestamp) []byte {
	k := make([]byte, 9)
	k[0] = PrefixOplog
	binary.BigEndian.PutUint64(k[1:], uint64(ts.T)<<32|uint64(ts.I))
	return k
}

// OplogTS decodes an oplog key; ok is false if k is not one.
func OplogTS(k []byte) (bson.Timestamp, bool) {
	if len(k) != 9 || k[0] != PrefixOplog {
		return bson.Timestamp{}, false
	}
	v := binary.BigEndian.Uint64(k[1:])
	return bson.Timestamp{T: uint32(v >> 32), I: uint32(v)}, true
}

// OplogBounds returns [lo, hi) covering the whole oplog.
func OplogBounds() (lo, hi []byte) { return []byte{PrefixOplog}, []byte{PrefixOplog + 1} }

// PrefixEnd returns the smallest key greater than every key with prefix p
// (nil if there is none).
func PrefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
