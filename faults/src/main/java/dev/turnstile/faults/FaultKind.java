package dev.turnstile.faults;

/** The faults the harness injects, each with what it does to which process. */
enum FaultKind {
  TOPOLOGY_KILL("topology instance SIGKILLed while processing, restarted"),
  TOPOLOGY_KILL_IN_RESTORE("topology instance SIGKILLed while it restores its state, restarted"),
  TOPOLOGY_KILL_IN_PUNCTUATION("topology instance SIGKILLed inside a punctuation, restarted"),
  TOPOLOGY_PAUSE("topology instance SIGSTOPped past the transaction timeout, then SIGCONT"),
  BRIDGE_KILL("bridge SIGKILLed with HTTP requests and Service Bus messages in flight, restarted"),
  BROKER_STOP("Kafka broker stopped (SIGTERM, controlled shutdown), started again"),
  BROKER_KILL("Kafka broker SIGKILLed, started again"),
  NETWORK_CUT("network between bridge and brokers cut (every packet held), then healed"),
  SERVICEBUS_DETACH("Service Bus link detached between the Kafka ack and the complete");

  final String description;

  FaultKind(String description) {
    this.description = description;
  }
}
