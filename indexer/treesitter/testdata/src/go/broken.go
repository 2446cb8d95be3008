package store

func ok() int { return 1 }

func broken( {
	x := 
}

func after() { ok() }
