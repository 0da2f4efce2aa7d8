import org.apache.flink.streaming.api.functions.source.legacy.SourceFunction;
import org.apache.flink.types.Row;

/**
 * A source that emits nothing and ends after a given time. record.py unions it with a spec's
 * ordered row source (when the spec sets {@code hold_open_ms}) so that the job stays open after
 * the last row and processing-time timers that are due (e.g. a proctime RANGE OVER window's)
 * fire: Flink does not fire pending processing-time timers at the end of a bounded input.
 */
public class HoldOpenSource implements SourceFunction<Row> {
    private final long millis;
    private volatile boolean running = true;

    public HoldOpenSource(long millis) {
        this.millis = millis;
    }

    @Override
    public void run(SourceContext<Row> ctx) throws Exception {
        long end = System.currentTimeMillis() + millis;
        while (running && System.currentTimeMillis() < end) {
            Thread.sleep(10);
        }
    }

    @Override
    public void cancel() {
        running = false;
    }
}
