// Package redact is the one secret redactor every text leaving cairn
// passes: spans, context packs, trace snippets, the signatures and docs of
// symbols (redacted when the indexer extracts them, so no surface can show
// them unredacted), and error messages.
//
// A secret is recognised three ways:
//
//   - by its shape alone: private keys, AWS access keys, GitHub, GitLab,
//     Slack, OpenAI, Stripe and Google API tokens, JWTs, and the password
//     of a URL (scheme://user:password@host);
//   - by the name it is assigned to: password = "…", api_key: '…',
//     SECRET_TOKEN=…, when the value looks like a secret (long enough,
//     high enough Shannon entropy, not a placeholder or a reference to an
//     environment variable); in source code only string literals count;
//   - by the file: every value of a .env file.
//
// A secret is replaced by [REDACTED:kind] and nothing else changes, so a
// redacted text differs from the original only where a secret was (search
// ranks the same symbols the same way but for their secret tokens).
// Content reports each redaction's line and kind, which packs and spans
// list.
//
// Quote and Bound bound what a message quotes of an input (MaxQuoted
// bytes): a 5 MB argument must not come back as a 5 MB error.
//
// redact sits under graph so that the indexer (signatures, docs), the
// retrieval packages (packs, trace) and the engine (spans, errors) share it.
package redact
