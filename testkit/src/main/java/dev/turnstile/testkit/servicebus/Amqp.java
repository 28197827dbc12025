package dev.turnstile.testkit.servicebus;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.qpid.proton.amqp.Binary;
import org.apache.qpid.proton.amqp.Symbol;
import org.apache.qpid.proton.amqp.messaging.AmqpValue;
import org.apache.qpid.proton.amqp.messaging.ApplicationProperties;
import org.apache.qpid.proton.amqp.messaging.Data;
import org.apache.qpid.proton.amqp.messaging.MessageAnnotations;
import org.apache.qpid.proton.codec.AMQPDefinedTypes;
import org.apache.qpid.proton.codec.DecoderImpl;
import org.apache.qpid.proton.codec.EncoderImpl;
import org.apache.qpid.proton.engine.Receiver;
import org.apache.qpid.proton.message.Message;

/** Encoding facts shared by the double's parts: wire formats Service Bus uses on top of AMQP. */
final class Amqp {

  static final String VENDOR = "com.microsoft:";
  static final Symbol SESSION_FILTER = Symbol.valueOf(VENDOR + "session-filter");
  static final Symbol LOCKED_UNTIL_UTC = Symbol.valueOf(VENDOR + "locked-until-utc");
  static final Symbol TIMEOUT_PROPERTY = Symbol.valueOf(VENDOR + "timeout");
  static final Symbol DEAD_LETTER = Symbol.valueOf(VENDOR + "dead-letter");
  static final Symbol SERVER_BUSY = Symbol.valueOf(VENDOR + "server-busy");
  static final Symbol MESSAGE_LOCK_LOST = Symbol.valueOf(VENDOR + "message-lock-lost");
  static final Symbol SESSION_LOCK_LOST = Symbol.valueOf(VENDOR + "session-lock-lost");
  static final Symbol SESSION_CANNOT_BE_LOCKED =
      Symbol.valueOf(VENDOR + "session-cannot-be-locked");
  static final Symbol OPERATION_TIMEOUT = Symbol.valueOf(VENDOR + "timeout");
  static final Symbol NOT_FOUND = Symbol.valueOf("amqp:not-found");
  static final Symbol SEQUENCE_NUMBER = Symbol.valueOf("x-opt-sequence-number");
  static final Symbol ENQUEUED_TIME = Symbol.valueOf("x-opt-enqueued-time");
  static final Symbol LOCKED_UNTIL = Symbol.valueOf("x-opt-locked-until");
  static final Symbol LOCK_TOKEN = Symbol.valueOf("x-opt-lock-token");
  static final Symbol MAX_MESSAGE_SIZE = Symbol.valueOf("max-message-size");

  /** Service Bus packs several messages into one transfer with this message format. */
  static final int BATCH_MESSAGE_FORMAT = 0x80013700;

  private static final long EPOCH_IN_DOT_NET_TICKS = 621_355_968_000_000_000L;

  private Amqp() {}

  /** The lock token as a delivery tag: a .NET GUID's bytes (first 4, 2, 2 bytes little-endian). */
  static byte[] dotNetGuidBytes(UUID uuid) {
    ByteBuffer buffer = ByteBuffer.allocate(16);
    buffer.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    byte[] bytes = buffer.array();
    reverse(bytes, 0, 4);
    reverse(bytes, 4, 2);
    reverse(bytes, 6, 2);
    return bytes;
  }

  static UUID uuidFromDotNetGuidBytes(byte[] tag) {
    byte[] bytes = tag.clone();
    reverse(bytes, 0, 4);
    reverse(bytes, 4, 2);
    reverse(bytes, 6, 2);
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    return new UUID(buffer.getLong(), buffer.getLong());
  }

  private static void reverse(byte[] bytes, int from, int length) {
    for (int i = 0; i < length / 2; i++) {
      byte b = bytes[from + i];
      bytes[from + i] = bytes[from + length - 1 - i];
      bytes[from + length - 1 - i] = b;
    }
  }

  static long dotNetTicks(Instant instant) {
    return EPOCH_IN_DOT_NET_TICKS + instant.toEpochMilli() * 10_000L;
  }

  static byte[] encode(Message message) {
    int size = 1024;
    while (true) {
      byte[] buffer = new byte[size];
      try {
        int length = message.encode(buffer, 0, size);
        byte[] result = new byte[length];
        System.arraycopy(buffer, 0, result, 0, length);
        return result;
      } catch (BufferOverflowException e) {
        size *= 4;
      }
    }
  }

  static Message decode(byte[] bytes) {
    Message message = Message.Factory.create();
    message.decode(bytes, 0, bytes.length);
    return message;
  }

  /** Reads the whole current delivery of a receiver link. */
  static byte[] read(Receiver receiver, int pending) {
    byte[] bytes = new byte[pending];
    int offset = 0;
    while (offset < pending) {
      int read = receiver.recv(bytes, offset, pending - offset);
      if (read <= 0) {
        break;
      }
      offset += read;
    }
    return bytes;
  }

  /** Splits a transfer into the messages it carries: one, or a batch's data sections. */
  static List<byte[]> messagesOf(byte[] transfer, int messageFormat) {
    if (messageFormat != BATCH_MESSAGE_FORMAT) {
      return List.of(transfer);
    }
    DecoderImpl decoder = new DecoderImpl();
    AMQPDefinedTypes.registerAllTypes(decoder, new EncoderImpl(decoder));
    ByteBuffer buffer = ByteBuffer.wrap(transfer);
    decoder.setByteBuffer(buffer);
    List<byte[]> messages = new ArrayList<>();
    while (buffer.hasRemaining()) {
      Object section = decoder.readObject();
      if (section instanceof Data data) {
        Binary binary = data.getValue();
        byte[] bytes = new byte[binary.getLength()];
        System.arraycopy(binary.getArray(), binary.getArrayOffset(), bytes, 0, bytes.length);
        messages.add(bytes);
      }
    }
    return messages;
  }

  static BrokeredMessage snapshotOf(StoredMessage message) {
    Message amqp = Amqp.decode(message.encoded);
    byte[] body;
    if (amqp.getBody() instanceof Data data) {
      Binary binary = data.getValue();
      body = new byte[binary.getLength()];
      System.arraycopy(binary.getArray(), binary.getArrayOffset(), body, 0, body.length);
    } else if (amqp.getBody() instanceof AmqpValue value) {
      body = String.valueOf(value.getValue()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    } else {
      body = new byte[0];
    }
    Map<String, Object> properties =
        amqp.getApplicationProperties() == null
            ? Map.of()
            : new LinkedHashMap<>(amqp.getApplicationProperties().getValue());
    return new BrokeredMessage(
        message.sequenceNumber,
        amqp.getMessageId() == null ? null : String.valueOf(amqp.getMessageId()),
        message.sessionId,
        message.deliveryCount,
        body,
        properties);
  }

  static Map<Symbol, Object> annotations(Message message) {
    if (message.getMessageAnnotations() == null) {
      message.setMessageAnnotations(new MessageAnnotations(new HashMap<>()));
    }
    return message.getMessageAnnotations().getValue();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Map<String, Object> applicationProperties(Message message) {
    if (message.getApplicationProperties() == null) {
      message.setApplicationProperties(new ApplicationProperties(new HashMap<>()));
    }
    return (Map) message.getApplicationProperties().getValue();
  }
}
