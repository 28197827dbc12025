package dev.turnstile.topology.adapter.streams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.turnstile.schemas.DeviceEvent;
import dev.turnstile.schemas.DeviceEventType;
import dev.turnstile.schemas.DeviceSessionEventType;
import dev.turnstile.topology.domain.session.DeviceSession;
import dev.turnstile.topology.domain.session.DeviceSessionsSnapshot;
import dev.turnstile.topology.domain.session.HeldFinish;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Any record of {@code device-state-store} reads back equal: a slot with its remembered events, its
 * ended marker and its sessions (offsets and attributes included, strings as the strict reader lets
 * them in: no unpaired surrogates), and a lone event.
 */
class DeviceRecordCodecProperties {

  private static final DeviceRecordCodec CODEC = DeviceRecordCodec.INSTANCE;

  @Property(tries = 300)
  void aSlotReadsBackEqual(
      @ForAll("snapshots") DeviceSessionsSnapshot snapshot,
      @ForAll("events") List<DeviceRecord.Remembered> events,
      @ForAll("ended") DeviceRecord.Ended ended) {
    DeviceRecord.Slot slot = new DeviceRecord.Slot(events, ended, snapshot);
    assertThat(CODEC.read(CODEC.write(slot))).isEqualTo(slot);
  }

  @Property(tries = 50)
  void aLoneEventReadsBackEqual(@ForAll long fingerprint, @ForAll long firstSeen) {
    DeviceRecord.Lone lone = new DeviceRecord.Lone(fingerprint, firstSeen);
    assertThat(CODEC.read(CODEC.write(lone))).isEqualTo(lone);
  }

  @Example
  void anotherFormatIsRefusedNotMisread() {
    byte[] bytes = CODEC.write(DeviceRecord.Slot.EMPTY);
    bytes[0] = '{';
    assertThatIllegalStateException().isThrownBy(() -> CODEC.read(bytes));
  }

  @Provide
  Arbitrary<List<DeviceRecord.Remembered>> events() {
    return Combinators.combine(
            Arbitraries.strings().withCharRange(' ', '\ud7ff').ofMinLength(1).ofMaxLength(20),
            Arbitraries.longs(),
            Arbitraries.longs())
        .as(DeviceRecord.Remembered::new)
        .list()
        .ofMaxSize(4);
  }

  @Provide
  Arbitrary<DeviceRecord.Ended> ended() {
    return Combinators.combine(
            Arbitraries.of(DeviceSessionEventType.Closed, DeviceSessionEventType.Expired),
            Arbitraries.longs())
        .as(DeviceRecord.Ended::new)
        .injectNull(0.3);
  }

  @Provide
  Arbitrary<DeviceSessionsSnapshot> snapshots() {
    Arbitrary<String> text = Arbitraries.strings().withCharRange(' ', '\ud7ff').ofMaxLength(20);
    Arbitrary<String> nullable = text.injectNull(0.3);
    Arbitrary<OffsetDateTime> time =
        Combinators.combine(
                Arbitraries.longs().between(-62_000_000_000L, 250_000_000_000L),
                Arbitraries.integers().between(0, 999_999_999),
                Arbitraries.integers().between(-18 * 3600, 18 * 3600))
            .as(
                (second, nano, offset) ->
                    OffsetDateTime.ofInstant(
                        Instant.ofEpochSecond(second, nano), ZoneOffset.ofTotalSeconds(offset)));
    Arbitrary<JsonNode> attributes =
        Arbitraries.of(
            (JsonNode) null,
            JsonNodeFactory.instance.objectNode().put("v", 1),
            JsonNodeFactory.instance.objectNode().put("n", new java.math.BigDecimal("7.50")),
            JsonNodeFactory.instance.nullNode());
    Arbitrary<DeviceSession> session =
        Combinators.combine(text, text, nullable, text, time, Arbitraries.longs(), attributes)
            .as(DeviceSession::new);
    Arbitrary<HeldFinish> held =
        Combinators.combine(text, text, nullable, time, attributes, Arbitraries.longs())
            .as(
                (device, id, ref, at, attrs, arrived) ->
                    new HeldFinish(
                        new DeviceEvent(device, id, DeviceEventType.Finished, at, ref, attrs, null),
                        arrived));
    return Combinators.combine(session.list().ofMaxSize(4), held.list().ofMaxSize(4))
        .as((List<DeviceSession> o, List<HeldFinish> h) -> new DeviceSessionsSnapshot(o, h));
  }
}
