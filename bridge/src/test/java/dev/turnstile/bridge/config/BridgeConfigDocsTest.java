package dev.turnstile.bridge.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.runtime.config.ConfigDocs;
import dev.turnstile.runtime.config.GeneratedBlock;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The bridge configuration tables of {@code docs/configuration.md} are generated from {@link
 * BridgeConfigModel#MODEL}, and the example files in {@code config/} are valid for it. {@code
 * -Dturnstile.regenerate=true} rewrites the tables instead of checking them.
 */
class BridgeConfigDocsTest {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  static final String PAGE = "docs/configuration.md";
  static final String BLOCK = "bridge configuration";
  static final String PRODUCER_BLOCK = "bridge producer defaults";
  static final String REGENERATE =
      "./mvnw -B -q -pl bridge -am verify -DskipITs -Dtest=BridgeConfigDocsTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dturnstile.regenerate=true";

  @Test
  void theConfigurationPageTablesAreTheModels() throws Exception {
    Path page = REPOSITORY.resolve(PAGE);
    List<String> generated = ConfigDocs.markdown(BridgeConfigModel.MODEL);
    if (Boolean.getBoolean("turnstile.regenerate")) {
      GeneratedBlock.write(page, BLOCK, generated);
    }
    assertThat(GeneratedBlock.read(page, BLOCK))
        .as(PAGE + "'s bridge configuration drifted from BridgeConfigModel; run " + REGENERATE)
        .containsExactlyElementsOf(generated);
  }

  @Test
  void theProducerDefaultsOnThePageAreTheCodes() throws Exception {
    Path page = REPOSITORY.resolve(PAGE);
    List<String> generated =
        List.of(
            "The producer's own defaults, which `kafka.producer.*` keys change: "
                + String.join(
                    ", ",
                    BridgeProducerConfig.defaults().entrySet().stream()
                        .map(e -> "`" + e.getKey() + "=" + e.getValue() + "`")
                        .toList())
                + ".");
    if (Boolean.getBoolean("turnstile.regenerate")) {
      GeneratedBlock.write(page, PRODUCER_BLOCK, generated);
    }
    assertThat(GeneratedBlock.read(page, PRODUCER_BLOCK))
        .as(PAGE + "'s producer defaults drifted from BridgeProducerConfig; run " + REGENERATE)
        .containsExactlyElementsOf(generated);
  }

  @Test
  void theExampleFilesLoadAsTheyAre() {
    BridgeConfig plain =
        BridgeConfigLoader.load(REPOSITORY.resolve("config/bridge.properties"), Map.of());
    assertThat(plain.get(BridgeConfigModel.KAFKA_BOOTSTRAP_SERVERS)).isNotBlank();
    assertThat(plain.serviceBus()).isNull();
    // Its Service Bus lines are commented out, so that it starts without a namespace; turned on,
    // they configure the billing entity.
    assertThat(BridgeConfigLoader.load(ExampleFiles.bridgeWithServiceBus(), Map.of()).serviceBus())
        .isNotNull();

    BridgeConfig secured =
        BridgeConfigLoader.from(
            BridgeConfigModel.MODEL.load(
                List.of(
                    REPOSITORY.resolve("config/bridge.properties"),
                    REPOSITORY.resolve("config/kafka-sasl-ssl.properties")),
                Map.of("TURNSTILE_KAFKA_SASL_JAAS_CONFIG", "secret from the environment")));
    assertThat(secured.kafkaCommon())
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.jaas.config", "secret from the environment");
    assertThat(secured.toString()).doesNotContain("secret from the environment");
  }

  @Test
  void theExampleFilesRestateNoDefault() {
    // A default is declared once, in the model; a copy in an example file goes stale unnoticed.
    for (String file : List.of("config/bridge.properties")) {
      assertThat(BridgeConfigModel.MODEL.keysSetToTheirDefault(REPOSITORY.resolve(file)))
          .as(file + " sets these keys to their declared defaults: remove the lines")
          .isEmpty();
    }
  }
}
