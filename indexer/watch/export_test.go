package watch

import "github.com/fsnotify/fsnotify"

// SetAddWatch replaces how directories are watched (to inject the kernel's
// watch limit).
func SetAddWatch(o *Options, f func(w *fsnotify.Watcher, dir string) error) { o.addWatch = f }

// SetBeforeRead makes the loop wait for a value on ch before each event it
// reads (to let the kernel's queue overflow).
func SetBeforeRead(o *Options, ch chan struct{}) { o.beforeRead = ch }
