; Elixir tags: modules and def/defp/defmacro; calls and aliases as name-only references.
(comment) @comment
((call target: (identifier) @_k (arguments (alias) @name)) @def.module
  (#match? @_k "^(defmodule|defprotocol)$"))
((call target: (identifier) @_k (arguments (call target: (identifier) @name))) @def.function
  (#match? @_k "^(def|defp|defmacro|defmacrop|defguard|defdelegate)$"))
((call target: (identifier) @_k (arguments (binary_operator left: (call target: (identifier) @name)))) @def.function
  (#match? @_k "^(def|defp|defmacro|defmacrop|defguard)$"))
((call target: (identifier) @_k (arguments (identifier) @name)) @def.function
  (#match? @_k "^(def|defp)$"))
(call target: (dot right: (identifier) @ref.call))
(call target: (identifier) @ref.call)
(alias) @ref.type
(identifier) @ref.read
