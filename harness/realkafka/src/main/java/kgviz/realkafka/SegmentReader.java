package kgviz.realkafka;

import java.io.File;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a partition's segment file batch by batch with Kafka's own FileRecords, whichever 4.x
 * it is: Kafka 4.1.1 has the record classes in org.apache.kafka.common.record, 4.4.0 in
 * org.apache.kafka.common.record.internal. The methods are called through the public
 * interfaces (RecordBatch, Record), so the harness builds against either version.
 */
final class SegmentReader implements AutoCloseable {
    private static final String PKG = packageOf();
    private static final Class<?> FILE_RECORDS = load("FileRecords");
    private static final Class<?> RECORD_BATCH = load("RecordBatch");
    private static final Class<?> RECORD = load("Record");
    private static final Class<?> CONTROL_TYPE = load("ControlRecordType");

    private final Object fileRecords;

    private SegmentReader(Object fileRecords) {
        this.fileRecords = fileRecords;
    }

    static SegmentReader open(File f) throws Exception {
        return new SegmentReader(FILE_RECORDS.getMethod("open", File.class, boolean.class).invoke(null, f, false));
    }

    List<Batch> batches() throws Exception {
        List<Batch> out = new ArrayList<>();
        for (Object b : (Iterable<?>) FILE_RECORDS.getMethod("batches").invoke(fileRecords)) out.add(new Batch(b));
        return out;
    }

    @Override
    public void close() throws Exception {
        FILE_RECORDS.getMethod("close").invoke(fileRecords);
    }

    static final class Batch {
        private final Object b;

        Batch(Object b) {
            this.b = b;
        }

        long producerId() throws Exception { return (long) call(RECORD_BATCH, b, "producerId"); }
        short producerEpoch() throws Exception { return (short) call(RECORD_BATCH, b, "producerEpoch"); }
        int baseSequence() throws Exception { return (int) call(RECORD_BATCH, b, "baseSequence"); }
        long baseOffset() throws Exception { return (long) call(RECORD_BATCH, b, "baseOffset"); }
        boolean isControlBatch() throws Exception { return (boolean) call(RECORD_BATCH, b, "isControlBatch"); }
        boolean isTransactional() throws Exception { return (boolean) call(RECORD_BATCH, b, "isTransactional"); }

        List<Rec> records() {
            List<Rec> out = new ArrayList<>();
            for (Object r : (Iterable<?>) b) out.add(new Rec(r));
            return out;
        }
    }

    static final class Rec {
        private final Object r;

        Rec(Object r) {
            this.r = r;
        }

        long offset() throws Exception { return (long) call(RECORD, r, "offset"); }
        ByteBuffer value() throws Exception { return (ByteBuffer) call(RECORD, r, "value"); }

        /** COMMIT or ABORT (ControlRecordType.parse of the key). */
        String controlType() throws Exception {
            ByteBuffer key = (ByteBuffer) call(RECORD, r, "key");
            return ((Enum<?>) CONTROL_TYPE.getMethod("parse", ByteBuffer.class).invoke(null, key)).name();
        }
    }

    private static Object call(Class<?> iface, Object o, String name) throws Exception {
        Method m = iface.getMethod(name);
        return m.invoke(o);
    }

    private static String packageOf() {
        for (String p : new String[] {"org.apache.kafka.common.record.internal.", "org.apache.kafka.common.record."}) {
            try {
                Class.forName(p + "FileRecords");
                return p;
            } catch (ClassNotFoundException e) {
                // the other version's package
            }
        }
        throw new IllegalStateException("no FileRecords in this Kafka's clients");
    }

    private static Class<?> load(String simple) {
        try {
            return Class.forName(PKG + simple);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
