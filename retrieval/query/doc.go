// Package query understands issue-style text: it pulls out what a search
// should match exactly — identifiers, file paths, stack-trace frames, links
// to lines of code, error messages and quoted code — and the title, so that
// retrieval can use them as candidate generators of their own next to
// full-text search.
//
// Identifiers are recognised by shape, not by a dictionary: a word counts
// when it looks like code (snake_case, camelCase, a dotted path, a call
// "name(", text in backticks or a code block, a frame of a traceback) and
// gets a weight by where it appeared: in a traceback or quoted code it is
// stronger evidence than in prose. The segments of URLs are not words of
// the text: a link's "_pytest" directory is not an identifier.
//
// Links into a code host's file view (GitHub, GitLab, Gitea, Bitbucket;
// blob, blame, raw and src views) keep the revision-and-path part and the
// anchored lines; which part is the path only the repository's files can
// tell (a branch name may hold slashes), so that is left to the search.
//
// Error messages come from the exception line that ends a Python traceback,
// lines naming an error anywhere ("panic: …", "TypeError: …") and the lines
// pytest marks "E" in a failure report (its exceptions and the
// explanations of a failed assertion).
//
// Refs are the past changes a text names: a commit hash (7 to 12 or 40
// lower-case hex digits with a letter and a digit: no word, version or
// address is one) or a pull request's or issue's number ("#3165", "PR
// 3165", "gh-812", a code host's /pull/, /issues/ or /commit/ link).
// Not in fenced code ("#12" there is a comment), not in another link (a
// blob link's revision is where the reporter looked), and "#" not inside a
// word). A number of a link or of a cross-reference ("sunpy/ndcube#529")
// keeps the repository it is of, which the history index compares with
// the names of the repository's remotes. Numbers reads commit messages the
// same way for the history index, which finds the commits.
//
// Values are what a task says is wrong with a piece of data ("the
// missing artifact url after reload"): Mentions lists the values a text
// may name — its code-shaped names in any spelling (artifactUrl,
// artifact_url, Task.ArtifactURL) and runs of prose words (the words
// between stop and symptom words: "artifact url"; "the link to the build
// output" read as "build output link"), then their parts and a few
// synonyms of the last word (link ~ url ~ href, id ~ identifier), marked
// partial. LinkValues links them to the code through the index, ranked
// by how sure the link is: a field named as written (exact identifier) >
// a name no definition has but the code's text holds whole (a JSON tag,
// a column, a config key) > prose words that joined in any casing name a
// field > a part or synonym of them (partial); a key more than a dozen
// fields hold ("id", "name") is no value a text singles out. A field of
// several types is qualified by the one the text names, else by the one
// with the most fields (the model, not a one-field request envelope); a
// name written as code that several types hold is traced as written.
//
// Flags and configuration keys are spelled as code spells them (keys.go):
// a long flag ("--max-conn-idle"), a quoted key of hyphenated or dotted
// lower-case parts (`max.conn.idle`) or an environment variable's name
// (MAX_CONN_IDLE) adds the identifiers maxConnIdle and max_conn_idle,
// marked Spelled (their case is a guess: the symbol generator matches
// MaxConnIdle as well). The code that reads a flag holds it under those
// names; the parser that registers it, by its hyphenated string, is found
// by the text's words — as a literal found verbatim it ranked the option
// parser first and cost fzf's fix commits (bench/retrieval/RESULTS.md,
// issue 52). A hyphenated word of prose ("auto-fetch", "ff-only") is not
// spelled: measured, a task won and one lost.
//
// The title is the first line of a text of several lines.
//
// Body is the text the text searches read (BM25's chunk and file searches,
// the embedding, past commits): the text without an issue template's
// scaffolding — its instructions in HTML comments and its section
// headings (Markdown headings of level 2 and more, lines of bold text
// alone, a dozen words at most, outside code fences). Those words are in
// every issue of a repository ("What version of Go are you using?",
// "Expected behavior", "Steps to reproduce") and match code about
// versions, operating systems and expectations. Measured on the
// localization dev set (bench/retrieval/RESULTS.md, 2026-12-05): function
// Acc@10 0.620 → 0.641, file rankings nearly unchanged.
package query
