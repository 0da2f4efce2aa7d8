// Prints the reserved words of Flink's SQL parser (src/engine/planner/reserved_words.rs):
//   L=$(ls -d /path/to/venv/lib/python3*/site-packages/pyflink/lib)
//   unzip -o $L/flink-table-planner-loader-2.3.0.jar flink-table-planner.jar
//   CP="flink-table-planner.jar:$L/flink-table-api-java-uber-2.3.0.jar:$L/flink-dist-2.3.0.jar"
//   javac -cp "$CP" ReservedWords.java && java -cp "$CP:." ReservedWords
import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import java.io.StringReader;
public class ReservedWords {
  public static void main(String[] a) throws Exception {
    FlinkSqlParserImpl p = new FlinkSqlParserImpl(new StringReader(""));
    org.apache.calcite.sql.parser.SqlAbstractParserImpl.Metadata m = p.getMetadata();
    java.util.List<String> out = new java.util.ArrayList<>();
    for (String t : m.getTokens()) if (m.isReservedWord(t)) out.add(t);
    java.util.Collections.sort(out);
    for (String t : out) System.out.println(t);
  }
}
