package kgviz.oracle;

import java.io.BufferedReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The performance anchor (issue 22 item 5): replays a request stream that package oracle wrote to a
 * file (the same lines the oracle reads on stdin: an init line, then advance/req/marker lines) into
 * a fresh {@link Shard}, and times it.
 *
 * <p>{@code {"op":"bench","file":PATH}} answers {@code {"lines":N,"step_ns":..,"parse_ns":..,
 * "process_ns":..,"gc_ms":..}}:
 * <ul>
 * <li>{@code step_ns}: this thread's CPU time (ThreadMXBean) in {@code Shard.step} — Kafka's
 * GroupCoordinatorShard answering, with the harness's translation of each line into Kafka's request
 * objects and of the response into JSON (built, then dropped: nothing is written);</li>
 * <li>{@code parse_ns}: this thread's CPU time reading the file and decoding the JSON lines (the
 * lines are decoded in chunks of {@value #CHUNK}, apart from the steps, so the two are timed
 * apart);</li>
 * <li>{@code process_ns}: the whole JVM's CPU time over the replay (OperatingSystemMXBean: this
 * thread, the garbage collector, the JIT compiler threads);</li>
 * <li>{@code gc_ms}: the collectors' accumulated collection time over the replay (wall ms).</li>
 * </ul>
 * The JIT is warmed by the caller (package oracle streams the same requests through this JVM first
 * to compare the answers with kgviz's).
 */
final class Bench {
    private Bench() {}

    static final int CHUNK = 4096;

    static void replay(Map<String, Object> m, StringBuilder out) throws Exception {
        Path file = Path.of(Oracle.str(m, "file"));
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long gc0 = gcMillis();
        long proc0 = os.getProcessCpuTime();
        long parse = 0, step = 0, lines = 0;
        Shard shard = null;
        StringBuilder sink = new StringBuilder(256);
        List<Map<String, Object>> chunk = new ArrayList<>(CHUNK);
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            boolean eof = false;
            while (!eof) {
                long t0 = mx.getCurrentThreadCpuTime();
                chunk.clear();
                while (chunk.size() < CHUNK) {
                    String line = in.readLine();
                    if (line == null) {
                        eof = true;
                        break;
                    }
                    if (line.isBlank()) continue;
                    @SuppressWarnings("unchecked")
                    Map<String, Object> l = (Map<String, Object>) Json.parse(line);
                    chunk.add(l);
                }
                long t1 = mx.getCurrentThreadCpuTime();
                for (Map<String, Object> l : chunk) {
                    String op = Oracle.str(l, "op");
                    if (op.equals("init")) {
                        shard = new Shard(l);
                    } else {
                        if (shard == null) throw new IllegalStateException(file + ": no init line before " + op);
                        shard.step(op, l, sink);
                        sink.setLength(0);
                    }
                }
                long t2 = mx.getCurrentThreadCpuTime();
                parse += t1 - t0;
                step += t2 - t1;
                lines += chunk.size();
            }
        }
        long proc = os.getProcessCpuTime() - proc0;
        out.append("{\"lines\":").append(lines).append(",\"step_ns\":").append(step).append(",\"parse_ns\":").append(parse)
            .append(",\"process_ns\":").append(proc).append(",\"gc_ms\":").append(gcMillis() - gc0).append('}');
    }

    private static long gcMillis() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) ms += Math.max(0, gc.getCollectionTime());
        return ms;
    }
}
