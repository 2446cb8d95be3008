package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/graph/store"
	"github.com/cairn-dev/cairn/lsp"
	"github.com/cairn-dev/cairn/lsp/mcp"
)

func serveCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "serve (mcp | lsp)",
		Short: "serve agents (MCP) or editors (LSP) from the index",
	}
	var addr string
	var embedder string
	var watching bool
	m := &cobra.Command{
		Use:   "mcp [--http ADDR]",
		Short: "an MCP server over stdio, or over streamable HTTP with --http (endpoint /mcp)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			// a server's heap is mostly long-lived caches: collect less often
			if os.Getenv("GOGC") == "" {
				debug.SetGCPercent(200)
			}
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			log := slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			opts, err := g.engineOptions()
			if err != nil {
				return err
			}
			opts.Root, opts.Embedder, opts.Log = root, embedder, log
			eng, err := engine.Open(ctx, opts)
			if err != nil {
				return usageError("%v", err)
			}
			defer eng.Close()
			if eng.Shared() {
				g.notWatchingShared(eng.Where())
			} else if watching {
				if err := eng.Watch(ctx); err != nil {
					log.Warn("serving without an embedded watcher", "reason", err)
				}
			}
			gate, err := gateDir(root)
			if err != nil {
				return err
			}
			srv := mcp.New(mcp.Options{Engine: eng, Version: version, Log: log, Verify: &mcp.VerifyOptions{Dir: gate}})
			if addr == "" {
				return srv.ServeStdio(ctx)
			}
			return srv.ServeHTTP(ctx, addr, func(a net.Addr) {
				fmt.Fprintf(g.stderr, "cairn: serving MCP for %s at http://%s/mcp\n", root, a)
			})
		},
	}
	m.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on this address (127.0.0.1:7040) instead of stdio")
	m.Flags().StringVar(&embedder, "embedder", os.Getenv("CAIRN_EMBEDDER"), "query embedder, as for index")
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
			lo := lsp.Options{Root: root, IndexDir: dir, Embedder: embedder, EmbedHTTP: embedHTTP(), SearchSlots: searchSlots(), Version: version, Log: log, Watch: watching}
			if g.shared() {
				opts, err := g.engineOptions()
				if err != nil {
					return err
				}
				lo.Store, lo.RepoName, lo.ANN = opts.Store, opts.RepoName, opts.ANN
				g.notWatchingShared(store.Redact(opts.Store) + " (repository " + opts.RepoName + ")")
			}
			return lsp.Serve(cmd.Context(), os.Stdin, os.Stdout, lo)
		},
	}
	l.Flags().StringVar(&embedder, "embedder", os.Getenv("CAIRN_EMBEDDER"), "query embedder, as for index")
	l.Flags().BoolVar(&watching, "watch", true, "keep the index fresh while serving (as cairn watch; skipped when another watcher runs, and on a shared store)")
	c.AddCommand(m, l)
	return group(c)
}

// notWatchingShared says that a server over a shared store only reads it:
// one `cairn watch --store …` per repository keeps it fresh, and a
// server that watched too would build a generation per editor.
func (g *globals) notWatchingShared(where string) {
	fmt.Fprintf(g.stderr, "cairn: serving the shared store %s as a reader; not watching (run `cairn watch --store …` beside the worktree to keep it fresh)\n", where)
}
