package hook

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellEffects is what a shell command line says it does, read with a
// real shell parser (mvdan.cc/sh, bash syntax): every simple command's
// argv, wherever it sits (pipelines, lists, subshells, command
// substitutions, `sh -c` and `eval` strings parsed in turn), the files
// its output redirections write, and the paths the common file commands
// write or delete (fileEffects). Paths are absolute, resolved against the
// working directory the command would have (cwd, moved by a literal cd or
// pushd on the way). Words that are not literal — $VAR, $(…), arithmetic
// — cannot be resolved: a command with one is run as written (its argv
// with the word's source text), and a path with one is listed in
// unknown, never guessed.
type shellEffects struct {
	run     [][]string
	writes  []string
	deletes []string
	unknown []string // paths that could not be resolved, as written
}

// maxShellDepth bounds `sh -c "sh -c …"` nesting.
const maxShellDepth = 4

// maxGlob bounds the paths one glob expands to.
const maxGlob = 1000

func parseShell(cmd, cwd string) (*shellEffects, error) {
	se := &shellEffects{}
	if err := se.parse(cmd, cwd, 0); err != nil {
		return nil, err
	}
	return se, nil
}

func (se *shellEffects) parse(cmd, cwd string, depth int) error {
	if depth > maxShellDepth {
		return fmt.Errorf("shell commands nested deeper than %d levels", maxShellDepth)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return fmt.Errorf("parse the shell command: %w", err)
	}
	start := cwd
	var werr error
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			se.redirect(n, cwd, start)
		case *syntax.CallExpr:
			argv, literal := words(n.Args)
			if len(argv) == 0 {
				return true
			}
			se.run = append(se.run, argv)
			if next, ok := se.call(argv, literal, cwd, start, depth); ok {
				cwd = next
			} else if werr == nil {
				werr = se.nested(argv, literal, cwd, depth)
			}
		}
		return true
	})
	return werr
}

// redirect records the file an output redirection writes.
func (se *shellEffects) redirect(r *syntax.Redirect, cwd, start string) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
	case syntax.DplOut:
		// >&2 duplicates a descriptor; >&file (bash) writes a file
		if w, ok := word(r.Word); ok && (w == "-" || isDigits(w)) {
			return
		}
	default:
		return
	}
	w, ok := word(r.Word)
	if !ok {
		se.unknown = append(se.unknown, wordSource(r.Word))
		return
	}
	if strings.HasPrefix(w, "/dev/") {
		return
	}
	se.writes = append(se.writes, at(cwd, start, w)...)
}

// call records the paths one simple command writes and deletes. It
// returns the working directory after it (a cd), ok false when the
// command is a shell or eval whose string must be parsed in turn.
func (se *shellEffects) call(argv []string, literal []bool, cwd, start string, depth int) (string, bool) {
	prog := path.Base(argv[0])
	args, lit := argv[1:], literal[1:]
	switch prog {
	case "cd", "pushd":
		ops := operands(args, lit, nil)
		if len(ops) == 0 {
			home, _ := os.UserHomeDir()
			return home, true
		}
		if !ops[0].literal {
			se.unknown = append(se.unknown, ops[0].arg)
			return cwd, true
		}
		return join(cwd, ops[0].arg), true
	case "sh", "bash", "zsh", "dash", "ksh", "eval":
		return cwd, false
	case "sudo", "env", "nice", "nohup", "time", "timeout", "command", "exec", "builtin", "xargs", "stdbuf", "ionice", "chronic":
		// a wrapper: what it runs is the first word that is not its
		// option (or, for env, an assignment; for timeout, the duration)
		i := 0
		for i < len(args) && (strings.HasPrefix(args[i], "-") || prog == "env" && strings.Contains(args[i], "=")) {
			i++
		}
		if prog == "timeout" && i < len(args) {
			i++
		}
		if i < len(args) {
			se.run = append(se.run, args[i:])
			return se.call(args[i:], lit[i:], cwd, start, depth)
		}
		return cwd, true
	}
	for _, e := range fileEffects(prog, args, lit) {
		if !e.literal {
			se.unknown = append(se.unknown, e.arg)
			continue
		}
		for _, p := range se.expand(cwd, start, e.arg, e.glob) {
			if e.delete {
				se.deletes = append(se.deletes, p)
			} else {
				se.writes = append(se.writes, p)
			}
		}
	}
	return cwd, true
}

// nested parses the string a shell (-c) or eval runs.
func (se *shellEffects) nested(argv []string, literal []bool, cwd string, depth int) error {
	prog := path.Base(argv[0])
	var script string
	if prog == "eval" {
		if slices.Contains(literal[1:], false) {
			se.unknown = append(se.unknown, strings.Join(argv[1:], " "))
			return nil
		}
		script = strings.Join(argv[1:], " ")
	} else {
		i := slices.IndexFunc(argv[1:], func(a string) bool {
			return strings.HasPrefix(a, "-") && strings.Contains(a, "c") && !strings.HasPrefix(a, "--")
		})
		if i < 0 || i+2 >= len(argv) {
			return nil // a script file or stdin: not read
		}
		if !literal[i+2] {
			se.unknown = append(se.unknown, argv[i+2])
			return nil
		}
		script = argv[i+2]
	}
	return se.parse(script, cwd, depth+1)
}

// expand resolves a path operand against the working directory; an
// unquoted glob expands to what it matches (bounded), or stays as written
// when it matches nothing.
func (se *shellEffects) expand(cwd, start, p string, glob bool) []string {
	out := at(cwd, start, p)
	if !glob || !strings.ContainsAny(p, "*?[") {
		return out
	}
	matches, err := filepath.Glob(join(cwd, p))
	if err != nil || len(matches) == 0 {
		return out
	}
	if len(matches) > maxGlob {
		matches = matches[:maxGlob]
	}
	return append(out, matches...)
}

// at is the path as the command would see it from cwd; when an earlier cd
// moved cwd, the path from the starting directory too (a cd inside a
// subshell does not move the commands after it, and the walk does not
// tell them apart: both are checked).
func at(cwd, start, p string) []string {
	if p == "" {
		return nil
	}
	if cwd == start || filepath.IsAbs(p) {
		return []string{join(cwd, p)}
	}
	return []string{join(cwd, p), join(start, p)}
}

func join(dir, p string) string {
	if strings.HasPrefix(p, "~/") || p == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// pathArg is one path a file command names.
type pathArg struct {
	arg     string
	literal bool // no expansion in it: the path is arg
	glob    bool // unquoted: the shell would expand *?[
	delete  bool
}

// fileEffects are the paths the common file-changing commands write or
// delete, by their usual command lines. It is a list of known programs,
// not a model of every program: what else a command does to files is
// left to the gate, which checks the change at the stop.
func fileEffects(prog string, args []string, lit []bool) []pathArg {
	mark := func(ps []pathArg, del bool) []pathArg {
		for i := range ps {
			ps[i].delete = del
		}
		return ps
	}
	switch prog {
	case "rm", "unlink", "rmdir", "shred", "srm":
		return mark(operands(args, lit, nil), true)
	case "mv":
		ops, dest := withTarget(args, lit)
		return append(mark(ops, true), dest...)
	case "cp", "install", "ln", "rsync", "scp":
		_, dest := withTarget(args, lit)
		return dest
	case "tee", "touch", "truncate", "mkdir", "mkfifo", "mknod":
		return operands(args, lit, map[string]bool{"-s": true, "--size": true, "-m": true, "--mode": true, "-r": prog == "truncate", "--reference": true})
	case "chmod", "chown", "chgrp", "setfacl":
		ops := operands(args, lit, nil)
		if len(ops) > 0 {
			return ops[1:]
		}
	case "sed", "perl":
		return inPlace(prog, args, lit)
	case "dd":
		for i, a := range args {
			if w, ok := strings.CutPrefix(a, "of="); ok {
				return []pathArg{{arg: w, literal: lit[i]}}
			}
		}
	case "curl", "wget":
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-o" || args[i] == "--output" || args[i] == "-O" && prog == "wget" {
				return []pathArg{{arg: args[i+1], literal: lit[i+1]}}
			}
		}
	case "git":
		return gitEffects(args, lit)
	case "find":
		if slices.Contains(args, "-delete") {
			var starts []pathArg
			for i, a := range args {
				if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
					break
				}
				starts = append(starts, pathArg{arg: a, literal: lit[i], delete: true})
			}
			return starts
		}
	}
	return nil
}

// gitEffects: git rm deletes, git mv moves, git checkout/restore with
// paths rewrite them. Other git commands change the worktree too (a
// checkout of a branch, stash pop, apply): the gate sees their result.
func gitEffects(args []string, lit []bool) []pathArg {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" || args[i] == "-c" {
			i++
		}
		i++
	}
	if i >= len(args) {
		return nil
	}
	sub, rest, rlit := args[i], args[i+1:], lit[i+1:]
	switch sub {
	case "rm":
		ps := operands(rest, rlit, nil)
		for j := range ps {
			ps[j].delete = true
		}
		return ps
	case "mv":
		return fileEffects("mv", rest, rlit)
	case "checkout", "restore":
		if k := slices.Index(rest, "--"); k >= 0 {
			return operands(rest[k+1:], rlit[k+1:], nil)
		}
		if sub == "restore" {
			return operands(rest, rlit, map[string]bool{"-s": true, "--source": true})
		}
	}
	return nil
}

// inPlace: sed -i and perl -i edit the files they are given.
func inPlace(prog string, args []string, lit []bool) []pathArg {
	inplace, script := false, false
	var files []pathArg
	skip := false
	for i, a := range args {
		switch {
		case skip:
			skip = false
		case a == "--":
		case prog == "sed" && (a == "-i" || strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place")):
			inplace = true
		case prog == "perl" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i"):
			inplace = true
			if strings.HasSuffix(a, "e") {
				skip, script = true, true
			}
		case a == "-e" || a == "-f" || a == "--expression" || a == "--file":
			skip, script = true, true
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if prog == "sed" && strings.Contains(a, "i") && !strings.HasPrefix(a, "--") {
				inplace = true
			}
			if strings.HasSuffix(a, "e") && !strings.HasPrefix(a, "--") {
				skip, script = true, true
			}
		case !script:
			script = true // the first operand is the script
		default:
			files = append(files, pathArg{arg: a, literal: lit[i], glob: lit[i]})
		}
	}
	if !inplace {
		return nil
	}
	return files
}

// withTarget splits mv/cp-style operands into sources and the
// destination: -t DIR, --target-directory=DIR, else the last operand.
func withTarget(args []string, lit []bool) (sources, dest []pathArg) {
	for i, a := range args {
		if (a == "-t" || a == "--target-directory") && i+1 < len(args) {
			return operands(slices.Delete(slices.Clone(args), i, i+2), slices.Delete(slices.Clone(lit), i, i+2), nil), []pathArg{{arg: args[i+1], literal: lit[i+1]}}
		}
		if d, ok := strings.CutPrefix(a, "--target-directory="); ok {
			return operands(slices.Delete(slices.Clone(args), i, i+1), slices.Delete(slices.Clone(lit), i, i+1), nil), []pathArg{{arg: d, literal: lit[i]}}
		}
	}
	ops := operands(args, lit, nil)
	if len(ops) < 2 {
		return nil, nil
	}
	return ops[:len(ops)-1], ops[len(ops)-1:]
}

// operands are the arguments that are not options: all after "--", the
// rest that do not start with '-' (an option in valued takes the next
// argument as its value).
func operands(args []string, lit []bool, valued map[string]bool) []pathArg {
	var out []pathArg
	dash := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case dash:
		case a == "--":
			dash = true
			continue
		case valued[a]:
			i++
			continue
		case strings.HasPrefix(a, "-") && a != "-":
			continue
		}
		out = append(out, pathArg{arg: a, literal: lit[i], glob: lit[i]})
	}
	return out
}

// words are a command's arguments as text: each literal word as the
// shell would pass it (quotes removed), each other word as its source
// text, marked not literal.
func words(ws []*syntax.Word) ([]string, []bool) {
	var out []string
	var literal []bool
	for _, w := range ws {
		s, ok := word(w)
		if !ok {
			s = wordSource(w)
		}
		out = append(out, s)
		literal = append(literal, ok)
	}
	return out, literal
}

// word is a word's value when it has no expansion in it.
func word(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return unescape(b.String()), true
}

// unescape removes the backslashes of an unquoted literal (a\ b is "a b").
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func wordSource(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
