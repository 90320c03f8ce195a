package kgviz_test

import (
	"fmt"
	"sort"

	"github.com/kgviz/kgviz/kgviz"
)

// show prints a target assignment member by member, partitions as "orders-0".
func show(img *kgviz.TopicsImage, members map[string]kgviz.Assignment) {
	ids := make([]string, 0, len(members))
	for id := range members {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Println(id, members[id].TopicPartitions(img))
	}
}

// The uniform assignor (the broker's default) on a group where C1 owns
// everything and C2 and C3 have just joined: C1 keeps its quota, the
// newcomers get the rest.
func ExampleUniformAssignor() {
	img, _ := kgviz.NewTopicsImage(map[string]int{"orders": 3, "payments": 3})
	all, _ := kgviz.AssignmentOf(img, []kgviz.TopicPartition{
		{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}, {Topic: "orders", Partition: 2},
		{Topic: "payments", Partition: 0}, {Topic: "payments", Partition: 1}, {Topic: "payments", Partition: 2},
	})
	topics := []string{"orders", "payments"}
	plan, err := kgviz.UniformAssignor.Assign(&kgviz.GroupSpec{
		SubscriptionType: kgviz.Homogeneous,
		Members: []kgviz.MemberSpec{
			{MemberID: "C1-1", SubscribedTopicNames: topics, Assignment: all},
			{MemberID: "C2-1", SubscribedTopicNames: topics},
			{MemberID: "C3-1", SubscribedTopicNames: topics},
		},
	}, img)
	if err != nil {
		fmt.Println(err)
		return
	}
	show(img, plan.Members)
	// Output:
	// C1-1 [orders-0 orders-1]
	// C2-1 [orders-2 payments-0]
	// C3-1 [payments-1 payments-2]
}

// The server-side range assignor cuts each topic into ranges: co-partitioned
// topics go together. Static members come first.
func ExampleServerRangeAssignor() {
	img, _ := kgviz.NewTopicsImage(map[string]int{"orders": 3, "payments": 3})
	topics := []string{"orders", "payments"}
	plan, err := kgviz.ServerRangeAssignor.Assign(&kgviz.GroupSpec{
		Members: []kgviz.MemberSpec{
			{MemberID: "C1-1", SubscribedTopicNames: topics},
			{MemberID: "C2-1", SubscribedTopicNames: topics, InstanceID: "billing-2"},
		},
	}, img)
	if err != nil {
		fmt.Println(err)
		return
	}
	show(img, plan.Members)
	// Output:
	// C1-1 [orders-2 payments-2]
	// C2-1 [orders-0 orders-1 payments-0 payments-1]
}

// C1, C2 and C3 join one at a time; each join is a heartbeat that bumps the
// group epoch, and the coordinator computes the new target assignment with
// the assignor the members ask for (group.remote.assignor), as
// GroupMetadataManager does.
func ExampleBuildTargetAssignment() {
	img, _ := kgviz.NewTopicsImage(map[string]int{"orders": 3, "payments": 3})
	assignor, _ := kgviz.ServerAssignorByName(kgviz.PreferredServerAssignor(map[string]int{"uniform": 3}))
	var order kgviz.GroupMemberOrder
	members := map[string]kgviz.GroupMember{}
	target := map[string]kgviz.Assignment{}
	for _, id := range []string{"C1-1", "C2-1", "C3-1"} {
		joining := kgviz.GroupMember{MemberID: id, SubscribedTopicNames: []string{"orders", "payments"}}
		in := kgviz.TargetAssignmentInput{Topics: img, TargetAssignment: target,
			Updates: []kgviz.MemberUpdate{{MemberID: id, Member: &joining}}}
		for _, m := range order.IDs() {
			in.Members = append(in.Members, members[m])
		}
		res, err := kgviz.BuildTargetAssignment(assignor, in)
		if err != nil {
			fmt.Println(err)
			return
		}
		members[id] = joining
		order.Put(id)
		target = res.Members
		fmt.Println(id, "joins; new target for", res.Changed)
	}
	show(img, target)
	// Output:
	// C1-1 joins; new target for [C1-1]
	// C2-1 joins; new target for [C2-1 C1-1]
	// C3-1 joins; new target for [C3-1 C2-1 C1-1]
	// C1-1 [orders-0 orders-1]
	// C2-1 [payments-0 payments-1]
	// C3-1 [orders-2 payments-2]
}

// C1 owns orders-0 and orders-1; its new target moves orders-1 to another
// member. C1 first revokes it, staying at epoch 1; once its heartbeat no
// longer lists it, C1 moves to epoch 2. Only then is orders-1 free for its
// new owner.
func ExampleReconcileMember() {
	img, _ := kgviz.NewTopicsImage(map[string]int{"orders": 2})
	owned, _ := kgviz.AssignmentOf(img, []kgviz.TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}})
	target, _ := kgviz.AssignmentOf(img, []kgviz.TopicPartition{{Topic: "orders", Partition: 0}})
	free := func(kgviz.TopicID, int) int { return -1 }
	c1 := kgviz.MemberAssignmentState{State: kgviz.MemberStable, MemberEpoch: 1, AssignedPartitions: owned}
	for _, heartbeat := range []kgviz.Assignment{owned, owned, target} {
		c1, _ = kgviz.ReconcileMember(c1, kgviz.Reconciliation{TargetAssignmentEpoch: 2, TargetAssignment: target,
			CurrentPartitionEpoch: free, OwnedTopicPartitions: heartbeat})
		fmt.Println(c1.State, "epoch", c1.MemberEpoch, "assigned", c1.AssignedPartitions.TopicPartitions(img),
			"revoking", c1.PartitionsPendingRevocation.TopicPartitions(img))
	}
	// Output:
	// UNREVOKED_PARTITIONS epoch 1 assigned [orders-0] revoking [orders-1]
	// UNREVOKED_PARTITIONS epoch 1 assigned [orders-0] revoking [orders-1]
	// STABLE epoch 2 assigned [orders-0] revoking []
}
