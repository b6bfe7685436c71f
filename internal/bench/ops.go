package bench

import (
	"context"
	"math/rand/v2"
	"time"
)

// worker is one client thread: its DB, random source and the shared
// workload and measurements.
type worker struct {
	w   *Workload
	db  DB
	r   *rand.Rand
	m   *Measurements
	ctx context.Context
}

// timed runs f, records its latency under op (op+"-FAILED" when it did
// not succeed) and its status under op, as YCSB's DBWrapper does.
func (k *worker) timed(op string, f func() Status) Status {
	start := time.Now()
	st := f()
	us := time.Since(start).Microseconds()
	name := op
	if !st.OK() {
		name += "-FAILED"
	}
	k.m.Measure(name, us)
	k.m.Report(op, st)
	return st
}

// doInsert is one load-phase insert (CoreWorkload.doInsert).
func (k *worker) doInsert() {
	key := k.w.keyName(k.w.loadKeys.Next(nil))
	values := k.w.buildValues(k.r)
	k.timed(OpInsert, func() Status { return k.db.Insert(k.ctx, k.w.Table, key, values) })
}

// doTransaction is one run-phase operation (CoreWorkload.doTransaction).
func (k *worker) doTransaction() {
	switch k.w.NextOperation(k.r) {
	case OpRead:
		k.read()
	case OpUpdate:
		k.update()
	case OpInsert:
		k.insert()
	case OpScan:
		k.scan()
	default:
		k.readModifyWrite()
	}
}

func (k *worker) read() Status {
	key := k.w.keyName(k.w.nextKeynum(k.r))
	fields := k.w.readFields(k.r)
	return k.timed(OpRead, func() Status { return k.db.Read(k.ctx, k.w.Table, key, fields) })
}

func (k *worker) update() {
	key := k.w.keyName(k.w.nextKeynum(k.r))
	values := k.w.updateValues(k.r)
	k.timed(OpUpdate, func() Status { return k.db.Update(k.ctx, k.w.Table, key, values) })
}

// insert adds a new key beyond the loaded ones; reads see it once it and
// every earlier new key were acknowledged.
func (k *worker) insert() {
	keynum := k.w.insertKeys.Next(nil)
	defer k.w.insertKeys.Acknowledge(keynum)
	key := k.w.keyName(keynum)
	values := k.w.buildValues(k.r)
	k.timed(OpInsert, func() Status { return k.db.Insert(k.ctx, k.w.Table, key, values) })
}

func (k *worker) scan() {
	key := k.w.keyName(k.w.nextKeynum(k.r))
	n := int(k.w.scanLength.Next(k.r))
	fields := k.w.readFields(k.r)
	k.timed(OpScan, func() Status { return k.db.Scan(k.ctx, k.w.Table, key, n, fields) })
}

// readModifyWrite reads a key then updates it; the read and the update are
// measured on their own and the pair as READ-MODIFY-WRITE.
func (k *worker) readModifyWrite() {
	key := k.w.keyName(k.w.nextKeynum(k.r))
	fields := k.w.readFields(k.r)
	values := k.w.updateValues(k.r)
	start := time.Now()
	st := k.timed(OpRead, func() Status { return k.db.Read(k.ctx, k.w.Table, key, fields) })
	if st.OK() {
		st = k.timed(OpUpdate, func() Status { return k.db.Update(k.ctx, k.w.Table, key, values) })
	}
	k.m.Measure(OpReadModifyWrite, time.Since(start).Microseconds())
	k.m.Report(OpReadModifyWrite, st)
}
