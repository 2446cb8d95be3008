package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/engine/catalog"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/serve/lsp"
	"github.com/cairn-dev/cairn/serve/mcp"
	"github.com/cairn-dev/cairn/serve/web"
)

func serveCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "serve (mcp | lsp | http)",
		Short: "serve agents (MCP), editors (LSP) or people (a web UI and JSON API) from the index",
	}
	var addr string
	var embedder string
	var watching bool
	var user userPolicyFlags
	var toolList string
	m := &cobra.Command{
		Use:   "mcp [--http ADDR]",
		Short: "an MCP server over stdio, or over streamable HTTP with --http (endpoint /mcp)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			u, err := user.user()
			if err != nil {
				return err
			}
			profile, err := catalog.ParseProfile(toolList, "verify_change")
			if err != nil {
				return usageError("--tools: %v", err)
			}
			root, eng, log, err := g.openServed(ctx, embedder, watching)
			if err != nil {
				return err
			}
			defer eng.Close()
			gate, err := gateDir(root)
			if err != nil {
				return err
			}
			srv := mcp.New(mcp.Options{Engine: eng, Version: version, Log: log, Verify: &mcp.VerifyOptions{Dir: gate, User: u}, Tools: profile})
			if addr == "" {
				return srv.ServeStdio(ctx)
			}
			return srv.ServeHTTP(ctx, addr, func(a net.Addr) {
				fmt.Fprintf(g.stderr, "cairn: serving MCP for %s at http://%s/mcp\n", root, a)
			})
		},
	}
	m.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on this address (127.0.0.1:7040) instead of stdio")
	m.Flags().StringVar(&toolList, "tools", "lean", "the tools listed: lean (the few most useful, briefly described; bench/serve/TOOLS.md), all, or a comma-separated list of names")
	m.Flags().StringVar(&embedder, "embedder", os.Getenv("CAIRN_EMBEDDER"), "query embedder, as for index")
	user.register(m)
	m.Flags().BoolVar(&watching, "watch", true, "keep the index fresh while serving (as cairn watch; skipped when another watcher runs, and on a shared store)")
	l := &cobra.Command{
		Use:   "lsp",
		Short: "a language server over stdio (definition, references, hover, symbols, call hierarchy, implementations)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := ""
			if f := cmd.Flag("repo"); f != nil && f.Changed {
				r, err := g.repoRoot()
				if err != nil {
					return err
				}
				root = r
			}
			dir := ""
			if g.indexDir != "" {
				dir = g.indexDir
			}
			log := slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			lo := lsp.Options{Engine: engine.Options{Root: root, IndexDir: dir, Embedder: embedder, EmbedHTTP: embedHTTP(), SearchSlots: searchSlots()}, Version: version, Log: log, Watch: watching}
			if g.shared() {
				opts, err := g.engineOptions()
				if err != nil {
					return err
				}
				lo.Engine.Store, lo.Engine.RepoName, lo.Engine.ANN = opts.Store, opts.RepoName, opts.ANN
				g.notWatchingShared(store.Redact(opts.Store) + " (repository " + opts.RepoName + ")")
			}
			return lsp.Serve(cmd.Context(), os.Stdin, os.Stdout, lo)
		},
	}
	l.Flags().StringVar(&embedder, "embedder", os.Getenv("CAIRN_EMBEDDER"), "query embedder, as for index")
	l.Flags().BoolVar(&watching, "watch", true, "keep the index fresh while serving (as cairn watch; skipped when another watcher runs, and on a shared store)")
	c.AddCommand(m, l, serveHTTPCmd(g))
	return group(c)
}

// openServed opens the engine a long-running server (MCP, HTTP) answers
// from: the repository's index with the query embedder, watched unless
// told not to or shared.
func (g *globals) openServed(ctx context.Context, embedder string, watching bool) (string, *engine.Engine, *slog.Logger, error) {
	// a server's heap is mostly long-lived caches: collect less often
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	root, err := g.repoRoot()
	if err != nil {
		return "", nil, nil, err
	}
	log := slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts, err := g.engineOptions()
	if err != nil {
		return "", nil, nil, err
	}
	opts.Root, opts.Embedder, opts.Log = root, embedder, log
	eng, err := engine.Open(ctx, opts)
	if err != nil {
		return "", nil, nil, usageError("%v", err)
	}
	if eng.Shared() {
		g.notWatchingShared(eng.Where())
	} else if watching {
		if err := eng.Watch(ctx); err != nil {
			log.Warn("serving without an embedded watcher", "reason", err)
		}
	}
	return root, eng, log, nil
}

func serveHTTPCmd(g *globals) *cobra.Command {
	var addr, token, embedder string
	var remote, watching bool
	var hosts []string
	h := &cobra.Command{
		Use:   "http [--addr 127.0.0.1:7777]",
		Short: "a read-only web UI (repository map, symbols, trace, impact, context, agent runs) and JSON API under /api/",
		Long: `http serves the index to people: pages at / (the repository), /search, /symbol,
/trace, /impact, /context, /runs and /source, and a JSON API under /api/ whose
endpoints are the MCP tools (schema/openapi.json). It binds to loopback; another
address needs --remote and a token (--token or CAIRN_HTTP_TOKEN), checked on
every request. Requests for a host name other than localhost, an IP literal or an
--allow-host, and requests from another origin, are refused.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if token == "" {
				token = os.Getenv("CAIRN_HTTP_TOKEN")
			}
			if err := web.CheckAddr(addr, remote, token); err != nil {
				return usageError("%v", err)
			}
			root, eng, log, err := g.openServed(ctx, embedder, watching)
			if err != nil {
				return err
			}
			defer eng.Close()
			srv, err := web.New(web.Options{Engine: eng, Addr: addr, Remote: remote, Token: token, AllowHosts: hosts, Version: version, Log: log})
			if err != nil {
				return usageError("%v", err)
			}
			return srv.ListenAndServe(ctx, func(a net.Addr) {
				fmt.Fprintf(g.stderr, "cairn: serving %s at http://%s/\n", root, a)
			})
		},
	}
	f := h.Flags()
	f.StringVar(&addr, "addr", web.DefaultAddr, "address to listen on (loopback unless --remote)")
	f.BoolVar(&remote, "remote", false, "allow a non-loopback --addr (needs a token)")
	f.StringVar(&token, "token", "", "require this token on every request (default $CAIRN_HTTP_TOKEN; at least 16 bytes)")
	f.StringSliceVar(&hosts, "allow-host", nil, "further Host names to accept (the machine's DNS name, when --remote)")
	f.StringVar(&embedder, "embedder", os.Getenv("CAIRN_EMBEDDER"), "query embedder, as for index")
	f.BoolVar(&watching, "watch", true, "keep the index fresh while serving (as cairn watch; skipped when another watcher runs, and on a shared store)")
	return h
}

// notWatchingShared says that a server over a shared store only reads it:
// one `cairn watch --store …` per repository keeps it fresh, and a
// server that watched too would build a generation per editor.
func (g *globals) notWatchingShared(where string) {
	fmt.Fprintf(g.stderr, "cairn: serving the shared store %s as a reader; not watching (run `cairn watch --store …` beside the worktree to keep it fresh)\n", where)
}
