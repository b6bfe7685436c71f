package agg

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// Spilling: a stage past its memory limit (with allowDiskUse) writes what
// it holds as a run, a file of BSON documents back to back, under
// Env.TempDir (<dbpath>/_tmp on a server, as mongod; os.TempDir() when
// unset). The stage's iterator owns its runs and removes them when it is
// exhausted, fails or is closed; a crash leaves them for ClearTempDir at
// the next start.

// ClearTempDir removes dir and everything in it: the spill files a
// previous process left behind. Call it at startup, before serving.
func ClearTempDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("agg: clear temp dir: %w", err)
	}
	return nil
}

// runFile is one spilled run on disk.
type runFile struct{ path string }

// spillSet is the runs one stage has written.
type spillSet struct {
	l    *limits
	runs []*runFile
}

// removeAll deletes every run; safe to call more than once.
func (s *spillSet) removeAll() {
	for _, r := range s.runs {
		_ = os.Remove(r.path)
	}
	s.runs = nil
}

// write spills the documents of src as a new run; it does not close src.
// An error of src is returned as it is, after the run is written.
func (s *spillSet) write(kind string, src Iterator) (*runFile, error) {
	dir := s.l.tempDir
	if dir == "" {
		dir = os.TempDir()
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("agg: spill: %w", err)
	}
	f, err := os.CreateTemp(dir, "agg-"+kind+"-*.bson")
	if err != nil {
		return nil, fmt.Errorf("agg: spill: %w", err)
	}
	r := &runFile{path: f.Name()}
	s.runs = append(s.runs, r)
	if err := writeRun(f, src); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("agg: spill to %s: %w", r.path, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("agg: spill to %s: %w", r.path, err)
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// writeRun writes src's documents to f until src ends (or fails: the
// caller checks src.Err).
func writeRun(f *os.File, src Iterator) error {
	w := bufio.NewWriterSize(f, 64<<10)
	var buf []byte
	for {
		d, ok := src.Next()
		if !ok {
			return w.Flush()
		}
		var err error
		if buf, err = bsonx.AppendDocument(buf[:0], d); err != nil {
			return err
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
}

// runReader reads a run's documents in order, as an Iterator.
type runReader struct {
	f    *os.File
	r    *bufio.Reader
	buf  []byte
	err  error
	done bool
}

func (r *runFile) open() (*runReader, error) {
	f, err := os.Open(r.path)
	if err != nil {
		return nil, fmt.Errorf("agg: read spill: %w", err)
	}
	return &runReader{f: f, r: bufio.NewReaderSize(f, 64<<10)}, nil
}

func (r *runReader) Next() (bson.D, bool) {
	if r.done {
		return nil, false
	}
	d, ok, err := r.read()
	if err != nil || !ok {
		r.done, r.err = true, err
		return nil, false
	}
	return d, true
}

func (r *runReader) Err() error { return r.err }

// read decodes the next document of the run.
func (r *runReader) read() (bson.D, bool, error) {
	var size [4]byte
	if _, err := io.ReadFull(r.r, size[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("agg: read spill: %w", err)
	}
	n := int(binary.LittleEndian.Uint32(size[:]))
	if n < 5 {
		return nil, false, fmt.Errorf("agg: read spill: bad document length %d", n)
	}
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	copy(b, size[:])
	if _, err := io.ReadFull(r.r, b[4:]); err != nil {
		return nil, false, fmt.Errorf("agg: read spill: %w", err)
	}
	d, err := bsonx.Decode(b) // copies what it keeps: b is reused
	if err != nil {
		return nil, false, fmt.Errorf("agg: read spill: %w", err)
	}
	return d, true, nil
}

func (r *runReader) Close() error {
	r.done = true
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// maxFanIn bounds the runs a stage keeps (and so the files a merge opens
// at once): at that many, the newest maxFanIn runs are merged into one.
// A var so tests can make it small.
var maxFanIn = 64

// mergeFunc merges sorted sources into one sorted stream; closing the
// stream closes the sources. On error it closes them itself.
type mergeFunc func(srcs []Iterator) (Iterator, error)

// compact merges the newest maxFanIn runs into one when there are that
// many. Merging contiguous runs keeps the runs contiguous stretches of
// the input, in order. On error every file is still in s, for removeAll.
func (s *spillSet) compact(kind string, merge mergeFunc) error {
	if len(s.runs) < maxFanIn {
		return nil
	}
	cut := len(s.runs) - maxFanIn
	old := slices.Clone(s.runs[cut:])
	srcs, err := openRuns(old)
	if err != nil {
		return err
	}
	merged, err := merge(srcs)
	if err != nil {
		return err
	}
	defer merged.Close()
	r, err := s.write(kind, merged)
	if err != nil {
		return err
	}
	for _, o := range old {
		_ = os.Remove(o.path)
	}
	s.runs = append(s.runs[:cut], r)
	return nil
}
