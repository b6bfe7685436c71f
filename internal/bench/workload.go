package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/relaydb/relaydb/internal/bench/generator"
)

// Operation names as YCSB measures them.
const (
	OpRead            = "READ"
	OpUpdate          = "UPDATE"
	OpInsert          = "INSERT"
	OpScan            = "SCAN"
	OpReadModifyWrite = "READ-MODIFY-WRITE"
)

// Workload is YCSB's CoreWorkload configured from properties: which keys,
// fields and operations each worker issues. It is shared by all workers.
type Workload struct {
	Table          string
	RecordCount    int64
	OperationCount int64
	InsertStart    int64
	InsertCount    int64
	FieldNames     []string
	ReadAllFields  bool
	WriteAllFields bool
	ZeroPadding    int
	OrderedInserts bool

	fieldLength  generator.Number
	fieldChooser *generator.Uniform
	scanLength   generator.Number
	keyChooser   generator.Number
	ops          *generator.Discrete
	loadKeys     *generator.Counter    // keys of the load phase
	insertKeys   *generator.AckCounter // keys of transaction inserts
}

// NewWorkload reads CoreWorkload's properties, with YCSB's defaults.
func NewWorkload(p Properties) (*Workload, error) {
	w := &Workload{Table: p.String("table", "usertable")}
	if err := w.readCounts(p); err != nil {
		return nil, err
	}
	if err := w.readFieldProps(p); err != nil {
		return nil, err
	}
	w.ReadAllFields = p.Bool("readallfields", true)
	w.WriteAllFields = p.Bool("writeallfields", false)
	w.OrderedInserts = p.String("insertorder", "hashed") != "hashed"
	ops, err := operationChooser(p)
	if err != nil {
		return nil, err
	}
	w.ops = ops
	w.loadKeys = generator.NewCounter(w.InsertStart)
	w.insertKeys = generator.NewAckCounter(w.RecordCount)
	if w.keyChooser, err = w.newKeyChooser(p); err != nil {
		return nil, err
	}
	w.scanLength, err = scanLengthGenerator(p)
	return w, err
}

func (w *Workload) readCounts(p Properties) error {
	var err error
	if w.RecordCount, err = p.Int64("recordcount", 1000); err != nil {
		return err
	}
	if w.RecordCount <= 0 {
		w.RecordCount = math.MaxInt32 // as YCSB does for recordcount=0
	}
	if w.OperationCount, err = p.Int64("operationcount", 1000); err != nil {
		return err
	}
	if w.InsertStart, err = p.Int64("insertstart", 0); err != nil {
		return err
	}
	if w.InsertCount, err = p.Int64("insertcount", w.RecordCount-w.InsertStart); err != nil {
		return err
	}
	if w.RecordCount < w.InsertStart+w.InsertCount {
		return fmt.Errorf("recordcount (%d) must be at least insertstart+insertcount (%d)",
			w.RecordCount, w.InsertStart+w.InsertCount)
	}
	z, err := p.Int64("zeropadding", 1)
	w.ZeroPadding = int(z)
	return err
}

func (w *Workload) readFieldProps(p Properties) error {
	n, err := p.Int64("fieldcount", 10)
	if err != nil {
		return err
	}
	if n < 1 {
		return fmt.Errorf("fieldcount must be positive, got %d", n)
	}
	prefix := p.String("fieldnameprefix", "field")
	for i := int64(0); i < n; i++ {
		w.FieldNames = append(w.FieldNames, prefix+strconv.FormatInt(i, 10))
	}
	w.fieldChooser = generator.NewUniform(0, n-1)
	length, err := p.Int64("fieldlength", 100)
	if err != nil {
		return err
	}
	minLength, err := p.Int64("minfieldlength", 1)
	if err != nil {
		return err
	}
	switch d := p.String("fieldlengthdistribution", "constant"); d {
	case "constant":
		w.fieldLength = generator.Constant(length)
	case "uniform":
		w.fieldLength = generator.NewUniform(minLength, length)
	case "zipfian":
		w.fieldLength = generator.NewZipfian(minLength, length, generator.ZipfianConstant)
	default:
		return fmt.Errorf("unknown fieldlengthdistribution %q", d)
	}
	return nil
}

// operationChooser weighs the five operations as YCSB's
// createOperationGenerator does (defaults: 95% read, 5% update).
func operationChooser(p Properties) (*generator.Discrete, error) {
	d := generator.NewDiscrete()
	for _, o := range []struct {
		prop, op string
		def      float64
	}{
		{"readproportion", OpRead, 0.95},
		{"updateproportion", OpUpdate, 0.05},
		{"insertproportion", OpInsert, 0},
		{"scanproportion", OpScan, 0},
		{"readmodifywriteproportion", OpReadModifyWrite, 0},
	} {
		f, err := p.Float(o.prop, o.def)
		if err != nil {
			return nil, err
		}
		d.Add(f, o.op)
	}
	if d.Len() == 0 {
		return nil, fmt.Errorf("all operation proportions are zero")
	}
	return d, nil
}

func (w *Workload) newKeyChooser(p Properties) (generator.Number, error) {
	lo, hi := w.InsertStart, w.InsertStart+w.InsertCount-1
	switch d := p.String("requestdistribution", "uniform"); d {
	case "uniform":
		return generator.NewUniform(lo, hi), nil
	case "zipfian":
		// Room for the keys the run will insert, so that inserts do not
		// change which keys are popular (YCSB's fudge factor of 2).
		ins, err := p.Float("insertproportion", 0)
		if err != nil {
			return nil, err
		}
		expected := int64(float64(w.OperationCount) * ins * 2)
		return generator.NewScrambledZipfian(lo, w.InsertStart+w.InsertCount+expected), nil
	case "latest":
		return generator.NewSkewedLatest(w.insertKeys), nil
	case "hotspot":
		set, err := p.Float("hotspotdatafraction", 0.2)
		if err != nil {
			return nil, err
		}
		opn, err := p.Float("hotspotopnfraction", 0.8)
		if err != nil {
			return nil, err
		}
		return generator.NewHotspot(lo, hi, set, opn), nil
	default:
		return nil, fmt.Errorf("unknown requestdistribution %q (want uniform, zipfian, latest or hotspot)", d)
	}
}

func scanLengthGenerator(p Properties) (generator.Number, error) {
	lo, err := p.Int64("minscanlength", 1)
	if err != nil {
		return nil, err
	}
	hi, err := p.Int64("maxscanlength", 1000)
	if err != nil {
		return nil, err
	}
	switch d := p.String("scanlengthdistribution", "uniform"); d {
	case "uniform":
		return generator.NewUniform(lo, hi), nil
	case "zipfian":
		return generator.NewZipfian(lo, hi, generator.ZipfianConstant), nil
	default:
		return nil, fmt.Errorf("scanlengthdistribution %q not allowed (want uniform or zipfian)", d)
	}
}

// BuildKeyName is YCSB's CoreWorkload.buildKeyName: "user" followed by the
// key number (FNV-hashed unless inserts are ordered), left-padded with
// zeros to zeropadding digits.
func BuildKeyName(keynum int64, zeroPadding int, ordered bool) string {
	if !ordered {
		keynum = generator.FNVHash64(keynum)
	}
	v := strconv.FormatInt(keynum, 10)
	b := make([]byte, 0, 4+max(zeroPadding, len(v)))
	b = append(b, "user"...)
	for i := len(v); i < zeroPadding; i++ {
		b = append(b, '0')
	}
	return string(append(b, v...))
}

// keyName builds the key of keynum with this workload's settings.
func (w *Workload) keyName(keynum int64) string {
	return BuildKeyName(keynum, w.ZeroPadding, w.OrderedInserts)
}

// nextKeynum picks an existing key for a transaction; keys the chooser
// returns beyond the last acknowledged insert are redrawn, as in YCSB.
func (w *Workload) nextKeynum(r *rand.Rand) int64 {
	for {
		k := w.keyChooser.Next(r)
		if k <= w.insertKeys.Last() {
			return k
		}
	}
}

// NextOperation picks the next transaction's operation.
func (w *Workload) NextOperation(r *rand.Rand) string { return w.ops.Next(r) }
