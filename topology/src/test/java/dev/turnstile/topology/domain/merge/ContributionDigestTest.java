package dev.turnstile.topology.domain.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ContributionDigestTest {

  private static final Contribution SESSION = new Contribution("device/station-1", "s-1");
  private static final Contribution BILLING = new Contribution("servicebus/billing", "b-1");

  @Test
  void idIsDeterministicAndIndependentOfOrder() {
    String id = ContributionDigest.of(List.of(SESSION, BILLING)).mergeResultId("3390011");

    assertThat(id).matches("[0-9a-f]{64}");
    assertThat(ContributionDigest.EMPTY.with(BILLING).with(SESSION).mergeResultId("3390011"))
        .isEqualTo(id);
    assertThat(ContributionDigest.of(List.of(BILLING, SESSION, BILLING)).mergeResultId("3390011"))
        .isEqualTo(id);
  }

  @Test
  void idIsSensitiveToKeyAndToEveryContribution() {
    String id = ContributionDigest.of(List.of(SESSION, BILLING)).mergeResultId("3390011");

    assertThat(
            List.of(
                ContributionDigest.of(List.of(SESSION, BILLING)).mergeResultId("3390012"),
                ContributionDigest.of(List.of(SESSION)).mergeResultId("3390011"),
                ContributionDigest.of(
                        List.of(SESSION, new Contribution("servicebus/billing", "b-2")))
                    .mergeResultId("3390011"),
                ContributionDigest.of(
                        List.of(SESSION, new Contribution("servicebus/billinG", "b-1")))
                    .mergeResultId("3390011"),
                // field boundaries are length-prefixed: moving a character between them changes it
                ContributionDigest.of(
                        List.of(SESSION, new Contribution("servicebus/billingb", "-1")))
                    .mergeResultId("3390011")))
        .doesNotContain(id)
        .doesNotHaveDuplicates();
  }

  @Test
  void survivesItsSerializedForm() {
    ContributionDigest digest = ContributionDigest.of(List.of(SESSION, BILLING));

    assertThat(digest.toBytes()).hasSize(40);
    assertThat(ContributionDigest.fromBytes(digest.toBytes())).isEqualTo(digest);
    assertThat(ContributionDigest.fromBytes(ContributionDigest.EMPTY.toBytes()))
        .isEqualTo(ContributionDigest.EMPTY);
  }
}
