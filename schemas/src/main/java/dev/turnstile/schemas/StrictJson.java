package dev.turnstile.schemas;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one reader of JSON that Turnstile did not write itself, used by every path that takes JSON
 * from a sender (HTTP bodies, Service Bus bodies, raw Kafka records), so that the same bytes get
 * the same verdict everywhere. It reads the I-JSON profile of RFC 8259 (RFC 7493) plus bounds:
 *
 * <ul>
 *   <li>one value and nothing after it but white space (RFC 8259 §2);
 *   <li>no duplicate member names (RFC 7493 §2.3; RFC 8259 §4 leaves them undefined, so "last wins"
 *       would silently pick one);
 *   <li>valid UTF-8 and no unpaired surrogate, escaped or not (RFC 7493 §2.1);
 *   <li>nesting at most {@value #MAX_DEPTH} levels of objects and arrays;
 *   <li>a number at most {@value #MAX_NUMBER_LENGTH} characters long, with a decimal exponent of
 *       magnitude at most {@value #MAX_EXPONENT} (so {@code 1e400} is kept exactly, {@code
 *       1e1000000000} is refused before any arithmetic can choke on it);
 *   <li>a string at most {@value #MAX_STRING_LENGTH} characters, a member name at most {@value
 *       #MAX_NAME_LENGTH}.
 * </ul>
 *
 * <p>Numbers stay exact ({@link BigDecimal} with their trailing zeros), timestamps keep their
 * offsets: the mapping is {@link Json}'s. Turnstile's own records nest a sender's value a bounded
 * number of levels deeper (a snapshot, an envelope, a patch); {@link #ownRecords()} reads those
 * with {@value #MAX_DEPTH} + {@value #ENVELOPE_DEPTH} levels, far below the 1000 that Jackson's
 * writer allows, so a value accepted here can always be wrapped and written again.
 */
public final class StrictJson {

  /** Deepest nesting of objects and arrays accepted from a sender. */
  public static final int MAX_DEPTH = 64;

  /** Levels that Turnstile's own records may add around a sender's value. */
  public static final int ENVELOPE_DEPTH = 16;

  /** Longest number, in characters of its JSON text. */
  public static final int MAX_NUMBER_LENGTH = 100;

  /** Largest magnitude of a number's decimal exponent (its BigDecimal scale). */
  public static final int MAX_EXPONENT = 1000;

  /** Longest string value, in characters. */
  public static final int MAX_STRING_LENGTH = 1 << 20;

  /** Longest member name, in characters. */
  public static final int MAX_NAME_LENGTH = 1024;

  private static final StrictJson SENDERS = new StrictJson(MAX_DEPTH);
  private static final StrictJson SENDER_ARRAYS = new StrictJson(MAX_DEPTH + 1);
  private static final StrictJson OWN_RECORDS = new StrictJson(MAX_DEPTH + ENVELOPE_DEPTH);
  private static final Pattern QUOTED = Pattern.compile("'([^']*)'");

  private final ObjectMapper mapper;
  private final ObjectMapper onePass;
  private final int maxDepth;

  private StrictJson(int maxDepth) {
    this.maxDepth = maxDepth;
    this.mapper = mapping(maxDepth).build();
    // A number bound to a text member reads as its token's text from the bytes ("-0", "1e400")
    // but as its value's text from a tree ("0", "1E+400"): the one-pass read refuses it, so such a
    // record is read the two-pass way and binds as it always did.
    JsonMapper.Builder strictText = mapping(maxDepth);
    strictText.withCoercionConfig(
        LogicalType.Textual,
        c ->
            c.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail));
    this.onePass = strictText.build();
  }

  private static JsonMapper.Builder mapping(int maxDepth) {
    return Json.contractMapping(
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(maxDepth)
                    .maxNumberLength(MAX_NUMBER_LENGTH)
                    .maxStringLength(MAX_STRING_LENGTH)
                    .maxNameLength(MAX_NAME_LENGTH)
                    .build())
            .build());
  }

  /** The reader for what senders send: HTTP and Service Bus bodies, raw topic values. */
  public static StrictJson senders() {
    return SENDERS;
  }

  /**
   * The reader for an array of what senders send (a batch of device events): one level more than
   * {@link #senders()} for the array itself, so that each element is held to {@value #MAX_DEPTH}
   * levels as it would be alone. Every other rule is the same, and applies to the whole text: a
   * text that breaks one is refused as a whole, since nothing past a reader's bound is read.
   */
  public static StrictJson senderArrays() {
    return SENDER_ARRAYS;
  }

  /**
   * The reader for Turnstile's own topics and stores ({@code merge-inputs.v1}, {@code
   * merge-results.v1}, store values), which nest a sender's value at most {@value #ENVELOPE_DEPTH}
   * levels deeper. Anyone can write to a topic, so the same rules apply otherwise.
   */
  public static StrictJson ownRecords() {
    return OWN_RECORDS;
  }

  /** The deepest nesting this reader accepts. */
  public int maxDepth() {
    return maxDepth;
  }

  /**
   * Reads one JSON value.
   *
   * @throws MalformedJsonException when the bytes break a rule above; its message says which, and
   *     where, in terms a sender can act on
   */
  public JsonNode readTree(byte[] json) throws MalformedJsonException {
    if (json == null || json.length == 0) {
      throw new MalformedJsonException("the body is empty");
    }
    requireUtf8Encoding(json);
    JsonNode tree;
    try {
      tree = mapper.readTree(json);
    } catch (StreamConstraintsException e) {
      String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
      Limit limit = limitOf(original);
      throw new MalformedJsonException(
          describe(e), e, limit, limit == null ? null : pointerWhereReadingFails(json));
    } catch (JsonProcessingException e) {
      throw new MalformedJsonException(describe(e), e);
    } catch (NumberFormatException e) {
      // The tokenizer accepted the number's grammar; BigDecimal cannot hold its exponent
      // (beyond an int, e.g. 1e10000000001), which is past the exponent bound by far.
      throw new MalformedJsonException(
          "a number is out of range: its decimal exponent is beyond ±" + MAX_EXPONENT,
          e,
          Limit.EXPONENT,
          pointerWhereReadingFails(json));
    } catch (IOException e) {
      throw new MalformedJsonException("the body could not be read", e);
    }
    if (tree == null || tree.isMissingNode()) {
      throw new MalformedJsonException("the body holds no JSON value");
    }
    checkTextAndNumbers(tree);
    return tree;
  }

  /**
   * Reads one JSON value as {@code type} (a contract record), after the checks of {@link
   * #readTree}.
   *
   * @throws MalformedJsonException when the bytes break a rule, or do not fit {@code type}
   */
  public <T> T readValue(byte[] json, Class<T> type) throws MalformedJsonException {
    T value = readInOnePass(json, type);
    return value != null ? value : treeToValue(readTree(json), type);
  }

  /**
   * The value, bound straight from the bytes with every rule of {@link #readTree} checked token by
   * token on the way ({@link CheckingParser}); null when anything is wrong, or the value is JSON
   * {@code null}. {@link #readValue} then reads the bytes again the two-pass way, so a refusal says
   * exactly what {@link #readTree} and {@link #treeToValue} say: only well-formed records, nearly
   * all of them, are read once.
   */
  private <T> T readInOnePass(byte[] json, Class<T> type) {
    if (json == null || json.length == 0) {
      return null;
    }
    try (JsonParser parser = new CheckingParser(onePass.createParser(json))) {
      requireUtf8Encoding(json);
      return onePass.readValue(parser, type);
    } catch (IOException | MalformedJsonException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Checks, as each token is read, what {@link #checkTextAndNumbers} checks on a tree: member names
   * and strings well-formed, decimal exponents in range. Every way of moving to the next token goes
   * through {@link #nextToken}, skipped values included; a token that breaks a rule throws {@link
   * Refused}.
   */
  private static final class CheckingParser extends JsonParserDelegate {

    CheckingParser(JsonParser parser) {
      super(parser);
    }

    @Override
    public JsonToken nextToken() throws IOException {
      JsonToken token = delegate.nextToken();
      if (token == JsonToken.FIELD_NAME) {
        check(delegate.currentName());
      } else if (token == JsonToken.VALUE_STRING) {
        check(delegate.getText());
      } else if (token == JsonToken.VALUE_NUMBER_FLOAT) {
        try {
          requireExponentInRange(delegate.getDecimalValue());
        } catch (MalformedJsonException e) {
          throw new Refused();
        }
      }
      return token;
    }

    /**
     * A number read as text binds as its token's text here but as its value's text from a tree
     * ({@code -0} and {@code 0}, {@code 1e2} and {@code 1E+2}), whatever the member's type (a
     * string, a URI, a locale): such a record is read the two-pass way.
     */
    @Override
    public String getValueAsString() throws IOException {
      refuseNumberAsText();
      return delegate.getValueAsString();
    }

    @Override
    public String getValueAsString(String defaultValue) throws IOException {
      refuseNumberAsText();
      return delegate.getValueAsString(defaultValue);
    }

    private void refuseNumberAsText() {
      if (delegate.currentToken() != null && delegate.currentToken().isNumeric()) {
        throw new Refused();
      }
    }

    private static void check(String text) {
      try {
        requireWellFormed(text);
      } catch (MalformedJsonException e) {
        throw new Refused();
      }
    }

    @Override
    public JsonToken nextValue() throws IOException {
      JsonToken token = nextToken();
      return token == JsonToken.FIELD_NAME ? nextToken() : token;
    }

    @Override
    public String nextFieldName() throws IOException {
      return nextToken() == JsonToken.FIELD_NAME ? currentName() : null;
    }

    @Override
    public boolean nextFieldName(SerializableString name) throws IOException {
      return nextToken() == JsonToken.FIELD_NAME && name.getValue().equals(currentName());
    }

    @Override
    public String nextTextValue() throws IOException {
      return nextToken() == JsonToken.VALUE_STRING ? getText() : null;
    }

    @Override
    public int nextIntValue(int defaultValue) throws IOException {
      return nextToken() == JsonToken.VALUE_NUMBER_INT ? getIntValue() : defaultValue;
    }

    @Override
    public long nextLongValue(long defaultValue) throws IOException {
      return nextToken() == JsonToken.VALUE_NUMBER_INT ? getLongValue() : defaultValue;
    }

    @Override
    public Boolean nextBooleanValue() throws IOException {
      JsonToken token = nextToken();
      return token == JsonToken.VALUE_TRUE || token == JsonToken.VALUE_FALSE
          ? token == JsonToken.VALUE_TRUE
          : null;
    }

    @Override
    public JsonParser skipChildren() throws IOException {
      JsonToken token = currentToken();
      if (token != JsonToken.START_OBJECT && token != JsonToken.START_ARRAY) {
        return this;
      }
      for (int open = 1; open > 0; ) {
        JsonToken next = nextToken();
        if (next == null) {
          return this;
        }
        open += next.isStructStart() ? 1 : next.isStructEnd() ? -1 : 0;
      }
      return this;
    }
  }

  /** A token {@link CheckingParser} refused: the two-pass read says why. */
  private static final class Refused extends RuntimeException {
    Refused() {
      super(null, null, false, false);
    }
  }

  /**
   * Maps a tree this reader read (and a caller may have trimmed) to {@code type}.
   *
   * @throws MalformedJsonException when the tree does not fit {@code type}
   */
  public <T> T treeToValue(JsonNode tree, Class<T> type) throws MalformedJsonException {
    try {
      return mapper.treeToValue(tree, type);
    } catch (JsonProcessingException | IllegalArgumentException e) {
      throw new MalformedJsonException(
          "not a " + type.getSimpleName() + ": " + describeMapping(e), e);
    }
  }

  /**
   * A documented bound that well-formed JSON can pass, as opposed to bytes that are not I-JSON at
   * all. Each has the name a problem report uses as its {@code keyword}.
   */
  public enum Limit {
    /** Nesting of objects and arrays, {@link StrictJson#maxDepth()}. */
    DEPTH("maxDepth"),
    /** Characters of a number, {@value StrictJson#MAX_NUMBER_LENGTH}. */
    NUMBER_LENGTH("maxNumberLength"),
    /** Magnitude of a number's decimal exponent, {@value StrictJson#MAX_EXPONENT}. */
    EXPONENT("maxExponent"),
    /** Characters of a string value, {@value StrictJson#MAX_STRING_LENGTH}. */
    STRING_LENGTH("maxStringLength"),
    /** Characters of a member name, {@value StrictJson#MAX_NAME_LENGTH}. */
    NAME_LENGTH("maxNameLength");

    private final String keyword;

    Limit(String keyword) {
      this.keyword = keyword;
    }

    /** The limit's name in problem reports, e.g. {@code maxDepth}. */
    public String keyword() {
      return keyword;
    }
  }

  /**
   * A value that breaks {@link StrictJson}'s rules: either not well-formed I-JSON ({@link #limit()}
   * empty), or well-formed but past a documented {@link Limit}.
   */
  public static final class MalformedJsonException extends Exception {
    private final Limit limit;
    private final String pointer;

    MalformedJsonException(String message) {
      this(message, null, null, null);
    }

    MalformedJsonException(String message, Throwable cause) {
      this(message, cause, null, null);
    }

    MalformedJsonException(String message, Throwable cause, Limit limit, String pointer) {
      super(message, cause);
      this.limit = limit;
      this.pointer = pointer;
    }

    /** The bound the value passed; empty when the bytes are not well-formed I-JSON. */
    public Optional<Limit> limit() {
      return Optional.ofNullable(limit);
    }

    /**
     * Where the bound was passed, as a JSON Pointer (RFC 6901; {@code ""} is the whole value): the
     * container that opened one level too many, or the member holding the number or string. Empty
     * when not a {@link #limit()} or not known.
     */
    public Optional<String> pointer() {
      return Optional.ofNullable(pointer);
    }
  }

  /**
   * Unpaired surrogates (escaped as {@code \ud800}, which the parser lets through) and exponents
   * past the bound, which the parser's constraints do not cover. Iterative: depth is bounded, but a
   * wide document must not cost stack either.
   */
  private static void checkTextAndNumbers(JsonNode root) throws MalformedJsonException {
    try {
      walkTextAndNumbers(root);
    } catch (MalformedJsonException e) {
      if (e.limit().isEmpty()) {
        throw e;
      }
      throw new MalformedJsonException(
          e.getMessage(), null, e.limit().get(), pointerOfExponent(root, ""));
    }
  }

  private static void walkTextAndNumbers(JsonNode root) throws MalformedJsonException {
    Deque<JsonNode> pending = new ArrayDeque<>();
    pending.push(root);
    while (!pending.isEmpty()) {
      JsonNode node = pending.pop();
      if (node.isObject()) {
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> member = it.next();
          requireWellFormed(member.getKey());
          pending.push(member.getValue());
        }
      } else if (node.isArray()) {
        node.forEach(pending::push);
      } else if (node.isTextual()) {
        requireWellFormed(node.textValue());
      } else if (node.isBigDecimal()) {
        requireExponentInRange(node.decimalValue());
      }
    }
  }

  /**
   * RFC 8259 §8.1 and RFC 7493 §2.1: UTF-8 only, and no byte order mark (senders MUST NOT add one).
   * Jackson would detect and read UTF-16 and UTF-32, skip a BOM, and decode some invalid UTF-8
   * (overlong forms such as C0 AF); the JDK's decoder refuses all of that.
   */
  private static void requireUtf8Encoding(byte[] json) throws MalformedJsonException {
    if (json.length >= 3
        && json[0] == (byte) 0xEF
        && json[1] == (byte) 0xBB
        && json[2] == (byte) 0xBF) {
      throw new MalformedJsonException(
          "a byte order mark (U+FEFF) before the JSON text (RFC 8259 §8.1)");
    }
    boolean ascii = true;
    for (byte b : json) {
      if (b < 0 || b == 0) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      return;
    }
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(json));
    } catch (CharacterCodingException e) {
      throw new MalformedJsonException(
          encodesSurrogate(json)
              ? "invalid UTF-8: an encoded UTF-16 surrogate (RFC 7493 §2.1)"
              : "invalid UTF-8",
          e);
    }
    for (int i = 0; i < Math.min(4, json.length); i++) {
      if (json[i] == 0) {
        throw new MalformedJsonException("invalid UTF-8: the text looks like UTF-16 or UTF-32");
      }
    }
  }

  /** ED A0..BF starts the three-byte form of U+D800..U+DFFF, which UTF-8 excludes. */
  private static boolean encodesSurrogate(byte[] json) {
    for (int i = 0; i + 1 < json.length; i++) {
      if (json[i] == (byte) 0xED && (json[i + 1] & 0xE0) == 0xA0) {
        return true;
      }
    }
    return false;
  }

  private static void requireWellFormed(String text) throws MalformedJsonException {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new MalformedJsonException(
            "a string holds an unpaired UTF-16 surrogate \\u%04X (RFC 7493 §2.1)"
                .formatted((int) c));
      }
    }
  }

  private static void requireExponentInRange(BigDecimal number) throws MalformedJsonException {
    long exponent = (long) number.precision() - number.scale() - 1;
    if (Math.abs(exponent) > MAX_EXPONENT) {
      throw new MalformedJsonException(
          "a number is out of range: its decimal exponent is beyond ±" + MAX_EXPONENT,
          null,
          Limit.EXPONENT,
          null);
    }
  }

  /**
   * The pointer of the first number whose exponent is out of range; recursive, as the tree is at
   * most {@link #maxDepth()} deep. Only runs once such a number was found.
   */
  private static String pointerOfExponent(JsonNode node, String pointer) {
    if (node.isBigDecimal()) {
      try {
        requireExponentInRange(node.decimalValue());
        return null;
      } catch (MalformedJsonException e) {
        return pointer;
      }
    }
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> member = it.next();
        String found =
            pointerOfExponent(member.getValue(), pointer + "/" + escape(member.getKey()));
        if (found != null) {
          return found;
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        String found = pointerOfExponent(node.get(i), pointer + "/" + i);
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }

  private static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }

  /**
   * Reads the bytes again token by token up to the failure, for the path of the value being read
   * then. Only runs once a limit was passed, so the normal read does not pay for it.
   */
  private String pointerWhereReadingFails(byte[] json) {
    JsonParser parser = null;
    try {
      parser = mapper.createParser(json);
      while (parser.nextToken() != null) {
        if (parser.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
          parser.getDecimalValue();
        } else if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT) {
          parser.getNumberValue();
        } else if (parser.currentToken() == JsonToken.VALUE_STRING) {
          parser.getText();
        }
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return parser == null ? null : parser.getParsingContext().pathAsPointer().toString();
    } finally {
      if (parser != null) {
        try {
          parser.close();
        } catch (IOException ignored) {
          // Nothing was written; closing a byte-array parser cannot lose anything.
        }
      }
    }
  }

  private static Limit limitOf(String message) {
    if (message.contains("nesting depth")) {
      return Limit.DEPTH;
    }
    if (message.contains("Number value length")) {
      return Limit.NUMBER_LENGTH;
    }
    if (message.contains("Name length")) {
      return Limit.NAME_LENGTH;
    }
    if (message.contains("String value length")) {
      return Limit.STRING_LENGTH;
    }
    return null;
  }

  private String describe(JsonProcessingException e) {
    String original = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
    String reason;
    if (e instanceof StreamConstraintsException) {
      reason = constraint(original);
    } else if (e instanceof JsonEOFException || original.startsWith("Unexpected end-of-input")) {
      reason = "unexpected end of input";
    } else if (original.startsWith("Duplicate field")) {
      reason = "duplicate key \"" + quoted(original) + "\"";
    } else if (original.startsWith("Trailing token")) {
      reason = "unexpected content after the JSON value";
    } else if (original.contains("surrogate")) {
      reason = "a string holds an unpaired UTF-16 surrogate (RFC 7493 §2.1)";
    } else if (original.contains("UTF-8") || original.contains("UTF8")) {
      reason = "invalid UTF-8";
    } else if (original.contains("was expecting double-quote")) {
      reason = "a key must be a string in double quotes";
    } else if (original.startsWith("Unexpected character")) {
      reason = "unexpected character '" + quoted(original) + "'";
    } else if (original.startsWith("Unrecognized token")) {
      reason = "unrecognized token '" + quoted(original) + "'";
    } else if (original.startsWith("Illegal unquoted character")) {
      reason = "control character in a string must be escaped";
    } else {
      reason = "not valid JSON";
    }
    JsonLocation at = e.getLocation();
    if (at == null || at.getLineNr() < 1) {
      return reason;
    }
    return reason + " at line " + at.getLineNr() + ", column " + at.getColumnNr();
  }

  private String constraint(String message) {
    if (message.contains("nesting depth")) {
      return "nested deeper than " + maxDepth + " levels";
    }
    if (message.contains("Number value length")) {
      return "a number is longer than " + MAX_NUMBER_LENGTH + " characters";
    }
    if (message.contains("Name length")) {
      return "a member name is longer than " + MAX_NAME_LENGTH + " characters";
    }
    if (message.contains("String value length")) {
      return "a string is longer than " + MAX_STRING_LENGTH + " characters";
    }
    return "the value exceeds a reading limit";
  }

  private static String describeMapping(Exception e) {
    String message =
        e instanceof JsonProcessingException p ? p.getOriginalMessage() : e.getMessage();
    if (message == null) {
      return e.getClass().getSimpleName();
    }
    // Jackson's messages name Java classes and can be long; the first sentence is the useful part.
    int end = message.indexOf('\n');
    String first = end < 0 ? message : message.substring(0, end);
    return first.length() > 200 ? first.substring(0, 200) + "..." : first;
  }

  private static String quoted(String message) {
    Matcher matcher = QUOTED.matcher(message);
    return matcher.find() ? matcher.group(1) : "?";
  }
}
