package kgviz.realkafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * kgviz's real-broker runner.
 *
 * <pre>
 *   record --out DIR [--tick MS] [--parallel N] [--only REGEX] [--runs N] [--first-run K] [--max-seconds S] [--work DIR]
 *       starts a Kafka 4.1.1 broker per transaction.version the scenarios need (2, and 1 for the
 *       "-tv1" variants), runs the scenarios, several at a time on one broker (each with its own
 *       topics, group and transactional ids), and writes one JSON file per scenario run to DIR.
 *       --first-run K numbers the runs from K (more runs of a scenario beside the committed ones).
 *       Everything it started (brokers, member JVMs) is stopped before it returns, also on
 *       failure, on Ctrl-C and after --max-seconds; exit status 0 only if every run completed.
 *   broker [--tick MS] [--seconds S]
 *       starts one broker, prints its bootstrap address and waits (Ctrl-C or S seconds).
 *   list
 *       the scenario ids.
 * </pre>
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("agent")) {
            Agent.main(args);
            return;
        }
        String mode = args.length == 0 ? "help" : args[0];
        Map<String, String> o = new ConcurrentHashMap<>();
        for (int i = 1; i + 1 < args.length; i += 2) o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        long tick = Long.parseLong(o.getOrDefault("tick", "500"));
        switch (mode) {
            case "list" -> Scenarios.all().forEach(s -> System.out.println(s.id() + "\t" + s.runs() + " run(s)\t" + s.title()));
            case "broker" -> {
                long secs = Long.parseLong(o.getOrDefault("seconds", "3600"));
                try (Broker b = Broker.start("manual", tick, 0, 0, (short) 2, secs + 60, 120_000)) {
                    System.out.println("broker ready: bootstrap " + b.bootstrap + " (pid " + b.pid() + ", data " + b.dir + ")");
                    Thread.sleep(secs * 1000);
                }
            }
            case "record" -> System.exit(record(o, tick));
            default -> {
                System.err.println("usage: record --out DIR [--tick MS] [--parallel N] [--only REGEX] [--runs N] [--first-run K] [--max-seconds S] | broker | list");
                System.exit(2);
            }
        }
    }

    static int record(Map<String, String> o, long tick) throws Exception {
        long started = System.currentTimeMillis();
        Path out = Path.of(o.getOrDefault("out", "realkafka/testdata"));
        int parallel = Integer.parseInt(o.getOrDefault("parallel", "4"));
        long maxSeconds = Long.parseLong(o.getOrDefault("max-seconds", "900"));
        Pattern only = Pattern.compile(o.getOrDefault("only", ".*"));
        int runsOverride = Integer.parseInt(o.getOrDefault("runs", "0"));
        int firstRun = Integer.parseInt(o.getOrDefault("first-run", "1"));
        List<Scenarios.Scenario> chosen = new ArrayList<>();
        for (Scenarios.Scenario s : Scenarios.all()) if (only.matcher(s.id()).find()) chosen.add(s);
        if (chosen.isEmpty()) {
            System.err.println("realkafka: no scenario matches " + only);
            return 2;
        }
        Files.createDirectories(out);
        // the member JVMs' logs and class archive; --work lets a caller (the Go test) own the directory
        Path work = o.containsKey("work") ? Files.createDirectories(Path.of(o.get("work"))) : Files.createTempDirectory("kgviz-realkafka-");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> BrokerMain.deleteQuietly(work), "realkafka-workdir-delete"));
        // a hard deadline for the whole run: the shutdown hooks stop the brokers and the member JVMs
        Thread deadline = new Thread(() -> {
            try {
                Thread.sleep(maxSeconds * 1000);
                System.err.println("realkafka: --max-seconds " + maxSeconds + " reached; stopping everything");
                System.exit(3);
            } catch (InterruptedException e) {
                // done in time
            }
        }, "realkafka-deadline");
        deadline.setDaemon(true);
        deadline.start();

        boolean needTv1 = chosen.stream().anyMatch(s -> s.transactionVersion() == 1);
        boolean needTv2 = chosen.stream().anyMatch(s -> s.transactionVersion() == 2);
        boolean needProxy = chosen.stream().anyMatch(Scenarios.Scenario::proxy);
        Proxy proxy = needProxy ? new Proxy() : null;
        Broker[] brokers = new Broker[3];
        ExecutorService bs = Executors.newFixedThreadPool(2);
        Future<Broker> f2 = needTv2 ? bs.submit(() -> Broker.start("tv2", tick, proxy == null ? 0 : proxy.port(), 0, (short) 2, maxSeconds + 60, 180_000)) : null;
        Future<Broker> f1 = needTv1 ? bs.submit(() -> Broker.start("tv1", tick, 0, 0, (short) 1, maxSeconds + 60, 180_000)) : null;
        int failures = 0;
        List<Admin> admins = new ArrayList<>();
        AgentPool pool = null;
        try {
            if (f2 != null) brokers[2] = f2.get();
            if (f1 != null) brokers[1] = f1.get();
            bs.shutdown();
            // member JVMs only once the brokers are up: both compete for the same two cores
            pool = new AgentPool(work.resolve("agents"), 2);
            AgentPool p0 = pool;
            Runtime.getRuntime().addShutdownHook(new Thread(p0::close, "realkafka-agents-stop"));
            pool.warm(Math.min(8, parallel * 2));
            if (proxy != null) proxy.target(brokers[2].proxiedPort);
            System.out.printf("realkafka: broker(s) ready in %.1f s (tick %d ms, %d scenario(s), %d at a time)%n",
                (System.currentTimeMillis() - started) / 1000.0, tick, chosen.size(), parallel);
            Admin[] admin = new Admin[3];
            BrokerLogs[] logs = new BrokerLogs[3];
            for (int v = 1; v <= 2; v++) {
                if (brokers[v] == null) continue;
                Properties ap = new Properties();
                ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers[v].bootstrap);
                admin[v] = Admin.create(ap);
                admins.add(admin[v]);
                logs[v] = new BrokerLogs(brokers[v].requestLog(), brokers[v].coordinatorLog());
            }
            long w = System.currentTimeMillis();
            for (int v = 1; v <= 2; v++) if (brokers[v] != null) WarmUp.run(brokers[v], admin[v]);
            System.out.printf("realkafka: broker warm-up (a transaction, a classic and a KIP-848 group) in %.1f s%n", (System.currentTimeMillis() - w) / 1000.0);
            ExecutorService ex = Executors.newFixedThreadPool(parallel);
            List<Future<String>> results = new ArrayList<>();
            AtomicInteger tags = new AtomicInteger();
            // longest first, so the slow ones do not end up alone at the end
            List<Object[]> jobs = new ArrayList<>();
            for (Scenarios.Scenario s : chosen) {
                int runs = runsOverride > 0 ? runsOverride : s.runs();
                for (int i = firstRun; i < firstRun + runs; i++) jobs.add(new Object[] {s, i});
            }
            jobs.sort((a, b) -> Integer.compare(weight((Scenarios.Scenario) b[0]), weight((Scenarios.Scenario) a[0])));
            for (Object[] j : jobs) {
                Scenarios.Scenario s = (Scenarios.Scenario) j[0];
                int runIndex = (Integer) j[1];
                int v = s.transactionVersion();
                results.add(ex.submit(() -> {
                    // a run that did not complete (a machine too busy for the tick) is run again, at most twice more
                    String first = null;
                    for (int attempt = 1; ; attempt++) {
                        String tag = String.format("s%02d", tags.incrementAndGet());
                        long t = System.currentTimeMillis();
                        // an Admin client per run: the stable/quiet checks and the samplers of concurrent runs
                        // must not queue behind each other in one client
                        Properties rp = new Properties();
                        rp.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers[v].bootstrap);
                        rp.put(AdminClientConfig.CLIENT_ID_CONFIG, "admin-" + tag);
                        Admin runAdmin = Admin.create(rp);
                        Run r = new Run(s.id(), runIndex, tag, s.demo(), s.title(), brokers[v], runAdmin, p0, s.proxy() ? proxy : null, tick);
                        try {
                            for (int i = 0; i < s.agents(); i++) r.reserved.add(p0.take(300_000));
                            r.createTopics(8);
                            r.start();
                            s.body().run(r);
                        } catch (Exception e) {
                            r.fail("scenario failed: " + e);
                            e.printStackTrace();
                        }
                        r.validate(logs[v]);
                        r.stop();
                        if (r.failure != null && attempt < 3) {
                            runAdmin.close();
                            if (first == null) first = r.failure;
                            System.out.println("realkafka: " + s.id() + " run " + runIndex + " did not complete (" + r.failure + "); attempt " + (attempt + 1) + " of 3");
                            continue;
                        }
                        Map<String, Object> rec;
                        try {
                            rec = Recorder.collect(r, logs[v]);
                        } finally {
                            runAdmin.close();
                        }
                        if (first != null) rec.put("retried_after", first);
                        final int attempts = attempt;
                        String file = s.id() + "-" + runIndex + ".json";
                        Recorder.write(rec, out.resolve(file));
                        return String.format("%-34s run %d  %5.1f s  %s%s", s.id(), runIndex, (System.currentTimeMillis() - t) / 1000.0,
                            r.failure == null ? "ok" : "FAILED: " + r.failure, attempts == 1 ? "" : " (attempt " + attempts + ")");
                    }
                }));
            }
            for (Future<String> f : results) {
                try {
                    String line = f.get();
                    System.out.println("realkafka: " + line);
                    if (line.contains("FAILED")) failures++;
                } catch (Exception e) {
                    failures++;
                    System.out.println("realkafka: a run failed: " + e);
                }
            }
            ex.shutdown();
        } finally {
            for (Admin a : admins) a.close();
            if (pool != null) pool.close();
            for (Broker b : brokers) if (b != null) b.close();
            if (proxy != null) proxy.close();
            BrokerMain.deleteQuietly(work);
            deadline.interrupt();
        }
        System.out.printf("realkafka: %d run(s) in %.1f s, %d failed; recordings in %s%n", 0 + countFiles(out), (System.currentTimeMillis() - started) / 1000.0, failures, out);
        return failures == 0 ? 0 : 1;
    }

    private static int countFiles(Path out) {
        try (var s = Files.list(out)) {
            return (int) s.filter(p -> p.toString().endsWith(".json")).count();
        } catch (Exception e) {
            return 0;
        }
    }

    /** A rough length, to start the long scenarios first. */
    private static int weight(Scenarios.Scenario s) {
        if (s.id().startsWith("kip848")) return 100;
        if (s.demo() >= 10) return 90;
        if (s.demo() >= 4) return 60;
        return 30;
    }
}
