package dev.turnstile.testkit.openapi;

import io.vertx.core.buffer.Buffer;
import io.vertx.openapi.mediatype.ContentAnalyser;
import io.vertx.openapi.validation.ValidationContext;
import io.vertx.openapi.validation.ValidatorErrorType;
import io.vertx.openapi.validation.ValidatorException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads a text body as a UTF-8 string, so that a {@code type: string} schema (a {@code pattern})
 * applies to it; bytes that are not UTF-8 are a syntax error. vertx-openapi's own text analyser
 * hands the schema the raw buffer, which no string schema accepts.
 */
final class TextAnalyser implements ContentAnalyser {

  private final Buffer content;
  private String text;

  TextAnalyser(String contentType, Buffer content, ValidationContext context) {
    this.content = content;
  }

  @Override
  public void checkSyntacticalCorrectness() {
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(content.getBytes()))
              .toString();
    } catch (CharacterCodingException e) {
      throw new ValidatorException(
          "The body is not UTF-8 text: " + e.getMessage(), ValidatorErrorType.ILLEGAL_VALUE);
    }
  }

  @Override
  public Object transform() {
    return text;
  }
}
