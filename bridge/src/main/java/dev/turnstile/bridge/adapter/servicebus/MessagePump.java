package dev.turnstile.bridge.adapter.servicebus;

import com.azure.messaging.servicebus.ServiceBusProcessorClient;

/**
 * What takes messages from one entity and hands each to {@link ServiceBusEntityReceiver}: the SDK's
 * processor client, or {@link ServiceBusSessionPump} for a session-enabled entity.
 */
interface MessagePump {

  /** Starts taking messages; returns at once. */
  void start();

  /** Stops taking messages and closes its clients; callbacks still running see their links go. */
  void close();

  static MessagePump of(ServiceBusProcessorClient processor) {
    return new MessagePump() {
      @Override
      public void start() {
        processor.start();
      }

      @Override
      public void close() {
        processor.close();
      }
    };
  }
}
