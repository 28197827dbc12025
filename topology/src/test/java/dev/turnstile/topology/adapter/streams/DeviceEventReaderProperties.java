package dev.turnstile.topology.adapter.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.Json;
import dev.turnstile.schemas.StrictJson;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The device path reads an event without databind when it can ({@link DeviceEventReader#plain});
 * that shortcut must read every tree exactly as the contract mapping does, or decline it. And a
 * resend, which differs from its first copy only in the bridge's {@code receivedAt}, has the same
 * fingerprint, while any other difference changes it.
 */
class DeviceEventReaderProperties {

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final List<String> FIELDS =
      List.of("deviceId", "eventId", "type", "occurredAt", "sessionRef", "attributes");

  @Property(tries = 3000)
  void theShortcutReadsATreeAsDatabindDoesOrDeclines(@ForAll("trees") ObjectNode tree) {
    DeviceEvent shortcut = DeviceEventReader.plain(tree);
    if (shortcut == null) {
      return;
    }
    DeviceEvent databind;
    try {
      databind = StrictJson.senders().treeToValue(tree, DeviceEvent.class);
    } catch (StrictJson.MalformedJsonException e) {
      throw new AssertionError("the shortcut read what databind refuses: " + tree, e);
    }
    assertThat(shortcut).isEqualTo(databind);
  }

  @Property(tries = 500)
  void aResendHasTheFingerprintOfItsFirstCopyAndOtherContentAnother(
      @ForAll("events") DeviceEvent event, @ForAll long receivedMillis) throws Exception {
    DeviceEvent resend =
        new DeviceEvent(
            event.deviceId(),
            event.eventId(),
            event.type(),
            event.occurredAt(),
            event.sessionRef(),
            event.attributes(),
            Instant.ofEpochMilli(Math.floorMod(receivedMillis, 4_000_000_000_000L)));
    DeviceEvent other =
        new DeviceEvent(
            event.deviceId(),
            event.eventId(),
            event.type(),
            event.occurredAt().plusSeconds(1),
            event.sessionRef(),
            event.attributes(),
            event.receivedAt());
    long first = DeviceEventReader.fingerprint(Json.mapper().writeValueAsBytes(event));
    assertThat(DeviceEventReader.fingerprint(Json.mapper().writeValueAsBytes(resend)))
        .isEqualTo(first);
    assertThat(DeviceEventReader.fingerprint(Json.mapper().writeValueAsBytes(other)))
        .isNotEqualTo(first);
  }

  @Example
  void whatTheBridgeWritesTakesTheShortcut() throws Exception {
    DeviceEvent event =
        new DeviceEvent(
            "st-1",
            "e-1",
            DeviceEventType.Finished,
            OffsetDateTime.parse("2014-11-18T15:40:26-05:00"),
            "r-1",
            NODES.objectNode().put("kWh", 7.5),
            null);
    ObjectNode tree =
        (ObjectNode) StrictJson.senders().readTree(Json.mapper().writeValueAsBytes(event));
    assertThat(DeviceEventReader.plain(tree))
        .isNotNull()
        .isEqualTo(StrictJson.senders().treeToValue(tree, DeviceEvent.class));
  }

  @Example
  void aValueThatDoesNotEndInTheBridgesReceiveTimeIsFingerprintedWhole() {
    byte[] a = "{\"eventId\":\"e\",\"receivedAt\":\"x\",\"type\":\"Started\"}".getBytes();
    byte[] b = "{\"eventId\":\"e\",\"receivedAt\":\"y\",\"type\":\"Started\"}".getBytes();
    assertThat(DeviceEventReader.trailingReceivedAt(a)).isEqualTo(-1);
    assertThat(DeviceEventReader.fingerprint(a)).isNotEqualTo(DeviceEventReader.fingerprint(b));
    byte[] spaced = "{\"eventId\":\"e\" , \"receivedAt\" : \"x\" }".getBytes();
    assertThat(DeviceEventReader.trailingReceivedAt(spaced)).isEqualTo(15);
  }

  @Provide
  Arbitrary<ObjectNode> trees() {
    Arbitrary<JsonNode> value =
        Arbitraries.oneOf(
            Arbitraries.just((JsonNode) null),
            Arbitraries.just(NODES.nullNode()),
            Arbitraries.of("st-1", "e.1", "Started", "Finished", "started", "", "a b", "..")
                .map(NODES::textNode),
            Arbitraries.of(
                    "2014-11-18T15:40:26-05:00",
                    "2026-08-03T10:15:30.123Z",
                    "2026-02-30T10:15:30Z",
                    "2026-08-03 10:15:30Z",
                    "1416343226",
                    "2026-08-03T10:15Z")
                .map(NODES::textNode),
            Arbitraries.integers().between(-2, 3).map(i -> (JsonNode) NODES.numberNode(i)),
            Arbitraries.of(true, false).map(NODES::booleanNode),
            Arbitraries.just(NODES.objectNode().put("kWh", 7.5)),
            Arbitraries.just(NODES.arrayNode().add("x")));
    return value
        .list()
        .ofSize(FIELDS.size())
        .map(
            values -> {
              ObjectNode tree = NODES.objectNode();
              for (int i = 0; i < FIELDS.size(); i++) {
                if (values.get(i) != null) {
                  tree.set(FIELDS.get(i), values.get(i));
                }
              }
              return asRead(tree);
            });
  }

  /** The tree as the device path gets it: the strict reader's, from the bytes. */
  private static ObjectNode asRead(ObjectNode tree) {
    try {
      return (ObjectNode) StrictJson.senders().readTree(Json.mapper().writeValueAsBytes(tree));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Provide
  Arbitrary<DeviceEvent> events() {
    return Combinators.combine(
            Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(12),
            Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(12),
            Arbitraries.of(DeviceEventType.class),
            Arbitraries.longs().between(0, 4_000_000_000L),
            Arbitraries.strings().withCharRange('a', 'z').ofMaxLength(6).injectNull(0.3),
            Arbitraries.of((JsonNode) null, NODES.objectNode().put("kWh", 7.5)))
        .as(
            (device, id, type, second, ref, attributes) ->
                new DeviceEvent(
                    device,
                    id,
                    type,
                    OffsetDateTime.parse("2014-11-18T15:40:26-05:00").plusSeconds(second),
                    ref,
                    attributes,
                    Instant.parse("2026-12-02T10:00:00Z")));
  }
}
