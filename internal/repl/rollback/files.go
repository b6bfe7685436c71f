package rollback

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// fileSeq numbers rollback files within a process, as MongoDB's
// RemoveSaver does, so two files of the same second never collide.
var fileSeq atomic.Int64

// FileDir returns the directory of a collection's rollback files:
// <dbpath>/rollback/<collectionUUID> (MongoDB 4.4 and later).
func FileDir(dbpath string, uuid bson.Binary) string {
	return filepath.Join(dbpath, "rollback", formatUUID(uuid.Data))
}

// formatUUID prints 16 bytes as 8-4-4-4-12 hex.
func formatUUID(b []byte) string {
	if len(b) != 16 {
		return hex.EncodeToString(b)
	}
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// fileName returns removed.<time>.<n>.bson for now, as MongoDB names
// rollback files (e.g. removed.2020-02-19T04-57-11.0.bson).
func fileName(now time.Time) string {
	return fmt.Sprintf("removed.%s.%d.bson", now.UTC().Format("2006-01-02T15-04-05"), fileSeq.Add(1)-1)
}

// writeFile saves docs, concatenated BSON, to a new rollback file of the
// collection and syncs it (and its directory) before returning its path.
func writeFile(dbpath string, uuid bson.Binary, docs []bson.D, now time.Time) (string, error) {
	dir := FileDir(dbpath, uuid)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("rollback: create %s: %w", dir, err)
	}
	path := filepath.Join(dir, fileName(now))
	var buf []byte
	for _, d := range docs {
		raw, err := bsonx.Encode(d)
		if err != nil {
			return "", fmt.Errorf("rollback: encode a saved document: %w", err)
		}
		buf = append(buf, raw...)
	}
	if err := writeSynced(path, buf); err != nil {
		return "", err
	}
	return path, syncDir(dir)
}

// writeSynced creates path (which must not exist) with data, synced.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("rollback: create %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("rollback: write %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("rollback: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("rollback: sync %s: %w", dir, err)
	}
	return nil
}

// ReadFile reads a rollback file back: the documents it holds, in order.
func ReadFile(path string) ([]bson.D, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rollback: read %s: %w", path, err)
	}
	var out []bson.D
	for len(data) > 0 {
		if len(data) < 4 {
			return nil, fmt.Errorf("rollback: %s: truncated document", path)
		}
		n := int(uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16 | uint32(data[3])<<24)
		if n < 5 || n > len(data) {
			return nil, fmt.Errorf("rollback: %s: bad document length %d", path, n)
		}
		d, err := bsonx.Decode(data[:n])
		if err != nil {
			return nil, fmt.Errorf("rollback: %s: %w", path, err)
		}
		out, data = append(out, d), data[n:]
	}
	return out, nil
}
