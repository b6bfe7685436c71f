package storage

// Completing a large collection's key filter in the background: after a
// restart, a collection holding more than fillFilterMax documents would
// otherwise stay unfiltered, and every insert of an _id below its bound
// (YCSB's hashed keys, most ObjectIds of other clients) would pay the
// existence probe, a seek through every memtable.
//
// Invariants:
//   - Registration comes first: startFilter puts the partly filled filter
//     in docMax.building under d.mu where the collection's bound is first
//     filled, so every batch of the collection that commits afterwards
//     notes its keys into it (noteFiltered); the filler's iterator is
//     opened after that, so every key committed before it is in its view.
//     Together: once the filler reaches the end, every key the collection
//     holds (or held) is in the filter, and it becomes the collection's
//     filter (d.f).
//   - Until then the collection is unfiltered: probes below the bound are
//     made, as before.
//   - Memory: the filter within the engine's byte budget and maxFilterKeys
//     (over either, it is dropped for good); the filler holds one chunk of
//     fillChunk keys. It adds a chunk per hold of d.mu, and stops when the
//     engine closes or the filter is dropped (d.building no longer names
//     it).

// fillChunk is how many keys the filler adds per hold of docMax.mu.
const fillChunk = 4096

// fillStarted, when set (tests), runs once the filler's iterator is open.
var fillStarted func()

// fillInBackground registers f (holding the keys before resume) as id's
// filter being filled and starts the filler. REQUIRES: d.mu.
func (d *docMax) fillInBackground(e *Engine, id uint32, f *docFilter, resume []byte) {
	if d.building == nil {
		d.building = map[uint32]*docFilter{}
	}
	d.building[id] = f
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		if err := d.fill(e, id, f, resume); err != nil {
			e.logger.Warn("storage: the _id filter of a collection could not be filled; inserts into it probe for their _id",
				"collection", id, "error", err)
		}
	}()
}

// fill adds the keys from resume on, a chunk at a time, then installs f.
func (d *docMax) fill(e *Engine, id uint32, f *docFilter, resume []byte) error {
	lo := DocPrefix(id)
	it, err := e.NewIter(resume, PrefixEnd(lo))
	if err != nil {
		d.dropBuilding(id, f)
		return err
	}
	defer it.Close()
	if fillStarted != nil {
		fillStarted()
	}
	chunk := make([][]byte, 0, fillChunk)
	for ok := it.First(); ; ok = it.Next() {
		if ok {
			chunk = append(chunk, append([]byte(nil), it.Key()...))
			if len(chunk) < fillChunk {
				continue
			}
		}
		if err := it.Error(); err != nil {
			d.dropBuilding(id, f)
			return err
		}
		select {
		case <-e.stop:
			d.dropBuilding(id, f)
			return nil
		default:
		}
		if !d.addChunk(id, f, chunk, !ok) || !ok {
			return nil
		}
		chunk = chunk[:0]
	}
}

// addChunk adds keys to f while it is still id's filter being filled and,
// when last, installs it; false when f was dropped (full, or over budget).
func (d *docMax) addChunk(id uint32, f *docFilter, keys [][]byte, last bool) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.building[id] != f {
		return false
	}
	for _, k := range keys {
		if !d.addLocked(f, k) {
			delete(d.building, id)
			return false
		}
	}
	if last {
		delete(d.building, id)
		if d.f == nil {
			d.f = map[uint32]*docFilter{}
		}
		d.f[id] = f
	}
	return true
}

// dropBuilding gives up id's filter being filled, if it is still f.
func (d *docMax) dropBuilding(id uint32, f *docFilter) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.building[id] == f {
		delete(d.building, id)
		for _, s := range f.segs {
			d.fBytes -= len(s.bits) * 8
		}
	}
}
