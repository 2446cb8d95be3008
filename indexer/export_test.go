package indexer

import "time"

// SetRacySlack changes how close to a full scan a change counts as racy
// (see snapshot.go) and returns the restore.
func SetRacySlack(d time.Duration) func() {
	old := racySlack
	racySlack = d
	return func() { racySlack = old }
}
