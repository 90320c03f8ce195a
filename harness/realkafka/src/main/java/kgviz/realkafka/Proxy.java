package kgviz.realkafka;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy in front of the broker's PROXIED listener, which the broker advertises at this
 * proxy's port, so a client that bootstraps here talks to the broker only through it. It reads
 * Kafka's frames (int32 size, then the request header: api key, version, correlation id) and can
 * lose one response on its way back: {@link #loseResponseTo} drops the answer to the next Produce
 * request whose bytes contain a given value (the page's LoseNextProduceResponse, demo 8). The
 * client then sees no answer within request.timeout.ms and retries the same batch.
 */
final class Proxy implements AutoCloseable {
    private final ServerSocket server;
    private volatile int targetPort;
    private final List<Socket> sockets = new ArrayList<>();
    private final Set<String> armed = ConcurrentHashMap.newKeySet(); // "client.id value"
    final List<String[]> dropped = new ArrayList<>(); // {time, client.id, value}
    private volatile boolean closed;

    Proxy() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        Thread t = new Thread(this::acceptLoop, "kgviz-proxy");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    void target(int port) {
        targetPort = port;
    }

    /** Drops the response to the next Produce request of client clientId that carries this value (e.g. "inv(p2.3)"). */
    void loseResponseTo(String clientId, String value) {
        armed.add(clientId + " " + value);
    }

    /** How many answers were lost so far. */
    int lost() {
        synchronized (dropped) {
            return dropped.size();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket c = server.accept();
                Socket b = new Socket(InetAddress.getByName("127.0.0.1"), targetPort);
                c.setTcpNoDelay(true);
                b.setTcpNoDelay(true);
                synchronized (sockets) {
                    sockets.add(c);
                    sockets.add(b);
                }
                Map<Integer, String> drop = new ConcurrentHashMap<>();
                start(() -> pumpRequests(c, b, drop));
                start(() -> pumpResponses(b, c, drop));
            } catch (IOException e) {
                if (closed) return;
            }
        }
    }

    private static void start(Runnable r) {
        Thread t = new Thread(r, "kgviz-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void pumpRequests(Socket from, Socket to, Map<Integer, String> drop) {
        try (DataInputStream in = new DataInputStream(from.getInputStream()); DataOutputStream out = new DataOutputStream(to.getOutputStream())) {
            while (true) {
                int size = in.readInt();
                byte[] frame = new byte[size];
                in.readFully(frame);
                ByteBuffer bb = ByteBuffer.wrap(frame);
                short apiKey = bb.getShort();
                bb.getShort();
                int correlationId = bb.getInt();
                if (apiKey == 0 && !armed.isEmpty()) {
                    short len = bb.getShort();
                    String clientId = len < 0 ? "" : new String(frame, bb.position(), len, StandardCharsets.UTF_8);
                    String body = new String(frame, StandardCharsets.ISO_8859_1);
                    for (String a : armed) {
                        int sp = a.indexOf(' ');
                        if (a.substring(0, sp).equals(clientId) && body.contains(a.substring(sp + 1)) && armed.remove(a)) {
                            drop.put(correlationId, a);
                        }
                    }
                }
                out.writeInt(size);
                out.write(frame);
                out.flush();
            }
        } catch (IOException e) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void pumpResponses(Socket from, Socket to, Map<Integer, String> drop) {
        try (DataInputStream in = new DataInputStream(from.getInputStream()); DataOutputStream out = new DataOutputStream(to.getOutputStream())) {
            while (true) {
                int size = in.readInt();
                byte[] frame = new byte[size];
                in.readFully(frame);
                int correlationId = ByteBuffer.wrap(frame).getInt();
                String what = drop.remove(correlationId);
                if (what != null) {
                    int sp = what.indexOf(' ');
                    synchronized (dropped) {
                        dropped.add(new String[] {String.valueOf(System.currentTimeMillis()), what.substring(0, sp), what.substring(sp + 1)});
                    }
                    continue; // lost on its way back
                }
                out.writeInt(size);
                out.write(frame);
                out.flush();
            }
        } catch (IOException e) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closed
        }
        synchronized (sockets) {
            sockets.forEach(Proxy::closeQuietly);
        }
    }
}
