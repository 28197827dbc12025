package dev.turnstile.topology.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.turnstile.runtime.config.ConfigDocs;
import dev.turnstile.runtime.config.GeneratedBlock;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The topology configuration tables of {@code docs/configuration.md} are generated from {@link
 * TopologyConfigModel#MODEL}, and the example files in {@code config/} are valid for it. {@code
 * -Dturnstile.regenerate=true} rewrites the tables instead of checking them.
 */
class TopologyConfigDocsTest {

  static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  static final String PAGE = "docs/configuration.md";
  static final String BLOCK = "topology configuration";
  static final String REGENERATE =
      "./mvnw -B -q -pl topology -am verify -DskipITs -Dtest=TopologyConfigDocsTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dturnstile.regenerate=true";

  @Test
  void theConfigurationPageTablesAreTheModels() throws Exception {
    Path page = REPOSITORY.resolve(PAGE);
    List<String> generated = ConfigDocs.markdown(TopologyConfigModel.MODEL);
    if (Boolean.getBoolean("turnstile.regenerate")) {
      GeneratedBlock.write(page, BLOCK, generated);
    }
    assertThat(GeneratedBlock.read(page, BLOCK))
        .as(PAGE + "'s topology configuration drifted from TopologyConfigModel; run " + REGENERATE)
        .containsExactlyElementsOf(generated);
  }

  @Test
  void theExampleFilesLoadAsTheyAre() {
    TopologyConfig plain =
        TopologyConfig.load(REPOSITORY.resolve("config/topology.properties"), Map.of());
    assertThat(plain.get(TopologyConfigModel.BOOTSTRAP_SERVERS)).isNotBlank();
    assertThat(plain.get(TopologyConfigModel.NUM_STANDBY_REPLICAS)).isEqualTo(1);

    TopologyConfig secured =
        TopologyConfig.of(
            TopologyConfigModel.MODEL.load(
                List.of(
                    REPOSITORY.resolve("config/topology.properties"),
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
    for (String file : List.of("config/topology.properties")) {
      assertThat(TopologyConfigModel.MODEL.keysSetToTheirDefault(REPOSITORY.resolve(file)))
          .as(file + " sets these keys to their declared defaults: remove the lines")
          .isEmpty();
    }
  }
}
