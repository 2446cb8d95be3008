// Package hook is cairn inside other agents' clients (placeholder; see below).
package hook
