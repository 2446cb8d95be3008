package main

// Task is an asynchronous job and the artifact it produced.
type Task struct {
	ID          int64  `db:"id"`
	Status      string `db:"status"`
	ArtifactURL string `db:"artifact_url"`
}

// TaskResponse is the JSON the API returns for a task.
type TaskResponse struct {
	ID          int64  `json:"id"`
	Status      string `json:"status"`
	ArtifactURL string `json:"artifact_url,omitempty"`
}
