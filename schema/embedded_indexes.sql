CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS symbols_sid ON symbols(sid);
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE INDEX IF NOT EXISTS postings_file ON postings(file_id);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst, kind);
CREATE INDEX IF NOT EXISTS edges_src ON edges(src, kind);
CREATE INDEX IF NOT EXISTS edges_file ON edges(file_id);
-- The file list without the facts blobs: every column the listing reads,
-- in path order, so that listing the files (every search and pack does)
-- reads this index alone instead of every page of the table, which holds
-- the facts (50 MB on mono1m).
CREATE INDEX IF NOT EXISTS files_list ON files(path, lang, hash, size, mtime, lines, status, error, package, committed, scip, category);
