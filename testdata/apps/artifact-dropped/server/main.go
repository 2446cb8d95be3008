package main

import (
	"database/sql"
	"log"
	"net/http"
)

func main() {
	db, err := sql.Open("postgres", "postgres:///tasks")
	if err != nil {
		log.Fatal(err)
	}
	h := &Handler{store: &Store{db: db}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tasks/{id}/complete", h.CompleteTask)
	mux.HandleFunc("GET /tasks/{id}", h.GetTask)
	log.Fatal(http.ListenAndServe(":8080", mux))
}
