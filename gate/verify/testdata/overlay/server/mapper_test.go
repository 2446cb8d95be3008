package main

import "testing"

func TestToResponseKeepsIDAndStatus(t *testing.T) {
	got := ToResponse(Task{ID: 7, Status: "done", ArtifactURL: "https://files.example/a.zip"})
	if got.ID != 7 {
		t.Errorf("ID = %d, want 7", got.ID)
	}
	if got.Status != "done" {
		t.Errorf("Status = %q, want done", got.Status)
	}
}
