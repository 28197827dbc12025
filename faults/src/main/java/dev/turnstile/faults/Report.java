package dev.turnstile.faults;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.Json;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** The harness's closing table: faults by kind with their healing times, then the verdict. */
final class Report {

  private Report() {}

  static void print(
      PrintStream out, List<Fault> faults, Verdict verdict, Ledger ledger, long wallMillis) {
    out.println();
    out.printf(
        "%-30s %5s %6s %8s %8s %8s%n",
        "faults injected, by kind", "count", "healed", "heal s:", "", "");
    out.printf("%-30s %5s %6s %8s %8s %8s%n", "", "", "", "min", "median", "max");
    out.println("-".repeat(72));
    for (Map.Entry<FaultKind, List<Fault>> kind : byKind(faults).entrySet()) {
      List<Fault> list = kind.getValue();
      long[] heals =
          list.stream().filter(Fault::healed).mapToLong(Fault::healMillis).sorted().toArray();
      out.printf(
          "%-30s %5d %6d %8s %8s %8s%n",
          kind.getKey().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
          list.size(),
          heals.length,
          seconds(heals, 0),
          seconds(heals, heals.length / 2),
          seconds(heals, heals.length - 1));
    }
    long[] all =
        faults.stream().filter(Fault::healed).mapToLong(Fault::healMillis).sorted().toArray();
    out.println("-".repeat(72));
    out.printf(
        "%-30s %5d %6d %8s %8s %8s%n",
        "all faults",
        faults.size(),
        all.length,
        seconds(all, 0),
        seconds(all, all.length / 2),
        seconds(all, all.length - 1));
    out.println();
    out.printf(
        "events accepted:  %,d (HTTP %,d answered 2xx, Service Bus %,d completed), %,d sessions%n",
        verdict.httpEventsAccepted() + verdict.billingAccepted(),
        verdict.httpEventsAccepted(),
        verdict.billingAccepted(),
        verdict.sessions());
    out.printf(
        "HTTP requests:    %,d (%,d resends, %,d answered 200 duplicate, %,d answered 503 or 429, %,d"
            + " without an answer, %,d refused)%n",
        ledger.requests(),
        ledger.resends(),
        ledger.answeredDuplicate(),
        ledger.answeredUnavailable(),
        ledger.transportErrors(),
        ledger.refused());
    out.printf("records read:     %s%n", verdict.recordsByTopic());
    out.printf("rejections:       %s%n", verdict.rejectedByReason());
    out.printf(
        "durations:        %,d ms closed, %,d ms expected%n",
        verdict.closedDurationMillis(), verdict.expectedDurationMillis());
    out.printf(
        "settled:          %s kWh / %s $, expected %s kWh / %s $%n",
        verdict.settledKwh(),
        verdict.settledDollars(),
        verdict.expectedKwh(),
        verdict.expectedDollars());
    out.printf(
        "LOST %d   DOUBLED %d   (lost at the bridge %d, wrong values %d, unexplained effects %d)%n",
        verdict.lost(),
        verdict.doubled(),
        verdict.lostAtBridge(),
        verdict.wrong(),
        verdict.unexplained());
    verdict.problems().forEach(p -> out.println("  " + p));
    out.printf("wall time %.1f min%n", wallMillis / 60_000.0);
    out.println(
        verdict.exactlyOnce() && all.length == faults.size()
            ? "EXACTLY ONCE: every accepted event has exactly one effect; every fault healed."
            : "FAILED: see above.");
  }

  static ObjectNode json(
      long seed, List<Fault> faults, Verdict verdict, Ledger ledger, long wallMillis) {
    ObjectNode root = Json.mapper().createObjectNode();
    root.put("seed", seed);
    root.put("wallSeconds", wallMillis / 1000);
    root.put("eventsAccepted", verdict.httpEventsAccepted() + verdict.billingAccepted());
    root.put("httpEventsAccepted", verdict.httpEventsAccepted());
    root.put("billingAccepted", verdict.billingAccepted());
    root.put("httpRequests", ledger.requests());
    root.put("lost", verdict.lost());
    root.put("doubled", verdict.doubled());
    root.put("wrong", verdict.wrong());
    root.put("unexplained", verdict.unexplained());
    root.put("exactlyOnce", verdict.exactlyOnce());
    ArrayNode list = root.putArray("faults");
    for (Fault fault : faults) {
      ObjectNode f = list.addObject();
      f.put("number", fault.number());
      f.put("kind", fault.kind().name());
      f.put("target", fault.target());
      f.put("healMillis", fault.healMillis());
      f.put("note", fault.note());
    }
    return root;
  }

  private static Map<FaultKind, List<Fault>> byKind(List<Fault> faults) {
    Map<FaultKind, List<Fault>> byKind = new EnumMap<>(FaultKind.class);
    for (Fault fault : faults) {
      byKind.computeIfAbsent(fault.kind(), k -> new ArrayList<>()).add(fault);
    }
    return byKind;
  }

  private static String seconds(long[] sorted, int index) {
    return sorted.length == 0 ? "-" : String.format("%.1f", sorted[index] / 1000.0);
  }
}
