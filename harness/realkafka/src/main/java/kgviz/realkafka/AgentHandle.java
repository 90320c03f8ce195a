package kgviz.realkafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** The orchestrator's side of one {@link Agent} JVM: its commands and the events it reported. */
final class AgentHandle {
    private static final ObjectMapper M = new ObjectMapper();
    final Process process;
    private final BufferedWriter in;
    private final List<JsonNode> events = new ArrayList<>();
    private final Object lock = new Object();
    private volatile boolean ready, ended;
    final Path log;

    AgentHandle(Process p, Path log) {
        this.process = p;
        this.log = log;
        this.in = new BufferedWriter(new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8));
        Thread r = new Thread(this::readEvents, "agent-events-" + p.pid());
        r.setDaemon(true);
        r.start();
    }

    private void readEvents() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                JsonNode n;
                try {
                    n = M.readTree(line);
                } catch (IOException e) {
                    continue;
                }
                synchronized (lock) {
                    if (n.path("ev").asText().equals("ready")) ready = true;
                    else events.add(n);
                    lock.notifyAll();
                }
            }
        } catch (IOException e) {
            // process gone
        }
        synchronized (lock) {
            ended = true;
            lock.notifyAll();
        }
    }

    boolean awaitReady(long ms) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        synchronized (lock) {
            while (!ready && !ended && System.currentTimeMillis() < end) lock.wait(100);
            return ready;
        }
    }

    void send(Map<String, Object> cmd) {
        try {
            synchronized (in) {
                in.write(M.writeValueAsString(cmd));
                in.newLine();
                in.flush();
            }
        } catch (IOException e) {
            // the agent is gone (crashed); commands to a dead process are no-ops
        }
    }

    List<JsonNode> events() {
        synchronized (lock) {
            return new ArrayList<>(events);
        }
    }

    /** Waits for an event matching p (from index from on); null on timeout or if the process ended first. */
    JsonNode await(int from, Predicate<JsonNode> p, long ms) throws InterruptedException {
        long end = System.currentTimeMillis() + ms;
        synchronized (lock) {
            while (true) {
                for (int i = from; i < events.size(); i++) {
                    if (p.test(events.get(i))) return events.get(i);
                }
                long left = end - System.currentTimeMillis();
                if (left <= 0 || ended) return null;
                lock.wait(Math.min(left, 100));
            }
        }
    }

    int size() {
        synchronized (lock) {
            return events.size();
        }
    }

    boolean alive() {
        return process.isAlive() && !ended;
    }

    /** kill -9 from outside (the end of a run). */
    void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            in.close();
        } catch (IOException e) {
            // gone
        }
    }
}
