package exec

import "github.com/relaydb/relaydb/internal/agg"

// SetTempDir makes dir (mongod's <dbpath>/_tmp) the place where
// aggregation stages spill with allowDiskUse, after removing whatever a
// previous process left there. Call it once at startup, before serving;
// without it spill files go to os.TempDir().
func (e *Engine) SetTempDir(dir string) error {
	if err := agg.ClearTempDir(dir); err != nil {
		return err
	}
	e.tempDir.Store(&dir)
	return nil
}

// TempDir returns the spill directory ("" = os.TempDir()).
func (e *Engine) TempDir() string {
	if p := e.tempDir.Load(); p != nil {
		return *p
	}
	return ""
}
