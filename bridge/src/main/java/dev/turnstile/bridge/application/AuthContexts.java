package dev.turnstile.bridge.application;

import dev.turnstile.schemas.AuthContext;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.util.Set;

/** How the bridge writes who sent an event: the CloudEvents Auth Context extension attributes. */
final class AuthContexts {

  /** The extension's attribute names, which only the bridge may set on what it writes. */
  static final Set<String> ATTRIBUTES =
      Set.of(AuthContext.TYPE_ATTRIBUTE, AuthContext.ID_ATTRIBUTE, AuthContext.CLAIMS_ATTRIBUTE);

  private AuthContexts() {}

  /** Sets {@code authtype}, and {@code authid} and {@code authclaims} when there are any. */
  static CloudEventBuilder record(CloudEventBuilder event, AuthContext sender) {
    return record(event, sender, sender.claims().isEmpty() ? null : sender.claimsJson());
  }

  /**
   * As {@link #record(CloudEventBuilder, AuthContext)}, with the claims already written as JSON.
   *
   * @param claimsJson {@code sender.claimsJson()}, or {@code null} when it has no claims
   */
  static CloudEventBuilder record(CloudEventBuilder event, AuthContext sender, String claimsJson) {
    event.withExtension(AuthContext.TYPE_ATTRIBUTE, sender.type());
    if (sender.id() != null) {
      event.withExtension(AuthContext.ID_ATTRIBUTE, sender.id());
    }
    if (claimsJson != null) {
      event.withExtension(AuthContext.CLAIMS_ATTRIBUTE, claimsJson);
    }
    return event;
  }

  /** The first Auth Context attribute a CloudEvent brings itself, or {@code null}. */
  static String broughtBy(CloudEvent event) {
    return event.getExtensionNames().stream().filter(ATTRIBUTES::contains).findFirst().orElse(null);
  }
}
