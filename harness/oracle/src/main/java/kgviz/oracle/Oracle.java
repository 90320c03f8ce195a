package kgviz.oracle;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kafka's own group coordinator (kafka-group-coordinator's GroupCoordinatorShard: GroupMetadataManager
 * and OffsetMetadataManager) as a deterministic oracle for kgviz's simulated broker.
 *
 * <p>JSON lines on stdin, one JSON line on stdout for each. Time moves only when a line says so; a
 * timer fires only when time reaches its deadline (Shard.java). Lines:
 * <ul>
 * <li>{@code {"op":"init", ...}} a fresh coordinator (Shard.init has the fields);</li>
 * <li>{@code {"op":"advance","now":MS}} time moves to MS, the expired timers fire in deadline order;</li>
 * <li>{@code {"op":"req","id":N,"api":"JoinGroup",...}} one request (Shard.request has the fields);</li>
 * <li>{@code {"op":"marker","pid":P,"epoch":E,"commit":true}} a transaction marker on the offsets partition;</li>
 * <li>{@code {"op":"cpu"}} the CPU time this thread has used so far, in ns;</li>
 * <li>{@code {"op":"bench","file":PATH}} replays a stream of these lines from a file, timed (Bench.java).</li>
 * </ul>
 * The answer of each line lists the responses completed while it ran ({@code "resp"}: the request
 * id and the response; a JoinGroup or SyncGroup may complete later than its request), the timers that
 * fired ({@code "fired"}: key and the members they removed) and the count of records written.
 */
public final class Oracle {
    private Oracle() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("version")) {
            System.out.println(Compat.version());
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Shard shard = null;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            StringBuilder b = new StringBuilder(256);
            try {
                @SuppressWarnings("unchecked")
                Map<String, Object> m = (Map<String, Object>) Json.parse(line);
                String op = (String) m.get("op");
                switch (op) {
                    case "init":
                        shard = new Shard(m);
                        b.append("{\"ok\":true}");
                        break;
                    case "cpu":
                        b.append("{\"cpu_ns\":").append(mx.getCurrentThreadCpuTime()).append('}');
                        break;
                    case "bench":
                        Bench.replay(m, b);
                        break;
                    case "flush":
                        b.append("{\"ok\":true}");
                        break;
                    default:
                        if (shard == null) throw new IllegalStateException("no init line before " + op);
                        shard.step(op, m, b);
                }
            } catch (Throwable t) {
                b.setLength(0);
                b.append("{\"fatal\":").append(Json.quote(t.toString() + at(t))).append('}');
            }
            out.write(b.toString());
            out.write('\n');
            // a caller that sends one line and waits for its answer (not the usual pipelined stream)
            if (!in.ready()) out.flush();
        }
        out.flush();
    }

    private static String at(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < Math.min(6, st.length); k++) b.append(" at ").append(st[k]);
        return b.toString();
    }

    static List<Object> list(Object o) {
        if (o == null) return new ArrayList<>();
        @SuppressWarnings("unchecked")
        List<Object> l = (List<Object>) o;
        return l;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> obj(Object o) {
        return o == null ? new LinkedHashMap<>() : (Map<String, Object>) o;
    }

    static String str(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v == null ? "" : (String) v;
    }

    static long num(Map<String, Object> m, String k, long def) {
        Object v = m.get(k);
        return v == null ? def : ((Number) v).longValue();
    }

    static byte[] bytes(ByteBuffer bb) {
        byte[] a = new byte[bb.remaining()];
        bb.duplicate().get(a);
        return a;
    }

    static final Map<String, Integer> EMPTY = new HashMap<>();
}
