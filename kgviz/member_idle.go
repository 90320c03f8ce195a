package kgviz

// A fast path, kept for its figure. idle is poll() for a member that found
// nothing to read at its last poll and whose owned partitions and positions
// have not changed since (member.ver): input topics never grow, so poll()
// would find nothing again, and it only notes the poll. Without it every
// member scans its partitions' positions and ends every tick (missingPositions,
// fetchWanted): the 500-member static rolling restart cost 3.3x the CPU of
// 8717557 (scripts/bench.sh guard, docs/performance.md); the guard allows 1.5x.
// pollFetch sets idleVer when it finds nothing to fetch.
func (p *member) idle() bool {
	g := &p.group
	if p.idleVer != p.ver || p.lifecycle == LifecycleClosing || p.commitOwed {
		return false // a commit owed (RebalanceInProgressException, STALE_MEMBER_EPOCH) is retried by poll()
	}
	if p.consumerProtocol() {
		if p.cg.state != ConsumerStable || p.cg.lost {
			return false
		}
	} else if g.rejoinNeeded || g.havePending || g.state != ClassicStable || g.hbFailed != "" {
		return false
	}
	if p.cfg.commit == AutoCommit && p.now()-p.lastAuto >= p.cfg.autoCommitInterval {
		return false
	}
	p.lastPoll = p.now()
	return true
}
