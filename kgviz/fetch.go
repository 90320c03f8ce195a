package kgviz

type fetchReq struct {
	parts []partOffset // partitions and the offsets to read from
	start int          // which partition to start with (rotates, like a fetch session)
	max   int          // max.poll.records
}

type fetchResp struct {
	records []fetched
	logEnd  []partOffset
	next    int
}

// onFetch is the partition leader answering a Fetch: at most max records,
// starting with the partition after the one the last poll ended on.
func (w *World) onFetch(m *message) {
	req := m.body.(*fetchReq)
	resp := &fetchResp{}
	n := len(req.parts)
	resp.next = req.start
	for i := 0; i < n; i++ {
		po := req.parts[(req.start+i)%n]
		log := w.inputs[po.tp]
		resp.logEnd = append(resp.logEnd, partOffset{po.tp, log.hw()})
		for off := po.offset; off < log.hw() && len(resp.records) < req.max; off++ {
			resp.records = append(resp.records, fetched{tp: po.tp, offset: off, name: log.records[off].Record})
			resp.next = (req.start + i + 1) % n
		}
	}
	w.respond(m, NONE, 0, resp)
}
