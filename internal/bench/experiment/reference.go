package experiment

// RefCell is the reference's figure for one (nodes, w, chaining) cell:
// throughput in ops/s and primary CPU in percent of its 4 cores' capacity
// as their monitoring showed it (shared/docs/reference-experiments.md §1,
// MongoDB 5.0, 4-core primary, YCSB load, 8 threads, 5,000,000 records).
type RefCell struct {
	OpsPerSec  float64
	CPUPercent float64
}

type refKey struct {
	nodes int
	w     string
	mode  string
}

var reference = map[refKey]RefCell{
	{3, WMajority, ModeOn}:   {5277, 65},
	{3, WMajority, ModeOff}:  {5241, 65},
	{3, W1, ModeOn}:          {15075, 93},
	{3, W1, ModeOff}:         {14785, 93},
	{7, WMajority, ModeOn}:   {3005, 56},
	{7, WMajority, ModeOff}:  {4312, 85},
	{7, W1, ModeOn}:          {14414, 91},
	{7, W1, ModeOff}:         {11492, 93},
	{15, WMajority, ModeOn}:  {2932, 58},
	{15, WMajority, ModeOff}: {3123, 91},
	{15, W1, ModeOn}:         {14093, 90},
	{15, W1, ModeOff}:        {7500, 94},
}

// Reference returns the reference's figure for a cell; ok is false for
// cells the reference did not measure (auto, other sizes).
func Reference(nodes int, w, mode string) (RefCell, bool) {
	r, ok := reference[refKey{nodes, w, mode}]
	return r, ok
}
