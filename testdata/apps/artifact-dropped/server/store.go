package main

import "database/sql"

// Store persists tasks in SQL.
type Store struct {
	db *sql.DB
}

// CompleteTask records that a task finished and where its artifact is.
func (s *Store) CompleteTask(id int64, artifactURL string) error {
	_, err := s.db.Exec(`UPDATE tasks SET status = 'done', artifact_url = $2 WHERE id = $1`, id, artifactURL)
	return err
}

// LoadTask reads a task back.
func (s *Store) LoadTask(id int64) (Task, error) {
	var t Task
	row := s.db.QueryRow(`SELECT id, status, artifact_url FROM tasks WHERE id = $1`, id)
	err := row.Scan(&t.ID, &t.Status, &t.ArtifactURL)
	return t, err
}
