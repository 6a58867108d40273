// tests/hosts/Smoke.java EXT SMOKE: Java with sqlite-jdbc (Debian
// libxerial-sqlite-jdbc-java) loads the extension and runs the shared smoke
// set. Prints "N passed, N failed".
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

public class Smoke {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.setProperty("enable_load_extension", "true");
    int pass = 0, fail = 0;
    try (Connection db = DriverManager.getConnection("jdbc:sqlite::memory:", props)) {
      try (Statement st = db.createStatement()) {
        st.execute("SELECT load_extension('" + args[0].replace("'", "''") + "')");
      }
      for (String line : Files.readAllLines(Paths.get(args[1]))) {
        if (line.isEmpty() || line.startsWith("#")) continue;
        int tab = line.indexOf('\t');
        String q = tab < 0 ? line : line.substring(0, tab);
        String got = first(db, q);
        String want = tab < 0 ? (got.startsWith("error") ? "" : got) : line.substring(tab + 1);
        if (got.equals(want)) {
          pass++;
        } else {
          fail++;
          System.out.println("FAIL java: " + q + "\n  expected: " + want + "\n  actual:   " + got);
        }
      }
    }
    System.out.println(pass + " passed, " + fail + " failed");
    System.exit(fail > 0 ? 1 : 0);
  }

  // The first row of q, columns joined by '|', reals as Python prints them.
  static String first(Connection db, String q) {
    try (Statement st = db.createStatement()) {
      if (!st.execute(q)) return "";
      try (ResultSet rs = st.getResultSet()) {
        if (!rs.next()) return "";
        int n = rs.getMetaData().getColumnCount();
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          if (i > 1) b.append('|');
          Object v = rs.getObject(i);
          if (v == null) b.append("NULL");
          else if (v instanceof byte[]) b.append(new String((byte[]) v, "UTF-8"));
          else if (v instanceof Double) b.append(pyFloat((Double) v));
          else b.append(v);
        }
        return b.toString();
      }
    } catch (SQLException | java.io.UnsupportedEncodingException e) {
      return "error: " + e.getMessage();
    }
  }

  static String pyFloat(double x) {
    if (x == Math.rint(x) && Math.abs(x) < 1e16) return String.format("%.1f", x);
    return Double.toString(x);
  }
}
