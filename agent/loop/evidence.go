package loop

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
)

// evidence writes the run's evidence: the change and the gate's report.
func (h *harness) evidence(ctx context.Context, out *Outcome) (string, error) {
	dir := filepath.Join(h.run.Dir, "evidence")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	patch, err := h.ws.Diff(ctx)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "change.patch"), patch, 0o644); err != nil {
		return "", err
	}
	if h.report != nil {
		b, _ := json.MarshalIndent(h.report, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "report.json"), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
