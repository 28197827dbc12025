package dev.turnstile.bridge.application;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class Digest128Test {

  /** Fields are length-prefixed: no two different sequences of fields are the same bytes. */
  @Test
  void differentFieldsGiveDifferentDigests() {
    List<List<String>> fields =
        List.of(
            List.of("ab", "c"),
            List.of("a", "bc"),
            List.of("abc"),
            List.of("abc", ""),
            List.of("é"),
            List.of("e"),
            List.of("\u00c3\u00a9"));
    Set<Digest128> digests = new HashSet<>();
    for (List<String> texts : fields) {
      Digest128.Builder builder = Digest128.Builder.get();
      texts.forEach(builder::text);
      digests.add(builder.digest());
    }
    assertThat(digests).hasSize(fields.size());
  }

  /** A builder taken while the thread's own is lent out is a fresh one, and both digest alike. */
  @Test
  void aBuilderTakenWhileTheThreadsIsLentIsItsOwn() {
    Digest128 alone = Digest128.ofEvent("station-1", "e-1");
    Digest128.Builder outer = Digest128.Builder.get().text("outer");
    Digest128 inner = Digest128.ofEvent("station-1", "e-1");
    Digest128 outerDigest = outer.digest();

    assertThat(inner).isEqualTo(alone);
    assertThat(outerDigest).isEqualTo(Digest128.Builder.get().text("outer").digest());
    assertThat(Digest128.ofEvent("station-1", "e-1")).isEqualTo(alone);
  }
}
