package dev.turnstile.bridge.adapter.servicebus;

import com.azure.messaging.servicebus.ServiceBusReceivedMessage;
import com.azure.messaging.servicebus.ServiceBusReceivedMessageContext;
import com.azure.messaging.servicebus.ServiceBusReceiverClient;
import com.azure.messaging.servicebus.models.DeadLetterOptions;

/** Settles one received message: through the processor's context or its session's receiver. */
interface Settler {
  void complete();

  void abandon();

  void deadLetter(DeadLetterOptions options);

  static Settler of(ServiceBusReceivedMessageContext context) {
    return new Settler() {
      @Override
      public void complete() {
        context.complete();
      }

      @Override
      public void abandon() {
        context.abandon();
      }

      @Override
      public void deadLetter(DeadLetterOptions options) {
        context.deadLetter(options);
      }
    };
  }

  static Settler of(ServiceBusReceiverClient receiver, ServiceBusReceivedMessage message) {
    return new Settler() {
      @Override
      public void complete() {
        receiver.complete(message);
      }

      @Override
      public void abandon() {
        receiver.abandon(message);
      }

      @Override
      public void deadLetter(DeadLetterOptions options) {
        receiver.deadLetter(message, options);
      }
    };
  }
}
