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
