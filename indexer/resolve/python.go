package resolve

import (
	"strings"

	"github.com/cairn-dev/cairn/graph"
)

var pythonBuiltinMembers = words(`append extend insert remove pop clear index count sort reverse copy
	keys values items get setdefault update popitem fromkeys add discard union intersection difference
	issubset issuperset symmetric_difference join split rsplit splitlines strip lstrip rstrip replace
	startswith endswith lower upper title capitalize casefold format format_map encode decode find rfind
	partition rpartition isdigit isalpha isalnum isspace isupper islower zfill ljust rjust center expandtabs
	translate maketrans read readline readlines write writelines close flush seek tell fileno truncate
	group groups groupdict match search sub subn findall finditer fullmatch span start end
	total_seconds isoformat strftime timestamp date time replace astimezone tzname utcoffset
	acquire release wait notify put get_nowait put_nowait qsize empty full send recv hex bit_length`)

// pythonModule makes a relative module absolute against this file's module.
func (c *fileCtx) pythonModule(mod string) string { return pythonModuleOf(&c.ff.File, mod) }

// pythonModuleOf makes a relative module absolute against file f's module.
func pythonModuleOf(f *graph.File, mod string) string {
	if !strings.HasPrefix(mod, ".") {
		return mod
	}
	dots := len(mod) - len(strings.TrimLeft(mod, "."))
	rest := mod[dots:]
	base := f.Package
	if !strings.HasSuffix(f.Path, "__init__.py") {
		// a module's package is its parent
		if i := strings.LastIndexByte(base, '.'); i >= 0 {
			base = base[:i]
		} else {
			base = ""
		}
	}
	for i := 1; i < dots; i++ {
		if j := strings.LastIndexByte(base, '.'); j >= 0 {
			base = base[:j]
		} else {
			base = ""
		}
	}
	switch {
	case base == "":
		return rest
	case rest == "":
		return base
	}
	return base + "." + rest
}

// pyModuleOf is the Python module a qualifier chain starts with and how
// many of its steps name it: the module an import binds to the first step,
// then as long as the chain goes on through submodules the index holds —
// x.c.Base is module a.b.c's Base when x is a.b, whether the file imported
// a (import a), a.b (from a import b, import a.b as x) or a.b.c (a
// package's submodule is its attribute once anything imported it).
func (c *fileCtx) pyModuleOf(steps []string) (string, int) {
	for _, im := range c.imports[steps[0]] {
		mod, n := "", 1
		switch {
		case im.Name == "" && im.Alias == "":
			// import a.b binds a; a.b.f means module a.b
			mod = steps[0]
			if m := len(strings.Split(im.Module, ".")); m <= len(steps) && strings.Join(steps[:m], ".") == im.Module {
				mod, n = im.Module, m
			}
		case im.Name == "":
			mod = im.Module // import a.b as x
		default:
			// from a import b: b may be a submodule
			full := c.pythonModule(im.Module)
			if full != "" && !strings.HasSuffix(full, ".") {
				full += "."
			}
			full += im.Name
			if !c.isPyModule(full) {
				continue
			}
			mod = full
		}
		for n < len(steps) && !strings.HasSuffix(steps[n], "()") && c.isPyModule(mod+"."+steps[n]) {
			mod, n = mod+"."+steps[n], n+1
		}
		return mod, n
	}
	return "", 0
}

// hasPyModuleSuffix reports whether some module ends in "."+mod.
func (c *fileCtx) hasPyModuleSuffix(mod string) bool { return c.x.pySuffixes[mod] }

// isPyModule reports whether the index holds the Python module (a file
// or a package's __init__.py), perhaps under a source directory.
func (c *fileCtx) isPyModule(mod string) bool {
	if _, ok := c.x.pyModules[mod]; ok {
		return true
	}
	if _, ok := c.x.pyModules[mod+".__init__"]; ok {
		return true
	}
	// a source root below the repository's (src/pkg/…)
	return c.hasPyModuleSuffix(mod) || c.hasPyModuleSuffix(mod+".__init__")
}
