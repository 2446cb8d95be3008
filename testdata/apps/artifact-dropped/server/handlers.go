package main

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Handler serves the task API.
type Handler struct {
	store *Store
}

type completion struct {
	ArtifactURL string `json:"artifact_url"`
}

// CompleteTask is called by the worker when a task finishes.
func (h *Handler) CompleteTask(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var c completion
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := h.store.CompleteTask(id, c.ArtifactURL); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// GetTask returns one task.
func (h *Handler) GetTask(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	t, err := h.store.LoadTask(id)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	json.NewEncoder(w).Encode(ToResponse(t))
}
