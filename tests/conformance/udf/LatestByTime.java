import org.apache.flink.table.functions.AggregateFunction;

/**
 * The seed-004 article's {@code LatestTimeUdf}: the status with the largest time seen so far
 * (a later row with an equal or smaller time is ignored). No retract method, as in the seed:
 * the inner aggregation reads an append-only source. A NULL time throws on unboxing, as the
 * seed's {@code Long time} does.
 */
public class LatestByTime extends AggregateFunction<Integer, LatestByTime.Acc> {
    /** The seed's TimeAndStatus. */
    public static class Acc {
        public Integer status;
        public long times;
    }

    @Override
    public Acc createAccumulator() {
        return new Acc();
    }

    public void accumulate(Acc acc, Integer status, Long time) {
        if (time > acc.times) {
            acc.status = status;
            acc.times = time;
        }
    }

    @Override
    public Integer getValue(Acc acc) {
        return acc.status;
    }
}
