package graph

// Direction selects edges into or out of a set of symbols.
type Direction uint8

const (
	// In: edges whose To is in the set (callers, implementations).
	In Direction = iota + 1
	// Out: edges whose From is in the set (callees, supertypes).
	Out
)
