package kgviz

// A member's state, in three parts: the process's lifecycle, its membership
// in the group as its consumer sees it (ClassicMemberState: Kafka's AbstractCoordinator.MemberState),
// and what its application thread is doing (Phase). MemberInfo reports them.

// Lifecycle is where a member's process is in its life.
type Lifecycle uint8

// The lifecycle states of a process.
const (
	// LifecycleStarting: the process started and has not joined the group yet
	// (initTransactions, FindCoordinator).
	LifecycleStarting Lifecycle = iota + 1
	// LifecycleRunning: the process runs its poll loop.
	LifecycleRunning
	// LifecycleClosing: close() was called; the process closes at its next poll.
	LifecycleClosing
	// LifecycleReplaced: a restart started a newer process of the member while
	// this one was stuck in a slow record; it runs on as a zombie and stops
	// after its batch.
	LifecycleReplaced
	// LifecycleClosed: the process closed gracefully.
	LifecycleClosed
	// LifecycleCrashed: the process was killed (Crash).
	LifecycleCrashed
	// LifecycleFailed: the process stopped on a fatal error
	// (ProducerFencedException, FencedInstanceIdException,
	// InconsistentGroupProtocolException).
	LifecycleFailed
	// LifecycleStopped: a replaced process finished its batch and stopped.
	LifecycleStopped
)

var lifecycleNames = [...]string{"", "starting", "running", "closing", "replaced", "closed", "crashed", "failed", "stopped"}

// String returns the state's name.
func (l Lifecycle) String() string {
	if int(l) < len(lifecycleNames) && l > 0 {
		return lifecycleNames[l]
	}
	return "unknown"
}

// Alive says whether the process still runs (starting, running, closing or replaced).
func (l Lifecycle) Alive() bool { return l >= LifecycleStarting && l <= LifecycleReplaced }

// setLifecycle is the one writer of a process's lifecycle (startProcess
// gives it LifecycleStarting): Starting → Running when the coordinator is
// found (onFindCoordinatorResponse); Starting or Running → Closing (Close,
// Restart); a process in a slow record → Replaced (Restart); any → an end
// state (Closed, Crashed, Failed, Stopped) through end, once.
func (p *member) setLifecycle(l Lifecycle) { p.lifecycle = l }

// setPhase is the one writer of a process's Phase (TestPhaseHasOneWriter):
// what its application thread does next, as the step that got an answer or
// sent a request decides.
func (p *member) setPhase(ph Phase) { p.phase = ph }

// ClassicMemberState is a consumer's membership in a classic group as it
// sees it (Kafka's AbstractCoordinator.MemberState). The consumer protocol of
// KIP-848 has its own client-side states (ConsumerMembershipManager's
// MemberState); MemberState in this package is the coordinator's
// reconciliation state of a consumer group member (current_assignment.go).
type ClassicMemberState uint8

// The membership states.
const (
	// ClassicUnjoined: not in the group, or it learned it was removed (its
	// generation was reset); the next poll rejoins.
	ClassicUnjoined ClassicMemberState = iota
	// ClassicPreparingRebalance: JoinGroup sent, waiting for the answer.
	ClassicPreparingRebalance
	// ClassicCompletingRebalance: JoinGroup answered, SyncGroup sent.
	ClassicCompletingRebalance
	// ClassicStable: SyncGroup answered; the assignment is known.
	ClassicStable
)

var classicMemberStateNames = [...]string{"UNJOINED", "PREPARING_REBALANCE", "COMPLETING_REBALANCE", "STABLE"}

// String returns Kafka's name of the state.
func (s ClassicMemberState) String() string {
	if int(s) < len(classicMemberStateNames) {
		return classicMemberStateNames[s]
	}
	return "unknown"
}

// ConsumerMemberState is a consumer's membership in a consumer group
// (KIP-848, group.protocol=consumer) as it sees it: Kafka's client-side
// MemberState of ConsumerMembershipManager (AbstractMembershipManager).
type ConsumerMemberState uint8

// The client-side states of the consumer group protocol.
const (
	// ConsumerUnsubscribed: not in the group (before the first poll, or after leaving).
	ConsumerUnsubscribed ConsumerMemberState = iota
	// ConsumerJoining: heartbeats with epoch 0 until the coordinator gives an epoch.
	ConsumerJoining
	// ConsumerReconciling: a new assignment arrived; the next poll revokes
	// what moves away (onPartitionsRevoked) and takes what is new
	// (onPartitionsAssigned); the member goes on consuming what it keeps.
	ConsumerReconciling
	// ConsumerAcknowledging: reconciled; the next heartbeat reports the
	// partitions it owns now, without waiting for the interval.
	ConsumerAcknowledging
	// ConsumerStable: in the group, nothing to reconcile.
	ConsumerStable
	// ConsumerFenced: FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID; the next poll
	// gives its partitions up as lost (onPartitionsLost) and it rejoins with epoch 0.
	ConsumerFenced
	// ConsumerPrepareLeaving: close() or unsubscribe() releases the assignment.
	ConsumerPrepareLeaving
	// ConsumerLeaving: the next heartbeat leaves (epoch -1, or -2 for a static member).
	ConsumerLeaving
	// ConsumerFatal: an unrecoverable error (UNRELEASED_INSTANCE_ID,
	// FENCED_INSTANCE_ID, ...); the next poll throws it.
	ConsumerFatal
	// ConsumerStale: max.poll.interval.ms expired; the member left the group
	// and rejoins at its next poll, its partitions given up as lost.
	ConsumerStale
)

var consumerMemberStateNames = [...]string{"UNSUBSCRIBED", "JOINING", "RECONCILING", "ACKNOWLEDGING", "STABLE", "FENCED",
	"PREPARE_LEAVING", "LEAVING", "FATAL", "STALE"}

// String returns Kafka's name of the state.
func (s ConsumerMemberState) String() string {
	if int(s) < len(consumerMemberStateNames) {
		return consumerMemberStateNames[s]
	}
	return "unknown"
}

// inGroup says whether the member is an active member of the group
// (AbstractMembershipManager.isNotInGroup's complement).
func (s ConsumerMemberState) inGroup() bool {
	return s != ConsumerUnsubscribed && s != ConsumerFenced && s != ConsumerFatal && s != ConsumerStale
}

// Phase is what a member's application thread is doing.
type Phase uint8

// The phases of the application thread.
const (
	PhaseInitProducerID  Phase = iota + 1 // initTransactions(): waiting for InitProducerId
	PhaseFindCoordinator                  // waiting for FindCoordinator
	PhasePoll                             // calls poll() at its next step
	PhaseRebalance                        // blocked in poll() while the group rebalances
	PhaseOffsetFetch                      // in poll(), waiting for OffsetFetch
	PhaseFetch                            // in poll(), waiting for Fetch
	PhaseCommitBefore                     // waiting for the commit that precedes processing
	PhaseProcess                          // processing the batch
	PhaseFlush                            // waiting for produce acknowledgements
	PhaseCommitAfter                      // waiting for commitSync after processing
	PhaseRevokeCommit                     // in poll(), waiting for the commit of onPartitionsRevoked
	PhaseRetryCommit                      // in poll(), waiting for a commit retried after RebalanceInProgressException
	PhaseTxnAddOffsets                    // waiting for AddOffsetsToTxn
	PhaseTxnOffsetCommit                  // waiting for TxnOffsetCommit
	PhaseTxnEnd                           // waiting for EndTxn
	PhaseBackoff                          // retry.backoff.ms before resending (Backoff says what)
	PhaseDone                             // the process ended
	PhaseListOffsets                      // in poll(), waiting for ListOffsets (WithListOffsets)
)

var phaseNames = [...]string{"", "init-producer-id", "find-coordinator", "poll", "rebalance", "offset-fetch", "fetch",
	"commit-before", "process", "flush", "commit-after", "revoke-commit", "retry-commit", "txn-add-offsets", "txn-offset-commit",
	"txn-end", "backoff", "done", "list-offsets"}

// String returns the phase's name.
func (ph Phase) String() string {
	if int(ph) < len(phaseNames) && ph > 0 {
		return phaseNames[ph]
	}
	return "unknown"
}

// inPoll says whether the application is inside poll() in this phase (which
// keeps max.poll.interval.ms from expiring).
func (ph Phase) inPoll() bool {
	switch ph {
	case PhaseInitProducerID, PhaseFindCoordinator, PhasePoll, PhaseRebalance, PhaseOffsetFetch, PhaseFetch,
		PhaseRevokeCommit, PhaseRetryCommit, PhaseListOffsets:
		return true
	}
	return false
}

// MemberInfo is a snapshot of one member's newest process.
type MemberInfo struct {
	Name        string
	Incarnation int // 1 for the first process, +1 per restart
	Lifecycle   Lifecycle
	Membership  ClassicMemberState
	Phase       Phase
	MemberID    string // the group member id the consumer holds ("" if none)
	Generation  int    // the generation the consumer holds (0 if none)
	// AppGeneration is the generation the application got at its last
	// completed rebalance (ConsumerGroupMetadata): fixed between polls, it is
	// what its transactional offset commits carry.
	AppGeneration int
	RejoinNeeded  bool
	Protocol      RebalanceProtocol // a classic member's rebalance protocol (from its assignors)
	Assignors     []string          // a classic member's partition.assignment.strategy
	Owned         []string          // partitions it owns, short names
	// GroupProtocol is the member's group.protocol. For a Consumer member
	// (KIP-848), ConsumerState is its ConsumerMembershipManager state,
	// Generation its member epoch, AppGeneration the epoch its
	// ConsumerGroupMetadata carries, and RemoteAssignor its
	// group.remote.assignor ("" when the broker chooses).
	GroupProtocol  GroupProtocol
	ConsumerState  ConsumerMemberState
	RemoteAssignor string
	// ShareGroup is a share consumer's share group (KIP-932; "" for a
	// consumer), AcknowledgementMode its share.acknowledgement.mode; for it
	// Generation is its member epoch and Owned the partitions it is assigned.
	ShareGroup          string
	AcknowledgementMode AcknowledgementMode
}
