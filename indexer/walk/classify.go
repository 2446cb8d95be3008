package walk

import (
	"bytes"
	"path"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

var extLang = map[string]graph.Language{
	".go":  graph.LangGo,
	".py":  graph.LangPython,
	".pyi": graph.LangPython,
	".ts":  graph.LangTypeScript, ".mts": graph.LangTypeScript, ".cts": graph.LangTypeScript,
	".tsx": graph.LangTSX,
	".js":  graph.LangJavaScript, ".mjs": graph.LangJavaScript, ".cjs": graph.LangJavaScript, ".jsx": graph.LangJavaScript,
	".java": graph.LangJava,
	".rs":   graph.LangRust,
	".c":    graph.LangC, ".h": graph.LangC,
	".cc": graph.LangCpp, ".cpp": graph.LangCpp, ".cxx": graph.LangCpp, ".c++": graph.LangCpp,
	".hh": graph.LangCpp, ".hpp": graph.LangCpp, ".hxx": graph.LangCpp, ".h++": graph.LangCpp,
	".ipp": graph.LangCpp, ".tpp": graph.LangCpp, ".inl": graph.LangCpp,
	".md": graph.LangMarkdown, ".markdown": graph.LangMarkdown, ".mdx": graph.LangMarkdown,
	".rst": graph.LangText, ".adoc": graph.LangText, ".txt": graph.LangText,
	".json": graph.LangJSON, ".jsonc": graph.LangJSON, ".json5": graph.LangJSON,
	".yaml": graph.LangYAML, ".yml": graph.LangYAML,
	".toml": graph.LangTOML,
	".sql":  graph.LangSQL,
	".sh":   graph.LangShell, ".bash": graph.LangShell, ".zsh": graph.LangShell,
	".html": graph.LangHTML, ".htm": graph.LangHTML, ".tmpl": graph.LangHTML, ".gotmpl": graph.LangHTML,
	".css": graph.LangCSS, ".scss": graph.LangCSS, ".less": graph.LangCSS,
	".xml":   graph.LangXML,
	".proto": graph.LangProto, ".graphql": graph.LangGraphQL, ".gql": graph.LangGraphQL,
	".kt": graph.LangKotlin, ".kts": graph.LangKotlin,
	".scala": graph.LangScala, ".sc": graph.LangScala,
	".swift": graph.LangSwift,
	".lua":   graph.LangLua,
	".ex":    graph.LangElixir, ".exs": graph.LangElixir,
	".ml": graph.LangOCaml, ".mli": graph.LangOCaml,
	".groovy": graph.LangGroovy, ".gradle": graph.LangGroovy,
	".tf": graph.LangHCL, ".hcl": graph.LangHCL, ".tfvars": graph.LangHCL,
	".dockerfile": graph.LangDockerfile,
	".cue":        graph.LangCUE,
	".elm":        graph.LangElm,
	".ini":        graph.LangConfig, ".cfg": graph.LangConfig, ".conf": graph.LangConfig,
	".properties": graph.LangConfig, ".env": graph.LangConfig,
	".rb": graph.LangRuby, ".rake": graph.LangRuby, ".gemspec": graph.LangRuby, ".ru": graph.LangRuby,
	".php": graph.LangPHP,
	".cs":  graph.LangCSharp,
}

var nameLang = map[string]graph.Language{
	"Makefile": graph.LangText, "makefile": graph.LangText, "GNUmakefile": graph.LangText,
	"Dockerfile": graph.LangDockerfile, "Containerfile": graph.LangDockerfile, "CMakeLists.txt": graph.LangText,
	"go.mod": graph.LangConfig, "go.work": graph.LangConfig, "CODEOWNERS": graph.LangText,
	".env": graph.LangConfig, "Jenkinsfile": graph.LangGroovy, "Procfile": graph.LangConfig,
	"README": graph.LangText, "LICENSE": graph.LangText,
	"Gemfile": graph.LangRuby, "Rakefile": graph.LangRuby, "Guardfile": graph.LangRuby,
}

var lockfiles = map[string]bool{
	"package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "npm-shrinkwrap.json": true,
	"bun.lockb": true, "go.sum": true, "Cargo.lock": true, "poetry.lock": true, "Pipfile.lock": true,
	"composer.lock": true, "Gemfile.lock": true, "uv.lock": true, "pdm.lock": true, "mix.lock": true,
	"flake.lock": true, "packages.lock.json": true, "gradle.lockfile": true,
}

var binaryExt = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".bmp": true, ".ico": true, ".webp": true,
	".tiff": true, ".psd": true, ".pdf": true, ".zip": true, ".gz": true, ".tgz": true, ".bz2": true,
	".xz": true, ".zst": true, ".7z": true, ".rar": true, ".tar": true, ".jar": true, ".war": true,
	".class": true, ".so": true, ".dylib": true, ".dll": true, ".exe": true, ".o": true, ".a": true,
	".obj": true, ".lib": true, ".pyc": true, ".pyo": true, ".whl": true, ".mo": true, ".woff": true,
	".woff2": true, ".ttf": true, ".otf": true, ".eot": true, ".mp3": true, ".mp4": true, ".wav": true,
	".ogg": true, ".avi": true, ".mov": true, ".webm": true, ".flac": true, ".sqlite": true, ".db": true,
	".bin": true, ".dat": true, ".npy": true, ".npz": true, ".pkl": true, ".parquet": true, ".wasm": true,
	".ttc": true, ".afm": true, ".pfb": true, ".icns": true, ".xcf": true, ".svgz": true,
}

// LanguageOf returns the language for a repository-relative path by its
// name, LangUnknown when the name says nothing.
func LanguageOf(p string) graph.Language {
	base := path.Base(p)
	if l, ok := nameLang[base]; ok {
		return l
	}
	if strings.HasPrefix(base, ".env.") {
		return graph.LangConfig
	}
	ext := strings.ToLower(path.Ext(base))
	return extLang[ext]
}

// ClassifyPath decides from a path and size alone whether a file is skipped.
func ClassifyPath(p string, size, maxSize int64) (graph.SkipReason, string) {
	base := path.Base(p)
	if lockfiles[base] {
		return graph.SkipLockfile, ""
	}
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	if binaryExt[ext] {
		return graph.SkipBinary, "extension " + ext
	}
	if strings.HasSuffix(lower, ".min.js") || strings.HasSuffix(lower, ".min.css") || strings.HasSuffix(lower, ".min.mjs") {
		return graph.SkipMinified, "minified name"
	}
	if LanguageOf(p) == graph.LangUnknown {
		return graph.SkipUnknownType, ""
	}
	if suf := generatedSuffix(lower); suf != "" {
		return graph.SkipGenerated, "generated name *" + suf
	}
	if size > maxSize {
		return graph.SkipOversized, "size " + strconv.FormatInt(size, 10) + " > " + strconv.FormatInt(maxSize, 10)
	}
	return graph.SkipNone, ""
}

// Limits used by Classify.
const (
	// MaxLineLength: a file with a longer line is skipped as long-lines
	// (single-line bundles, embedded data).
	MaxLineLength = 32 << 10
	// minifiedAvgLine: code files whose average line is longer are minified.
	minifiedAvgLine = 400
	sniffLen        = 8000
)

// Classify decides from the content whether a file is skipped, and refines
// its language (a .h file holding C++ is C++).
func Classify(p string, lang graph.Language, content []byte) (graph.Language, graph.SkipReason, string) {
	head := content
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return lang, graph.SkipBinary, "NUL byte in the first 8000 bytes"
	}
	if isGenerated(head) {
		return lang, graph.SkipGenerated, "generated-code marker"
	}
	if why := generatedName(p); why != "" {
		return lang, graph.SkipGenerated, why
	}
	lines, longest := lineStats(content)
	if longest > MaxLineLength {
		return lang, graph.SkipLongLines, "line of " + strconv.Itoa(longest) + " bytes"
	}
	if len(content) > 4096 && (lang == graph.LangJavaScript || lang == graph.LangCSS || lang == graph.LangTypeScript) &&
		len(content)/lines > minifiedAvgLine {
		return lang, graph.SkipMinified, "average line of " + strconv.Itoa(len(content)/lines) + " bytes"
	}
	if lang == graph.LangC && strings.HasSuffix(p, ".h") && looksLikeCpp(head) {
		lang = graph.LangCpp
	}
	return lang, graph.SkipNone, ""
}

// lineStats returns the number of lines (at least 1) and the longest line.
func lineStats(b []byte) (lines, longest int) {
	lines = 1
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			longest = max(longest, len(b))
			break
		}
		longest = max(longest, i)
		b = b[i+1:]
		if len(b) > 0 {
			lines++
		}
	}
	return lines, longest
}

// generatedSuffixes are file names that tools write (lower case): C#'s
// WinForms/resx designer files and the build's source generators.
var generatedSuffixes = []string{".designer.cs", ".g.cs", ".g.i.cs"}

func generatedSuffix(lowerBase string) string {
	for _, suf := range generatedSuffixes {
		if strings.HasSuffix(lowerBase, suf) {
			return suf
		}
	}
	return ""
}

// generatedName recognises generated files by the names their generators
// give them: SwiftProtobuf's and grpc-swift's Foo.pb.swift and
// Foo.grpc.swift, Kotlin's and Scala's build output directories.
func generatedName(p string) string {
	base := path.Base(p)
	for _, suf := range []string{".pb.swift", ".grpc.swift", ".pb.kt", ".pb.scala"} {
		if strings.HasSuffix(base, suf) {
			return "generated-code name (*" + suf + ")"
		}
	}
	for _, dir := range []string{"/build/generated/", "/target/scala-", "/src_managed/"} {
		if strings.Contains("/"+p, dir) && (strings.HasSuffix(p, ".kt") || strings.HasSuffix(p, ".scala") || strings.HasSuffix(p, ".java")) {
			return "generated-code directory (" + strings.Trim(dir, "/") + ")"
		}
	}
	return ""
}

var generatedMarkers = [][]byte{
	// protoc plugins for Kotlin, Swift and Scala (ScalaPB), KSP/kapt output
	[]byte("Generated by the protocol buffer compiler"),
	[]byte("Generated by the Swift generator plugin for the protocol buffer compiler"),
	[]byte("Generated by the Scala Plugin for the Protocol Buffer Compiler"),
	[]byte("Generated by KSP"),
	[]byte("@generated"),
	[]byte("<auto-generated"),
	[]byte("This file is automatically generated"),
	[]byte("This file was automatically generated"),
	[]byte("AUTO-GENERATED FILE. DO NOT EDIT"),
}

// isGenerated looks for the markers tools write at the top of generated files:
// Go's "Code generated … DO NOT EDIT.", "@generated" and a few others.
func isGenerated(head []byte) bool {
	// Only the first lines count: the markers also appear in code that
	// generates code.
	if len(head) > 2048 {
		head = head[:2048]
	}
	codeGenerated := false // a comment said "Code generated" …
	for _, line := range bytes.Split(head, []byte("\n")) {
		// (in a comment: a string literal spelling the marker, in the
		// generator that writes it or a test of it, is hand-written code)
		if isCommentLine(line) && bytes.Contains(line, []byte("Code generated ")) && bytes.Contains(line, []byte("DO NOT EDIT")) {
			return true
		}
		// … and a later line of the same header comment "DO NOT EDIT", as
		// protoc-gen-go and other generators wrote it before Go fixed the
		// one-line form
		if isCommentLine(line) {
			if bytes.Contains(line, []byte("Code generated ")) {
				codeGenerated = true
			} else if codeGenerated && bytes.Contains(line, []byte("DO NOT EDIT")) {
				return true
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			codeGenerated = false
		}
		for _, m := range generatedMarkers {
			if bytes.Contains(line, m) && isCommentLine(line) {
				return true
			}
		}
	}
	return false
}

func isCommentLine(line []byte) bool {
	t := bytes.TrimSpace(line)
	for _, p := range []string{"//", "#", "/*", "*", "--", "<!--", ";"} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return false
}

func looksLikeCpp(head []byte) bool {
	for _, kw := range []string{"namespace ", "template<", "template <", "class ", "std::", "public:", "private:", "#include <iostream>", "extern \"C++\""} {
		if bytes.Contains(head, []byte(kw)) {
			return true
		}
	}
	return false
}
