// Oracle for the heap state backend's background TTL cleanup (TtlIncrementalCleanup) of
// Apache Flink 2.3.0 (PyPI apache-flink==2.3.0 jars). Reads an ops file, replays it against one
// HeapKeyedStateBackend<RowData> with a clock it owns, prints reads and raw entry counts.
// See README.md for the ops format and how this mirrors a SQL job on the `hashmap` backend.

import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.fs.CloseableRegistry;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.query.KvStateRegistry;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.LocalRecoveryConfig;
import org.apache.flink.runtime.state.UncompressedStreamCompressionDecorator;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackendBuilder;
import org.apache.flink.runtime.state.heap.HeapPriorityQueueSetFactory;
import org.apache.flink.runtime.state.heap.StateTable;
import org.apache.flink.runtime.state.metrics.LatencyTrackingStateConfig;
import org.apache.flink.runtime.state.metrics.SizeTrackingStateConfig;
import org.apache.flink.runtime.state.ttl.TtlTimeProvider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.typeutils.BinaryRowDataSerializer;
import org.apache.flink.table.runtime.util.StateConfigUtil;
import org.apache.flink.util.MathUtils;

public final class TtlCleanupOracle {
    static final int MAX_PARALLELISM = 128;

    static final class BadOp extends Exception {
        BadOp(String msg) {
            super(msg);
        }
    }

    // The TTL clock: TtlTimeProvider is a functional interface; `time <ms>` sets it.
    private long now = 0;

    private HeapKeyedStateBackend<RowData> backend;
    private ValueState<Long> v;
    private MapState<Long, Long> m;
    private ListState<Long> l;
    private StateTable<?, ?, ?> vTable, mTable, lTable;
    private RowData currentKey;
    private boolean print = true;
    private final PrintStream out;

    TtlCleanupOracle(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: TtlCleanupOracle OPS_FILE  (writes the expected output to stdout)");
            System.exit(2);
        }
        List<String> lines = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
        PrintStream out =
                new PrintStream(new java.io.BufferedOutputStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), 1 << 16), false, "UTF-8");
        TtlCleanupOracle o = new TtlCleanupOracle(out);
        int lineNo = 0;
        try {
            for (String line : lines) {
                lineNo++;
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                o.run(lineNo, line);
            }
            if (o.backend == null) {
                throw new BadOp("no ops: the first op must be `ttl <ms>`");
            }
        } catch (BadOp e) {
            out.flush();
            System.err.println(args[0] + ":" + lineNo + ": " + e.getMessage());
            System.exit(2);
        } catch (Exception e) {
            out.flush();
            System.err.println(args[0] + ":" + lineNo + ": " + e);
            e.printStackTrace();
            System.exit(2);
        }
        out.flush();
        o.backend.dispose();
        System.exit(0);
    }

    private static long parseLong(String s, String what) throws BadOp {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new BadOp(what + ": not an integer: '" + s + "'");
        }
    }

    private static void arity(String[] p, int n, String line) throws BadOp {
        if (p.length != n) {
            throw new BadOp("expected " + (n - 1) + " argument(s): '" + line + "'");
        }
    }

    private void emit(int lineNo, String text) {
        out.print(lineNo);
        out.print(' ');
        out.println(text);
    }

    private void run(int lineNo, String line) throws Exception {
        String[] p = line.split(" ");
        String op = p[0];
        if (backend == null && !op.equals("ttl")) {
            throw new BadOp("the first op must be `ttl <ms>`, got '" + line + "'");
        }
        if (currentKey == null && (op.startsWith("v.") || op.startsWith("m.") || op.startsWith("l.") || op.equals("hash"))) {
            throw new BadOp("'" + op + "' before any `key` op");
        }
        switch (op) {
            case "ttl": {
                if (backend != null) {
                    throw new BadOp("`ttl` given twice");
                }
                arity(p, 2, line);
                long ttl = parseLong(p[1], "ttl");
                if (ttl <= 0) {
                    throw new BadOp("ttl must be > 0");
                }
                create(ttl);
                return;
            }
            case "key": {
                if (p.length < 3) {
                    throw new BadOp("expected `key string <text>` or `key bigint <n>`: '" + line + "'");
                }
                BinaryRowData row = new BinaryRowData(1);
                BinaryRowWriter w = new BinaryRowWriter(row);
                if (p[1].equals("string")) {
                    w.writeString(0, StringData.fromString(line.substring("key string ".length())));
                } else if (p[1].equals("bigint")) {
                    arity(p, 3, line);
                    w.writeLong(0, parseLong(p[2], "key bigint"));
                } else {
                    throw new BadOp("unknown key type '" + p[1] + "' (string or bigint)");
                }
                w.complete();
                currentKey = row;
                backend.setCurrentKey(row);
                return;
            }
            case "time":
                arity(p, 2, line);
                now = parseLong(p[1], "time");
                return;
            case "print":
                arity(p, 2, line);
                if (p[1].equals("on")) {
                    print = true;
                } else if (p[1].equals("off")) {
                    print = false;
                } else {
                    throw new BadOp("print on|off, got '" + p[1] + "'");
                }
                return;
            case "v.value": {
                arity(p, 1, line);
                Long x = v.value();
                if (print) emit(lineNo, "v.value=" + x);
                return;
            }
            case "v.update":
                arity(p, 2, line);
                v.update(parseLong(p[1], "v.update"));
                return;
            case "v.clear":
                arity(p, 1, line);
                v.clear();
                return;
            case "m.get": {
                arity(p, 2, line);
                Long x = m.get(parseLong(p[1], "m.get"));
                if (print) emit(lineNo, "m.get=" + x);
                return;
            }
            case "m.put":
                arity(p, 3, line);
                m.put(parseLong(p[1], "m.put key"), parseLong(p[2], "m.put value"));
                return;
            case "m.remove":
                arity(p, 2, line);
                m.remove(parseLong(p[1], "m.remove"));
                return;
            case "m.contains": {
                arity(p, 2, line);
                boolean x = m.contains(parseLong(p[1], "m.contains"));
                if (print) emit(lineNo, "m.contains=" + x);
                return;
            }
            case "m.entries": {
                arity(p, 1, line);
                Iterable<Map.Entry<Long, Long>> it = m.entries();
                List<long[]> seen = new ArrayList<>();
                if (it != null) {
                    for (Map.Entry<Long, Long> e : it) {
                        seen.add(new long[] {e.getKey(), e.getValue()});
                    }
                }
                if (print) {
                    seen.sort((a, b) -> Long.compare(a[0], b[0]));
                    StringBuilder sb = new StringBuilder("m.entries=");
                    for (int i = 0; i < seen.size(); i++) {
                        if (i > 0) sb.append(',');
                        sb.append(seen.get(i)[0]).append(':').append(seen.get(i)[1]);
                    }
                    emit(lineNo, sb.toString());
                }
                return;
            }
            case "m.isEmpty": {
                arity(p, 1, line);
                boolean x = m.isEmpty();
                if (print) emit(lineNo, "m.isEmpty=" + x);
                return;
            }
            case "m.clear":
                arity(p, 1, line);
                m.clear();
                return;
            case "l.get": {
                arity(p, 1, line);
                Iterable<Long> it = l.get();
                StringBuilder sb = new StringBuilder("l.get=");
                boolean first = true;
                if (it != null) {
                    for (Long x : it) {
                        if (!first) sb.append(',');
                        sb.append(x);
                        first = false;
                    }
                }
                if (print) emit(lineNo, sb.toString());
                return;
            }
            case "l.add":
                arity(p, 2, line);
                l.add(parseLong(p[1], "l.add"));
                return;
            case "l.update": {
                List<Long> xs = new ArrayList<>();
                for (int i = 1; i < p.length; i++) {
                    xs.add(parseLong(p[i], "l.update"));
                }
                l.update(xs);
                return;
            }
            case "l.clear":
                arity(p, 1, line);
                l.clear();
                return;
            case "count": {
                arity(p, 1, line);
                long[] vc = rawCount(vTable, 'v');
                long[] mc = rawCount(mTable, 'm');
                long[] lc = rawCount(lTable, 'l');
                emit(lineNo, "v=" + vc[0] + " m=" + mc[0] + "/" + mc[1] + " l=" + lc[0] + "/" + lc[1]);
                return;
            }
            case "hash": {
                arity(p, 1, line);
                int code = currentKey.hashCode();
                emit(lineNo,
                        "kg=" + KeyGroupRangeAssignment.assignToKeyGroup(currentKey, MAX_PARALLELISM)
                                + " h=" + MathUtils.bitMix(code ^ VoidNamespace.INSTANCE.hashCode())
                                + " code=" + code);
                return;
            }
            default:
                throw new BadOp("unknown op '" + op + "'");
        }
    }

    private void create(long ttlMs) throws Exception {
        // The same builder arguments as HashMapStateBackend.createKeyedStateBackend (2.3 bytecode),
        // with our own TtlTimeProvider, one task owning key groups 0..127 of 128, no restore.
        TtlTimeProvider clock = () -> now;
        KeyGroupRange range = KeyGroupRange.of(0, MAX_PARALLELISM - 1);
        ExecutionConfig ec = new ExecutionConfig();
        backend = new HeapKeyedStateBackendBuilder<RowData>(
                        new KvStateRegistry().createTaskRegistry(new JobID(), new JobVertexID()),
                        keySerializer(),
                        TtlCleanupOracle.class.getClassLoader(),
                        MAX_PARALLELISM,
                        range,
                        ec,
                        clock,
                        LatencyTrackingStateConfig.disabled(),
                        SizeTrackingStateConfig.disabled(),
                        Collections.emptyList(),
                        UncompressedStreamCompressionDecorator.INSTANCE,
                        LocalRecoveryConfig.BACKUP_AND_RECOVERY_DISABLED,
                        new HeapPriorityQueueSetFactory(range, MAX_PARALLELISM, 128),
                        true,
                        new CloseableRegistry())
                .build();

        StateTtlConfig ttl = StateConfigUtil.createTtlConfig(ttlMs);
        ValueStateDescriptor<Long> vd = new ValueStateDescriptor<>("v", LongSerializer.INSTANCE);
        vd.enableTimeToLive(ttl);
        MapStateDescriptor<Long, Long> md = new MapStateDescriptor<>("m", LongSerializer.INSTANCE, LongSerializer.INSTANCE);
        md.enableTimeToLive(ttl);
        ListStateDescriptor<Long> ld = new ListStateDescriptor<>("l", LongSerializer.INSTANCE);
        ld.enableTimeToLive(ttl);
        // What DefaultKeyedStateStore.getPartitionedState does for a SQL operator's state.
        v = backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, vd);
        m = backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, md);
        l = backend.getPartitionedState(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, ld);
        vTable = heapTable(v, "TtlValueState");
        mTable = heapTable(m, "TtlMapState");
        lTable = heapTable(l, "TtlListState");
    }

    /**
     * The key serializer: BinaryRowDataSerializer(1), whatever the one field's type (the heap
     * backend only uses it for snapshots and restore, never on the paths replayed here).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static TypeSerializer<RowData> keySerializer() {
        return (TypeSerializer) new BinaryRowDataSerializer(1);
    }

    private static Field field(Class<?> c, String name) throws NoSuchFieldException {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            try {
                Field f = k.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(c.getName() + "." + name);
    }

    /** AbstractTtlDecorator.original (the heap state) → AbstractHeapState.stateTable. */
    private static StateTable<?, ?, ?> heapTable(Object ttlState, String expected) throws Exception {
        if (!ttlState.getClass().getSimpleName().equals(expected)) {
            throw new IllegalStateException("expected a " + expected + ", got " + ttlState.getClass().getName());
        }
        Object original = field(ttlState.getClass(), "original").get(ttlState);
        Object table = field(original.getClass(), "stateTable").get(original);
        if (!table.getClass().getSimpleName().equals("CopyOnWriteStateTable")) {
            throw new IllegalStateException("expected a CopyOnWriteStateTable, got " + table.getClass().getName());
        }
        return (StateTable<?, ?, ?>) table;
    }

    /**
     * {entries, user entries} of a heap StateTable, read without any call into the state: the
     * primary and incremental-rehash tables of every key group's CopyOnWriteStateMap are walked
     * through the entries' `next` links. Checked against StateTable.size().
     */
    private static long[] rawCount(StateTable<?, ?, ?> table, char kind) throws Exception {
        Object[] maps = (Object[]) field(StateTable.class, "keyGroupedStateMaps").get(table);
        long entries = 0;
        long inner = 0;
        Field primary = null, rehash = null, next = null, state = null;
        for (Object map : maps) {
            if (primary == null) {
                primary = field(map.getClass(), "primaryTable");
                rehash = field(map.getClass(), "incrementalRehashTable");
            }
            for (Field tf : new Field[] {primary, rehash}) {
                Object[] tab = (Object[]) tf.get(map);
                for (Object e : tab) {
                    for (; e != null; e = next.get(e)) {
                        if (next == null) {
                            next = field(e.getClass(), "next");
                            state = field(e.getClass(), "state");
                        }
                        entries++;
                        Object s = state.get(e);
                        if (kind == 'm') {
                            inner += ((Map<?, ?>) s).size();
                        } else if (kind == 'l') {
                            inner += ((List<?>) s).size();
                        }
                    }
                }
            }
        }
        if (entries != table.size()) {
            throw new IllegalStateException("walked " + entries + " entries, StateTable.size() = " + table.size());
        }
        return new long[] {entries, inner};
    }
}
