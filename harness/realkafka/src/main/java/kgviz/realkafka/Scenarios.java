package kgviz.realkafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The scenarios run on the real broker: the twelve demos of DEMOS.md as kgviz's report command
 * and demo tests script them (cmd/kgviz/demos.go, kgviz/demos_test.go), a few variants, and the
 * KIP-848 joins of issue 14. Each reads like its kgviz script; the Go side
 * (realkafka/sim.go) runs the same script on the simulation.
 */
final class Scenarios {
    interface Body {
        void run(Run r) throws Exception;
    }

    /** id: the recording's name; runs: how many runs to record (more where the result varies). */
    record Scenario(String id, int demo, String title, int runs, short transactionVersion, boolean proxy, Body body) {
        /** How many member processes (JVMs) a run starts; they are reserved before its clock starts. */
        int agents() {
            if (id.startsWith("demo02") || id.startsWith("demo03")) return 4;
            if (id.startsWith("demo06-rolling")) return 6;
            if (id.startsWith("kip848")) return 5;
            if (id.startsWith("demo06-close-restart") || id.startsWith("demo11-lso-restart") || id.startsWith("demo12-generation")
                || id.startsWith("demo12-epoch")) return 3;
            return 2;
        }
    }

    static final double STABLE = 120, QUIET = 400;

    static List<Scenario> all() {
        List<Scenario> s = new ArrayList<>();
        s.add(new Scenario("demo01-rebalance", 1, "A rebalance, step by step: C1 alone, then C2 joins", 3, (short) 2, false, r -> {
            r.add("C1");
            r.prepare("C2", Map.of());
            r.awaitStable(STABLE);
            r.sleepTicks(4);
            r.add("C2");
            r.awaitStable(STABLE);
            r.sleepTicks(4);
        }));
        s.add(new Scenario("demo02-range", 2, "Range, eager: C1..C4 join one at a time", 3, (short) 2, false, r -> joinFour(r, "range")));
        s.add(new Scenario("demo03-cooperative", 3, "Cooperative-sticky: C1..C4 join one at a time", 3, (short) 2, false,
            r -> joinFour(r, "cooperative-sticky")));
        s.add(new Scenario("demo04-commit-after", 4, "Commit after processing: C2 crashes after 2 records of the batch holding p2.3", 3, (short) 2, false, r -> {
            twoMembers(r, () -> r.armCrash("C2", "p2.3", 2));
            r.await("C2", Run.ev("crash"), "Crashed(C2)", 200);
            r.awaitQuiet(QUIET);
        }));
        s.add(new Scenario("demo05-commit-before", 5, "Commit before processing: C2 crashes right after committing the batch holding p2.3", 3, (short) 2, false, r -> {
            r.world.put("commit", "before");
            twoMembers(r, () -> r.armCrash("C2", "p2.3", 0));
            r.await("C2", Run.ev("crash"), "Crashed(C2)", 200);
            r.awaitQuiet(QUIET);
        }));
        s.add(new Scenario("demo05-auto-commit", 5, "Auto-commit (interval 10 ticks): C2 crashes after 2 records of the batch holding p2.3", 3, (short) 2, false, r -> {
            r.world.put("commit", "auto");
            r.world.put("auto.commit.interval.ms", 10);
            twoMembers(r, () -> r.armCrash("C2", "p2.3", 2));
            r.await("C2", Run.ev("crash"), "Crashed(C2)", 200);
            r.awaitQuiet(QUIET);
        }));
        s.add(new Scenario("demo06-close-restart", 6, "close() and a restart of a dynamic member", 3, (short) 2, false, r -> {
            twoMembers(r);
            r.prepare("C2");
            r.close("C2");
            r.awaitStable(STABLE);
            r.restart("C2");
            r.awaitStable(STABLE);
            r.sleepTicks(3);
        }));
        s.add(new Scenario("demo06-crash", 6, "A dynamic member crashes: the group waits for session.timeout.ms", 3, (short) 2, false, r -> {
            twoMembers(r);
            r.crashNow("C2");
            r.awaitStable(STABLE);
            r.sleepTicks(2);
        }));
        s.add(new Scenario("demo06-rolling-dynamic", 6, "Rolling restart of three dynamic members", 3, (short) 2, false, r -> rolling(r, false)));
        s.add(new Scenario("demo06-rolling-static", 6, "Rolling restart of three static members (group.instance.id)", 3, (short) 2, false, r -> rolling(r, true)));
        s.add(new Scenario("demo06-static-crash", 6, "A static member really dies: noticed after session.timeout.ms", 3, (short) 2, false, r -> {
            r.add("C1", Map.of("instanceId", "C1"));
            r.prepare("C2", Map.of("instanceId", "C2"));
            r.awaitStable(STABLE);
            r.add("C2", Map.of("instanceId", "C2"));
            r.awaitStable(STABLE);
            r.crashNow("C2");
            r.awaitStable(STABLE);
            r.sleepTicks(2);
        }));
        s.add(new Scenario("demo07-zombie", 7, "The zombie consumer: the record after p2.3 takes 15 ticks, max.poll.interval.ms is 12", 3, (short) 2, false, r -> {
            twoMembers(r, () -> r.armSlowAfterPolled("C2", "p2.3"));
            r.awaitQuiet(QUIET);
        }));
        s.add(new Scenario("demo07-zombie-static", 7, "The zombie consumer, static (group.instance.id): no LeaveGroup on the poll timeout; C2 (first in range's order) slow after p1.3", 3, (short) 2, false, r -> {
            twoMembers(r, Map.of(), Map.of("instanceId", "C2"), () -> r.armSlowAfterPolled("C2", "p1.3"));
            r.awaitQuiet(QUIET);
        }));
        for (String producer : List.of("idempotent", "plain")) {
            s.add(new Scenario("demo08-" + producer, 8, "The answer to C2's Produce of inv(p2.3) is lost (" + producer + " producer)", 3, (short) 2, true, r -> {
                r.world.put("producer", producer);
                r.pollTimeoutExpected = true; // a produce blocked in its retry may outlast max.poll.interval.ms
                // Armed as soon as C2 exists, not when the orchestrator sees Polled(C2, p2.3): C2 sends that
                // Produce one processing tick after the poll, and an orchestrator that learns of the poll later
                // than that (a loaded machine) armed the proxy too late, so nothing was lost (CI, 1 Dec 2026).
                // C2 produces inv(p2.3) for the first time only after polling p2.3, so the answer lost is the
                // same one kgviz's LoseNextProduceResponse at Polled(C2, p2.3) loses.
                twoMembers(r, Map.of("viaProxy", true), Map.of("viaProxy", true), () -> r.proxy.loseResponseTo(r.name("C2"), "inv(p2.3)"));
                r.await("C2", Run.polled("p2.3"), "Polled(C2, p2.3)", 200);
                r.step("lose-next-produce-response", "C2", "record", "inv(p2.3)");
                r.awaitQuiet(QUIET);
                if (r.proxy.lost() == 0) r.fail("the proxy lost no answer: C2 sent no Produce of inv(p2.3) after it was armed");
            }));
        }
        s.add(new Scenario("demo09-reprocessing", 9, "Idempotent producer; C2 crashes after 2 records of the batch holding o2.3", 3, (short) 2, false, r -> {
            twoMembers(r, () -> r.armCrash("C2", "o2.3", 2));
            r.await("C2", Run.ev("crash"), "Crashed(C2)", 200);
            r.awaitQuiet(QUIET);
        }));
        for (short tv : new short[] {1, 2}) {
            String v = "-tv" + tv;
            boolean tv1 = tv == 1; // transaction.version 2 (Kafka 4.x default) only for demo 10 and demo 12 epoch fence
            s.add(new Scenario("demo10-transactions" + v, 10, "Transactions: C2 crashes after 3 records of the transaction holding p2.3 (transaction.version=" + tv + ")", 3, tv, false, r -> {
                transactional(r);
                twoMembers(r, () -> r.armCrash("C2", "p2.3", 3));
                r.await("C2", Run.ev("crash"), "Crashed(C2)", 200);
                r.awaitQuiet(QUIET);
            }));
            if (tv1) s.add(new Scenario("demo11-lso" + v, 11, "read_committed and the LSO: C2 crashes inside the transaction holding o2.3 (transaction.version=" + tv + ")", 3, tv, false, r -> {
                transactional(r);
                r.sampleLso = true;
                twoMembers(r, () -> r.armCrash("C2", "o2.3", 3));
                r.await("C2", Run.ev("crash"), "Crashed(C2)", 200);
                r.awaitQuiet(QUIET);
            }));
            if (tv1) s.add(new Scenario("demo11-lso-restart" + v, 11, "The same crash, then a restart of C2 one tick later (transaction.version=" + tv + ")", 3, tv, false, r -> {
                transactional(r);
                r.sampleLso = true;
                twoMembers(r, () -> r.armCrash("C2", "o2.3", 3));
                r.prepare("C2");
                r.await("C2", Run.ev("crash"), "Crashed(C2)", 200);
                r.sleepTicks(1);
                r.restart("C2");
                r.awaitQuiet(QUIET);
            }));
            if (tv1) s.add(new Scenario("demo12-generation-fence" + v, 12, "KIP-447: static C2 (session 30 ticks) stuck in a 20-tick record while C3 joins (transaction.version=" + tv + ")", 3, tv, false, r -> {
                transactional(r);
                r.add("C1");
                r.prepare("C2", Map.of("instanceId", "C2", "sessionTimeoutTicks", 30, "slowTicks", 20));
                r.awaitStable(STABLE);
                r.add("C2", Map.of("instanceId", "C2", "sessionTimeoutTicks", 30, "slowTicks", 20));
                r.prepare("C3", Map.of());
                r.awaitStable(STABLE);
                r.await("C2", Run.ev("processed"), "C2 processed a record", 200);
                r.step("arm-slow", "C2", "slow_next", true);
                r.member("C2").h.send(Map.of("op", "arm", "slowNext", true));
                r.await("C2", Run.ev("slow-start"), "SlowStarted(C2)", 100);
                r.add("C3");
                r.awaitQuiet(QUIET);
            }));
            s.add(new Scenario("demo12-epoch-fence" + v, 12, "A restart while C2 is stuck in a slow record: the producer epoch fences the zombie (transaction.version=" + tv + ")", 3, tv, false, r -> {
                transactional(r);
                twoMembers(r, () -> r.armSlowAfterProcessed("C2", "p2.3"));
                r.prepare("C2");
                r.await("C2", Run.ev("slow-start"), "SlowStarted(C2)", 200);
                r.restart("C2");
                r.awaitQuiet(QUIET);
            }));
            if (tv1) s.add(new Scenario("demo12-unstable-offset" + v, 12, "C2 crashes after its TxnOffsetCommit, before EndTxn: OffsetFetch sees UNSTABLE_OFFSET_COMMIT (transaction.version=" + tv + ")", 3, tv, false, r -> {
                transactional(r);
                twoMembers(r, () -> {
                    r.step("arm-crash", "C2", "after", "TxnOffsetCommit");
                    r.member("C2").h.send(Map.of("op", "arm", "crashAfterOffsets", true));
                });
                r.await("C2", Run.ev("crash"), "Crashed(C2)", 200);
                r.awaitQuiet(QUIET);
            }));
        }
        for (String assignor : List.of("uniform", "range")) {
            s.add(new Scenario("kip848-" + assignor, 13, "KIP-848 (group.protocol=consumer, group.remote.assignor=" + assignor
                + "): C1..C4 join one at a time (C4 static), C4 restarts, C2 crashes, C3 closes", 3, (short) 2, false, r -> {
                    r.world.put("protocol", "consumer");
                    r.world.put("remote.assignor", assignor);
                    r.world.remove("assignor");
                    r.sampleGroup = true;
                    List<String> ms = List.of("C1", "C2", "C3", "C4");
                    for (int i = 0; i < 3; i++) {
                        r.add(ms.get(i));
                        r.prepare(ms.get(i + 1), i + 1 == 3 ? Map.of("instanceId", "C4") : Map.of());
                        r.awaitStable(STABLE);
                    }
                    r.add("C4", Map.of("instanceId", "C4"));
                    r.prepare("C4", Map.of("instanceId", "C4")); // its restart, built while the group settles
                    r.awaitStable(STABLE);
                    r.sleepTicks(2);
                    r.restart("C4");
                    r.awaitStable(STABLE);
                    r.sleepTicks(2);
                    r.crashNow("C2");
                    r.awaitStable(STABLE);
                    r.sleepTicks(2);
                    r.close("C3");
                    r.awaitStable(STABLE);
                    r.sleepTicks(3);
                }));
        }
        return s;
    }

    /**
     * C1 reads all six, then C2 joins. In kgviz C2's JoinGroup arrives while C1 is in its first
     * batch; a client's start-up takes longer than that on a busy machine, so C1 is held after its
     * first batch until the group has settled with C2 (it keeps polling, heartbeats and rejoins).
     */
    static void twoMembers(Run r) throws Exception {
        twoMembers(r, Map.of(), Map.of(), () -> { });
    }

    interface Action {
        void run() throws Exception;
    }

    /** then: what kgviz's script does once the group is stable (arming a crash on C2), done as soon as C2 exists, since a real C2 starts reading before the orchestrator sees the group stable. */
    static void twoMembers(Run r, Action then) throws Exception {
        twoMembers(r, Map.of(), Map.of(), then);
    }

    static void twoMembers(Run r, Map<String, Object> c1, Map<String, Object> c2, Action then) throws Exception {
        r.add("C1", c1);
        r.prepare("C2", c2);
        r.awaitStable(STABLE);
        r.hold("C1");
        r.add("C2", c2);
        then.run();
        r.awaitStable(STABLE);
        r.release("C1");
    }

    static void joinFour(Run r, String assignor) throws Exception {
        r.world.put("assignor", assignor);
        List<String> ms = List.of("C1", "C2", "C3", "C4");
        for (int i = 0; i < 4; i++) {
            r.add(ms.get(i));
            if (i < 3) r.prepare(ms.get(i + 1), Map.of());
            r.awaitStable(STABLE);
        }
        r.sleepTicks(4);
    }

    static void transactional(Run r) {
        r.world.put("commit", "transactional");
        r.world.put("producer", "transactional");
        r.world.put("isolation", "read_committed");
    }

    static void rolling(Run r, boolean statik) throws Exception {
        List<String> ms = List.of("C1", "C2", "C3");
        for (int i = 0; i < 3; i++) {
            r.add(ms.get(i), statik ? Map.of("instanceId", ms.get(i)) : Map.of());
            if (i < 2) r.prepare(ms.get(i + 1), statik ? Map.of("instanceId", ms.get(i + 1)) : Map.of());
            r.awaitStable(STABLE);
        }
        for (String m : ms) r.prepare(m); // the three restarts, built while the group works
        for (String m : ms) r.awaitPrepared(m, 120);
        r.sleepTicks(2);
        for (String m : ms) {
            r.close(m);
            r.awaitStable(STABLE);
            r.restart(m);
            r.awaitStable(STABLE);
        }
        r.sleepTicks(2);
    }
}
