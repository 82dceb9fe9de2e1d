package lab

// withDefaults fills in the switches an exploration runs with: writes split
// and expiry free unless named, and atomic writes with expiry in place
// when the partial order is given (an import's events happened as logged).
func withDefaults(opt ExploreOptions) ExploreOptions {
	if opt.Budget <= 0 {
		opt.Budget = DefaultBudget
	}
	if opt.After != nil {
		opt.Writes, opt.Expiry = WritesAtomic, ExpiryProgram
	}
	if opt.Writes == "" {
		opt.Writes = WritesSplit
	}
	if opt.Expiry == "" {
		opt.Expiry = ExpiryFree
	}
	return opt
}

// orderOf is the partial order of an exploration: the actors' programs,
// or the order given in opt.After.
func orderOf(pr *program, opt ExploreOptions) partialOrder {
	if opt.After == nil {
		return newPartialOrder(pr, opt.Expiry)
	}
	return givenOrder(pr, opt.After)
}

// givenOrder is the partial order of after, plus what the model itself
// requires: a deliver after its send, a commit after its delivers. Only
// entries naming an earlier event are kept, so the given edges alone have
// no cycle. A caller that writes a deliver before its send and orders the
// send after it leaves no ordering at all (Explore counts none): an
// import puts each deliver after its send.
func givenOrder(pr *program, after [][]int) partialOrder {
	po := make(partialOrder, len(pr.events))
	for i := range po {
		if i >= len(after) {
			break
		}
		for _, j := range after[i] {
			if j >= 1 && j <= i {
				po[i] = append(po[i], int32(j-1))
			}
		}
	}
	sendOf := map[int]int{}
	delivers := map[int][]int32{}
	for i, e := range pr.events {
		switch e.kind {
		case Send:
			sendOf[e.request] = i
		case Deliver:
			delivers[e.request] = append(delivers[e.request], int32(i))
		}
	}
	for i, e := range pr.events {
		switch e.kind {
		case Deliver:
			if s, ok := sendOf[e.request]; ok {
				po[i] = append(po[i], int32(s))
			}
		case Commit:
			po[i] = append(po[i], delivers[e.request]...)
		}
	}
	return po
}
