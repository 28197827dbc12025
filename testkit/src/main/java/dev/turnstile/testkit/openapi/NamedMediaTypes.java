package dev.turnstile.testkit.openapi;

import io.vertx.core.buffer.Buffer;
import io.vertx.openapi.mediatype.ContentAnalyser;
import io.vertx.openapi.mediatype.ContentAnalyserFactory;
import io.vertx.openapi.mediatype.MediaTypeRegistration;
import io.vertx.openapi.validation.ValidationContext;
import java.util.List;
import java.util.Locale;

/**
 * Media types, named exactly (parameters included, white space and case aside), read by one kind of
 * content analyser: what vertx-openapi's registry takes for a media type it does not know.
 */
final class NamedMediaTypes implements MediaTypeRegistration {

  private final ContentAnalyserFactory analysers;
  private final List<String> types;

  NamedMediaTypes(ContentAnalyserFactory analysers, String... types) {
    this.analysers = analysers;
    this.types = List.of(types);
  }

  @Override
  public ContentAnalyser createContentAnalyser(
      String contentType, Buffer content, ValidationContext context) {
    return analysers.create(contentType, content, context);
  }

  @Override
  public boolean canHandle(String mediaType) {
    String wanted = condensed(mediaType);
    return types.stream().anyMatch(type -> condensed(type).equals(wanted));
  }

  @Override
  public List<String> supportedTypes() {
    return types;
  }

  private static String condensed(String mediaType) {
    return mediaType == null ? "" : mediaType.replaceAll("\\s+", "").toLowerCase(Locale.ROOT);
  }
}
