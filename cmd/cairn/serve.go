package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/lsp"
	"github.com/cairn-dev/cairn/lsp/mcp"
)

// version is reported by the servers.
const version = "0.1.0-dev"

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
			if err := g.embeddedOnly("serve mcp"); err != nil {
				return err
			}
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
			eng, err := engine.Open(ctx, engine.Options{Root: root, IndexDir: g.indexDir, Embedder: embedder, Log: log})
			if err != nil {
				return usageError("%v", err)
			}
			defer eng.Close()
			if watching {
				if err := eng.Watch(ctx); err != nil {
					log.Warn("serving without an embedded watcher", "reason", err)
				}
			}
			srv := mcp.New(mcp.Options{Engine: eng, Version: version, Log: log})
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
	m.Flags().BoolVar(&watching, "watch", true, "keep the index fresh while serving (as cairn watch; skipped when another watcher runs)")
	l := &cobra.Command{
		Use:   "lsp",
		Short: "a language server over stdio (definition, references, hover, symbols, call hierarchy, implementations)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := g.embeddedOnly("serve lsp"); err != nil {
				return err
			}
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
			return lsp.Serve(cmd.Context(), os.Stdin, os.Stdout, lsp.Options{Root: root, IndexDir: dir, Embedder: embedder, Version: version, Log: log, Watch: watching})
		},
	}
	l.Flags().StringVar(&embedder, "embedder", os.Getenv("CAIRN_EMBEDDER"), "query embedder, as for index")
	l.Flags().BoolVar(&watching, "watch", true, "keep the index fresh while serving (as cairn watch; skipped when another watcher runs)")
	c.AddCommand(m, l)
	return c
}
