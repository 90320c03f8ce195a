package kgviz.realkafka;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The broker's own JVM (started by {@link Broker}): formats the storage with Kafka's StorageTool,
 * then runs {@code kafka.Kafka}. Two guards make sure it never outlives its run: it exits (and
 * deletes its data directory) when its stdin closes, i.e. when the process that started it is
 * gone, however it died; and it exits after a hard deadline.
 *
 * <p>Arguments: {@code <server.properties> <cluster id> <data dir> <max seconds> [feature=level ...]}.
 */
public final class BrokerMain {
    public static void main(String[] args) throws Exception {
        String props = args[0];
        String clusterId = args[1];
        Path dataDir = Path.of(args[2]);
        long maxSeconds = Long.parseLong(args[3]);
        Thread guard = new Thread(() -> {
            try {
                InputStream in = System.in;
                while (in.read() >= 0) {
                    // the parent never writes; EOF means it is gone
                }
            } catch (IOException e) {
                // treat as EOF
            }
            System.err.println("kgviz BrokerMain: parent gone (stdin closed); halting");
            deleteQuietly(dataDir);
            Runtime.getRuntime().halt(2);
        }, "kgviz-parent-guard");
        guard.setDaemon(true);
        guard.start();
        Thread deadline = new Thread(() -> {
            try {
                Thread.sleep(maxSeconds * 1000);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println("kgviz BrokerMain: deadline of " + maxSeconds + " s reached; halting");
            deleteQuietly(dataDir);
            Runtime.getRuntime().halt(3);
        }, "kgviz-deadline");
        deadline.setDaemon(true);
        deadline.start();

        List<String> format = new ArrayList<>(List.of("format", "-t", clusterId, "-c", props));
        for (int i = 4; i < args.length; i++) {
            format.add("--feature");
            format.add(args[i]);
        }
        int rc = kafka.tools.StorageTool.execute(format.toArray(new String[0]), System.out);
        if (rc != 0) {
            System.err.println("kgviz BrokerMain: StorageTool format failed with " + rc);
            Runtime.getRuntime().halt(4);
        }
        System.out.println("kgviz BrokerMain: formatted; starting kafka.Kafka");
        kafka.Kafka.main(new String[] {props});
    }

    static void deleteQuietly(Path dir) {
        if (dir == null || !Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort
                }
            });
        } catch (IOException e) {
            // best effort
        }
    }
}
