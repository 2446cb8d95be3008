CREATE TABLE tasks (
    id           INTEGER PRIMARY KEY,
    status       TEXT NOT NULL,
    artifact_url TEXT
);
